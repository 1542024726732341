"""Firestore unreachable or silent: a prompt 502 backend_unavailable, never a 500 or a hang."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from common import container
from common.adapters.firestore import CLIENTS as FIRESTORE_CLIENTS
from devtools.emulator import free_port
from functions.system import service as system_service
from tests.conftest import refresh_settings
from tests.helpers import bearer, client, new_consumer

pytestmark = pytest.mark.emulator
URL = "/v1/tracking/subscriptions"
BUDGET_S = 4.0  # FIRESTORE_TIMEOUT_S=1 plus the transaction's few attempts
HEALTH_WITHIN_S = 1.5  # /health waits HEALTH_WAIT_S (0.8 s) for its probe, then answers


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def point_firestore_at(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", address)
    monkeypatch.setenv("FIRESTORE_TIMEOUT_S", "1")
    os.environ["FIRESTORE_EMULATOR_HOST"] = address
    refresh_settings()
    container.reset(*FIRESTORE_CLIENTS)
    system_service.reset()  # forget the last good health check


@pytest.fixture
def restore_firestore(emulator) -> Iterator[None]:
    yield
    os.environ["FIRESTORE_EMULATOR_HOST"] = emulator.address
    refresh_settings()
    container.reset(*FIRESTORE_CLIENTS)
    system_service.reset()


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


@pytest.mark.parametrize("kind", ["refused", "silent"])
def test_health_and_auth_give_502_when_firestore_is_down(
    db, restore_firestore, monkeypatch, silent_port, kind
):
    _, key = new_consumer()  # stored while Firestore is up, never verified yet
    port = free_port() if kind == "refused" else silent_port
    point_firestore_at(f"127.0.0.1:{port}", monkeypatch)
    api = client()
    assert api.get("/openapi.json").status_code == 200  # the routes imported: a warm instance
    for call, within in (
        (lambda: api.get("/health"), HEALTH_WITHIN_S),  # a probe's state, not a deadline
        (lambda: api.get(URL, headers=bearer(key)), BUDGET_S),  # key lookup: 502, not 401
    ):
        response, elapsed = timed(call)
        assert response.status_code == 502, response.get_json()
        assert response.get_json()["code"] == "backend_unavailable"
        assert response.headers["x-correlation-id"]
        assert elapsed < within


def test_writes_and_transactions_give_502_promptly(db, restore_firestore, monkeypatch):
    _, key = new_consumer()
    auth = bearer(key)
    created = client().post(URL, json={"topics": ["fur"]}, headers=auth).get_json()["data"]
    point_firestore_at(f"127.0.0.1:{free_port()}", monkeypatch)  # the key stays cached
    calls = [
        lambda: client().post(URL, json={"topics": ["fur"]}, headers=auth),
        lambda: client().patch(f"{URL}/{created['id']}", json={"active": False}, headers=auth),
        lambda: client().delete(f"{URL}/{created['id']}", headers=auth),
        lambda: client().get(URL, headers=auth),
    ]
    for call in calls:
        response, elapsed = timed(call)
        assert response.status_code == 502
        assert elapsed < BUDGET_S


def test_nothing_saved_is_lost_after_a_failed_request(db, restore_firestore, monkeypatch, emulator):
    _, key = new_consumer()
    auth = bearer(key)
    created = client().post(URL, json={"topics": ["fur"]}, headers=auth).get_json()["data"]
    point_firestore_at(f"127.0.0.1:{free_port()}", monkeypatch)
    assert client().delete(f"{URL}/{created['id']}", headers=auth).status_code == 502
    point_firestore_at(emulator.address, monkeypatch)
    listed = client().get(URL, headers=auth).get_json()
    assert [s["id"] for s in listed["data"]] == [created["id"]]
