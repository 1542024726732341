"""Backpressure, shared fairly: a route whose work costs this instance CPU or holds it for long
(embedding a query, running the offline engines, a stream) declares a capacity pool
(``Route.capacity``); at most ``MAX_CONCURRENT_<POOL>`` requests of that pool run at once per
instance. A request that finds no free slot within ``CAPACITY_WAIT_MS`` is answered 503
``overloaded`` with ``Retry-After`` before its work starts (not billed), instead of queueing
for the CPU until its database deadline passes and answering 502 (issue 26, decision 0048).

The slots are shared among consumers, not first come first served (issue 43, decision 0065):

- **The fewest first.** A free slot goes to a waiting request of a consumer that holds the
  fewest slots of the pool, so a consumer's first requests run before the fifth request of a
  consumer in the middle of a burst: one consumer's burst is shed (its waits run out) before
  another's first requests.
- **A bounded burst.** A consumer has at most ``CAPACITY_PER_CONSUMER`` requests running or
  waiting in a pool; more are answered 503 at once. The instance's threads are not all spent
  waiting for one consumer, so another's requests reach the pool at all.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from common.config import get_settings
from common.errors import Overloaded


@dataclass
class Pool:
    """The slots of one kind of work in this instance, and who holds and waits for them."""

    slots: int
    per_consumer: int
    _running: Counter[str] = field(default_factory=Counter)
    _waiting: Counter[str] = field(default_factory=Counter)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def acquire(self, who: str, timeout_s: float) -> bool:
        """A slot for ``who`` within ``timeout_s``: True once taken, False when none came in
        time or ``who`` already has its whole burst in this pool."""
        with self._changed:  # a re-entrant lock: share_used takes it again
            if self.share_used(who):
                return False
            deadline = time.monotonic() + timeout_s
            self._waiting[who] += 1
            try:
                while not self._turn_of(who):
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._changed.wait(remaining)
                self._running[who] += 1
                return True
            finally:
                self._waiting[who] -= 1
                if not self._waiting[who]:
                    del self._waiting[who]
                self._changed.notify_all()  # who goes next may have changed

    def share_used(self, who: str) -> bool:
        """Whether ``who`` has its whole burst allowance running or waiting in this pool."""
        with self._changed:
            return self._running[who] + self._waiting[who] >= self.per_consumer

    def release(self, who: str) -> None:
        with self._changed:
            self._running[who] -= 1
            if self._running[who] <= 0:
                del self._running[who]
            self._changed.notify_all()

    def _turn_of(self, who: str) -> bool:
        """A slot is free and no other waiting consumer holds fewer slots than ``who``."""
        if self._running.total() >= self.slots:
            return False
        mine = self._running[who]
        return all(self._running[other] >= mine for other in self._waiting if other != who)


POOLS = ("search", "streams")  # a route names one of these (checked when the API is built)
_WORK = {"search": "searches", "streams": "streamed answers"}


@cache
def _pool(name: str) -> Pool:
    settings = get_settings()
    slots = {
        "search": settings.max_concurrent_searches,
        "streams": settings.max_concurrent_streams,
    }[name]
    return Pool(slots, settings.capacity_per_consumer)


class Slot:
    """A slot taken for one request; ``release`` gives it back (once, however often it is
    called: a stream's end and its response's close both call it)."""

    def __init__(self, pool: Pool | None, who: str) -> None:
        self._pool, self._who = pool, who
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.release(self._who)


def take(name: str | None, who: str) -> Slot:
    """A slot of the pool ``name`` for the consumer ``who`` (None: no pool, no limit), or 503
    ``overloaded`` before the work starts."""
    if name is None:
        return Slot(None, who)
    pool = _pool(name)
    if not pool.acquire(who, get_settings().capacity_wait_ms / 1000):
        if pool.share_used(who):
            raise Overloaded(
                "Your requests already hold your share of this instance "
                "(CAPACITY_PER_CONSUMER running or waiting); nothing was done or billed. Send "
                "fewer at once, or retry after the pause in Retry-After."
            )
        raise Overloaded(
            f"The service is running as many {_WORK[name]} as it can at the moment; nothing was "
            "done or billed. Retry after the pause in Retry-After."
        )
    return Slot(pool, who)


def reset() -> None:
    """Forget the pools (tests that change the settings)."""
    _pool.cache_clear()
