"""Backpressure: a route whose work costs CPU in this instance (embedding a query, running
the offline engines) declares a capacity pool (``Route.capacity``); at most
``MAX_CONCURRENT_<POOL>`` requests of that pool run at once per instance. A request that finds
no free slot within ``CAPACITY_WAIT_MS`` is answered 503 ``overloaded`` with ``Retry-After``
before its work starts (not billed), instead of queueing for the CPU until its database
deadline passes and answering 502 (issue 26: 50 parallel knowledge searches on two cores all
answered 502 after about 6 s). Decision 0048.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from common.config import get_settings
from common.errors import Overloaded


@cache
def _pool(name: str) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(get_settings().max_concurrent_searches)


@contextmanager
def slot(name: str | None) -> Iterator[None]:
    """Hold a slot of the pool ``name`` while the work runs (None: no pool, no limit)."""
    if name is None:
        yield
        return
    pool = _pool(name)
    if not pool.acquire(timeout=get_settings().capacity_wait_ms / 1000):
        raise Overloaded()
    try:
        yield
    finally:
        pool.release()


def reset() -> None:
    """Forget the pools (tests that change the settings)."""
    _pool.cache_clear()
