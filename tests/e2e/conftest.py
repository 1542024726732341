"""A real functions-framework server (``--target=api``) on a free port, over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devtools.emulator import Emulator, free_port
from devtools.run import THREADS
from devtools.server import start_api
from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def server_env(emulator: Emulator) -> dict[str, str]:
    return {
        **os.environ,
        "ENVIRONMENT": "test",
        "FIRESTORE_EMULATOR_HOST": emulator.address,
        "GOOGLE_CLOUD_PROJECT": emulator.project,
        # The shared server takes thousands of unauthenticated requests from 127.0.0.1 (slow
        # clients, schemathesis): the per-address failure limit is tested in process instead
        # (tests/emulator/test_edge_limit.py).
        "AUTH_FAILURES_PER_ADDRESS": "0",
    }


def healthy_within(base: str, seconds: float) -> bool:
    """Poll GET /health until it answers 200; False if it never does in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return True
        except httpx.TransportError:
            time.sleep(0.1)
    return False


def admin(emulator: Emulator, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m admin ...`` as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "admin", *args],
        env=server_env(emulator),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def issue_key(emulator: Emulator, email: str) -> str:
    done = admin(emulator, "issue-key", "--email", email)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="session")
def server(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from devtools import feedserver

    port = free_port()
    workdir = tmp_path_factory.mktemp("server")
    feeds = feedserver.serve(0)  # research runs on loopback fixture feeds, never the network
    env = {
        **server_env(emulator),
        "FEED_CATALOG_PATH": str(feedserver.write_catalog(feeds.url, workdir / "feeds.json")),
        "NEWS_SEARCH_URL": feedserver.search_template(feeds.url),
        "OUTBOX_DIR": str(workdir / "outbox"),
        "THREADS": str(THREADS),  # as `make run` serves
    }
    log = open(workdir / "server.log", "wb")  # noqa: SIM115
    process = start_api(env, port, log)
    base = f"http://127.0.0.1:{port}"
    if not healthy_within(base, 30):
        process.kill()
        pytest.fail("the functions-framework server did not become healthy")
    yield base
    process.terminate()
    process.wait(timeout=10)
    log.close()
    feeds.shutdown()


@pytest.fixture
def http(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=10) as client:
        yield client
