"""Slow and hostile clients against the real functions-framework server, over raw sockets
(decision 0015): a body that never arrives, a huge declared body, a body of another type."""

from __future__ import annotations

import json
import socket
import time
import uuid
from http.client import HTTPResponse
from urllib.parse import urlsplit

import httpx
import pytest

from common.config import get_settings
from tests.e2e.conftest import issue_key

pytestmark = pytest.mark.e2e
URL = "/v1/tracking/subscriptions"


def connect(server: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", urlsplit(server).port), timeout=5)


def send_head(
    sock: socket.socket, method: str, path: str, declared: int, headers: dict | None = None
) -> None:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines.append(f"Content-Length: {declared}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())


def stalled(server: str, method: str, path: str) -> socket.socket:
    """A request that declares 100 bytes of body and sends 10 of them, then nothing."""
    sock = connect(server)
    send_head(sock, method, path, 100)
    sock.sendall(b'{"type": "')
    return sock


def read_until_closed(sock: socket.socket, deadline: float) -> tuple[bytes, bool]:
    """Everything the server sends, and whether it closed the connection by ``deadline``."""
    data = b""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def status_of(answer: bytes) -> int | None:
    head = answer.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 else None


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/health", 200),  # needs no body: answered at once, the connection closed
        ("POST", URL, 401),  # no key: refused before the body is read
        ("POST", "/webhooks/idp", 408),  # the body is read (to verify it): 408 at the deadline
    ],
)
def test_fifty_stalled_bodies_neither_stop_health_nor_hold_on(server, method, path, status):
    timeout = get_settings().body_read_timeout_s
    opened = time.monotonic()
    connections = [stalled(server, method, path) for _ in range(50)]
    try:
        health = httpx.get(f"{server}/health", timeout=1)  # a timeout fails the test
        assert health.status_code == 200
        assert time.monotonic() - opened < timeout  # asked while all 50 were still stalled
        deadline = opened + timeout + 3
        for sock in connections:
            answer, closed = read_until_closed(sock, deadline)
            assert closed, f"still open after {time.monotonic() - opened:.1f} s: {answer[:80]!r}"
            assert status_of(answer) == status, answer[:300]
        assert httpx.get(f"{server}/health", timeout=1).status_code == 200
    finally:
        for sock in connections:
            sock.close()


def test_only_an_unfinished_body_ends_the_connection(server):
    sock = connect(server)
    try:  # a complete body: answered, and the connection serves the next request
        body = b'{"type": "user.created"}'
        send_head(sock, "POST", "/webhooks/idp", len(body))
        sock.sendall(body)
        first = HTTPResponse(sock)
        first.begin()
        assert first.status == 401  # unsigned
        first.read()
        send_head(sock, "GET", "/health", 100)  # on the same connection: a body never sent
        sock.sendall(b"{")
        answer, closed = read_until_closed(sock, time.monotonic() + 2)
        assert status_of(answer) == 200
        assert closed
    finally:
        sock.close()


def test_a_refused_body_already_sent_leaves_the_connection_usable(server):
    """A 401 before the body is read: the small body that already arrived is dropped, and the
    same connection answers the next request (no keep-alive answer on a closing socket)."""
    sock = connect(server)
    try:
        body = json.dumps({"topics": ["fur"]}).encode()
        for _ in range(2):
            send_head(sock, "POST", URL, len(body))
            sock.sendall(body)
            refused = HTTPResponse(sock)
            refused.begin()
            assert refused.status == 401
            assert refused.getheader("Connection", "").lower() != "close"
            refused.read()
        send_head(sock, "GET", "/health", 0)
        health = HTTPResponse(sock)
        health.begin()
        assert health.status == 200
    finally:
        sock.close()


@pytest.mark.parametrize(
    ("method", "path", "with_key"),
    [
        ("POST", URL, False),  # 413 before 401
        ("POST", URL, True),
        ("GET", "/health", False),
        ("POST", "/webhooks/idp", False),
    ],
)
def test_a_declared_body_over_the_limit_gets_413_at_once_without_being_sent(
    server, emulator, method, path, with_key
):
    headers = {}
    if with_key:
        key = issue_key(emulator, f"big-{uuid.uuid4().hex[:6]}@example.org")
        headers["Authorization"] = f"Bearer {key}"
    sock = connect(server)
    try:
        started = time.monotonic()
        send_head(sock, method, path, 300_000_000, headers)  # 300 MB declared, none sent
        answer, closed = read_until_closed(sock, started + 3)
        assert time.monotonic() - started < 1
        assert closed
        assert status_of(answer) == 413, answer[:300]
        problem = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert problem["code"] == "payload_too_large"
    finally:
        sock.close()


def test_json_sent_as_another_content_type_gets_415(http, emulator):
    auth = {"Authorization": f"Bearer {issue_key(emulator, 'types@example.org')}"}
    body = json.dumps({"topics": ["fur"]})
    for content_type in ["text/plain", "application/x-www-form-urlencoded"]:
        response = http.post(URL, content=body, headers={**auth, "Content-Type": content_type})
        assert response.status_code == 415
        assert response.headers["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == "unsupported_media_type"
    assert http.get(URL, headers=auth).json()["total"] == 0  # nothing was created
    charset = {**auth, "Content-Type": "application/json; charset=utf-8"}
    assert http.post(URL, content=body, headers=charset).status_code == 201
