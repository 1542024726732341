"""Health check and API description. No Flask here."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from common.adapters.firestore import get_db
from common.config import get_settings
from common.errors import BackendUnavailable, Warming

if TYPE_CHECKING:
    from common.http import Route

HEALTH_CACHE_S = 5.0
HEALTH_WAIT_S = 0.8  # /health waits this long for the database's answer (issue 27)
_last_ok = float("-inf")
_lock = threading.Lock()
_probe: Future[None] | None = None
_prober: ThreadPoolExecutor | None = None


def check_health() -> dict[str, Any]:
    """Ok when the database answers; a failing database raises a backend error (502), and one
    that has not answered within ``HEALTH_WAIT_S`` too: a health check answers within a
    second even while the database stalls (it used to wait for the 5 s deadline).

    The read runs as a probe on a worker of its own, one at a time: callers while it is out
    wait for the same probe, and one that stalls goes on in the background and reports when
    it ends. A success is remembered for HEALTH_CACHE_S, so an unauthenticated caller polling
    /health costs at most one database read per instance every few seconds.

    Until the instance has loaded what its first requests need (``common.http.warmup``), it
    answers 503 ``warming``: not ready for traffic yet."""
    from common.http import warmup

    if not warmup.ready():
        raise Warming()  # 503 until what the first requests need is loaded
    if time.monotonic() - _last_ok >= HEALTH_CACHE_S:
        probe = _start_probe()
        try:
            probe.result(timeout=HEALTH_WAIT_S)
        except FutureTimeout:
            raise BackendUnavailable(
                f"The database has not answered within {HEALTH_WAIT_S} s."
            ) from None
    return {
        "status": "ok",
        "version": get_settings().service_version,
        "checks": {"firestore": "ok"},
    }


def _start_probe() -> Future[None]:
    global _probe, _prober
    with _lock:
        if _probe is None or _probe.done():
            if _prober is None:
                _prober = ThreadPoolExecutor(max_workers=1, thread_name_prefix="health")
            _probe = _prober.submit(_ping)
        return _probe


def _ping() -> None:
    global _last_ok
    get_db().collection("_health").document("ping").get()
    _last_ok = time.monotonic()


def reset() -> None:
    """Forget the last probe and its answer (tests that repoint the database)."""
    global _last_ok, _probe
    with _lock:
        _last_ok, _probe = float("-inf"), None


def openapi_document(routes: Sequence[Route]) -> dict[str, Any]:
    """The OpenAPI document of ``routes`` (every route of the API, from the registry)."""
    from common.http.openapi import build_openapi

    return build_openapi(routes, version=get_settings().service_version)
