"""Fixtures shared by the three layers.

The Firestore emulator is started once per test run (only if a test needs it) on a free port;
``db`` wipes it before each test that uses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["ENVIRONMENT"] = "test"
os.environ["GOOGLE_CLOUD_PROJECT"] = "demo-ars-test"
os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
# One BLAS thread per process (decision 0076), set before NumPy loads and inherited by the
# workers and the servers they start: the two workers and their servers encode at once, and
# OpenBLAS's threads in two processes on two cores fought: 150 passages took 140 s in each of
# two processes at once, 18 s with one thread each (16 s alone).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from common import container
from common.accounts import keys
from common.adapters import firestore
from common.adapters.firestore import forget_moved
from common.config import get_settings
from common.http import edgelimit, ratelimit
from devtools.emulator import Emulator, free_port

ROOT = Path(__file__).resolve().parent.parent


def refresh_settings() -> None:
    """Re-read settings after changing the environment (the Firestore client is kept)."""
    get_settings.cache_clear()
    keys.clear_cache()
    ratelimit.forget_refusals()
    edgelimit.reset()


# The longest files, started first (decision 0075): `make test` runs the suite on two workers,
# each taking whole files in collection order, so these two overlap each other and the rest
# instead of running alone at the end. Measured on this machine: 148 s and 98 s.
STARTED_FIRST = ("tests/e2e/test_make_run.py", "tests/e2e/test_schemathesis.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return STARTED_FIRST.index(path) if path in STARTED_FIRST else len(STARTED_FIRST)

    items.sort(key=rank)  # stable: the order within each file, and of the rest, is kept


@pytest.fixture(autouse=True)
def _fresh_failure_limiter() -> None:
    """Every test starts with no failed authentication counted against 127.0.0.1 (the test
    client's address; decision 0034)."""
    edgelimit.reset()


@pytest.fixture(scope="session", autouse=True)
def _warmed() -> None:
    """What the API's entry point loads at start (decision 0065) is loaded before the first
    test, as ``/health`` keeps a load balancer's traffic away until it is: no test's requests
    share the CPU with the warm-up."""
    import time

    from common.http import warmup
    from registry import all_routes

    warmers = warmup.start(route.warm for route in all_routes())
    deadline = time.monotonic() + 120
    while not warmup.ready(warmers):
        assert time.monotonic() < deadline, "the warm-up did not finish"
        time.sleep(0.05)


@pytest.fixture(scope="session")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    emu = Emulator("127.0.0.1", free_port(), os.environ["GOOGLE_CLOUD_PROJECT"])
    emu.start(log_path=tmp_path_factory.mktemp("emulator") / "emulator.log")
    os.environ["FIRESTORE_EMULATOR_HOST"] = emu.address
    refresh_settings()
    container.reset(*firestore.CLIENTS)
    forget_moved()
    yield emu
    emu.stop()
    os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
    container.reset(*firestore.CLIENTS)
    forget_moved()


@pytest.fixture
def db(emulator: Emulator) -> Iterator[Emulator]:
    """A wiped emulator and fresh in-process caches."""
    emulator.wipe()
    forget_moved()
    refresh_settings()
    yield emulator
    refresh_settings()


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch):
    """Set environment variables and re-read the settings: ``settings_env(NAME=value)``."""

    def apply(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        refresh_settings()

    yield apply
    monkeypatch.undo()
    refresh_settings()


class LocalIdp:
    """A loopback identity provider: JWKS server, ID tokens and signed webhooks."""

    issuer = "https://idp.test-suite.example.org"
    audience = "portal-tests"

    def __init__(self) -> None:
        from devtools import localidp

        self._idp = localidp
        self.key = localidp.new_private_key()
        self.server = localidp.serve_jwks(localidp.jwks_document(self.key), free_port())
        self.jwks_url = f"http://127.0.0.1:{self.server.server_port}/.well-known/jwks.json"

    def token(self, email: str, **overrides) -> str:
        claims = {
            "sub": self._idp.local_user_id(email),
            "issuer": self.issuer,
            "audience": self.audience,
            **overrides,
        }
        return self._idp.id_token(self.key, **claims)

    def provision(self, email: str) -> str:
        """Tell the service about a user as the IdP would; returns the consumer id."""
        from common.accounts.consumers import IdpUser, find_by_email, upsert_from_idp

        upsert_from_idp(IdpUser(self._idp.local_user_id(email), email, "Test User", False, 1))
        return find_by_email(email)["id"]


@pytest.fixture(scope="session")
def _idp_server() -> Iterator[LocalIdp]:
    idp = LocalIdp()
    yield idp
    idp.server.shutdown()


@pytest.fixture
def local_idp(_idp_server: LocalIdp, settings_env) -> LocalIdp:
    settings_env(
        OIDC_ISSUER=_idp_server.issuer,
        OIDC_AUDIENCE=_idp_server.audience,
        OIDC_JWKS_URL=_idp_server.jwks_url,
    )
    return _idp_server


@pytest.fixture
def fake_llm(settings_env, monkeypatch: pytest.MonkeyPatch):
    """LLM_BACKEND=openai against a loopback fake of the provider (instant backoff, one retry)."""
    from common.adapters import llm
    from tests.fakes.openai_server import FakeOpenAIServer

    monkeypatch.setattr(llm, "_sleep", lambda _s: None)
    with FakeOpenAIServer() as server:
        settings_env(
            LLM_BACKEND="openai",
            LLM_BASE_URL=server.base_url,
            LLM_MODEL="fake-1",
            LLM_API_KEY="sk-test-secret",
            LLM_TIMEOUT_S="2",
            LLM_MAX_RETRIES="1",
        )
        container.reset(llm.PROVIDER)
        yield server
        container.reset(llm.PROVIDER)
