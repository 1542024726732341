"""Per-consumer rate limiting: a sliding-window estimate counted with one atomic batch.

The estimate is Cloudflare's: the requests counted in the current fixed window plus the previous
window's count, at most the limit, weighted by the share of the previous window that the sliding
window ending now still overlaps::

    estimate = min(previous, limit) * (window - elapsed) / window + current

A request is admitted when the estimate, this request included, is at most the limit. So a
client that used its whole limit at the end of one window gets it back gradually over the next
one, not all at once at the boundary (the fixed window's burst of twice the limit).

Each request commits one batch of two writes: an ``Increment(1)`` on
``ratelimit_windows/{consumer}_{window start}`` and an ``Increment(0)`` on the previous
window's document; the commit returns both transforms' results, i.e. both counts, this request
included. One round trip, no read, no transaction. Firestore applies the increments one after
another, so concurrent requests get distinct counts and never more than the limit allows are
admitted, however many arrive at once.

Rejected attempts that reach Firestore count, as admitted ones do: a client that keeps sending
faster than its limit (from many instances) stays refused until it slows down. The carry-over
is capped at the limit, so however hard a client hammered, in the next window it is treated as
one that used its whole limit. A refusal is remembered in process until the moment the estimate
would admit one more request (``Retry-After``): requests refused meanwhile on this instance are
answered without touching Firestore and are not counted, so a client retrying early on the same
instance costs nothing and does not dig itself deeper. That is exact: other requests can only
raise the counts, so nothing refused this way would have been admitted.

Documents carry ``expires_at`` for Firestore's TTL policy. If the store cannot be reached the
request fails with 502 (fail closed): the limit protects paid upstreams.

Headers follow the IETF httpapi ratelimit-headers draft: ``RateLimit-Policy:
"default";q=60;w=60`` and ``RateLimit: "default";r=59;t=42`` where ``r`` is the number of
requests that would be admitted now and ``t`` the seconds until one more becomes available
(the draft's "additional quota"); a 429 carries ``Retry-After`` equal to its ``t``.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from common.adapters.firestore import RATELIMIT_WINDOWS, get_db
from common.config import get_settings
from common.errors import RateLimited

_EPSILON = 1e-6  # requests; absorbs floating-point error in the estimate


@dataclass(frozen=True)
class Decision:
    limit: int
    window_s: int
    admitted: bool
    remaining: int  # requests that would be admitted now
    wait_s: float  # until one more request would be admitted, if no other is counted

    @property
    def reset_s(self) -> int:
        return max(1, math.ceil(round(self.wait_s, 6)))

    def headers(self) -> dict[str, str]:
        headers = {
            "RateLimit-Policy": f'"default";q={self.limit};w={self.window_s}',
            "RateLimit": f'"default";r={self.remaining};t={self.reset_s}',
        }
        if not self.admitted:
            headers["Retry-After"] = str(self.reset_s)
        return headers


def estimate(previous: int, current: int, elapsed: float, window_s: int, limit: int) -> float:
    """Requests in the sliding window ending ``elapsed`` seconds into the current window."""
    return min(previous, limit) * (window_s - elapsed) / window_s + current


def seconds_until(
    target: float, previous: int, current: int, elapsed: float, window_s: int, limit: int
) -> float:
    """Seconds until the estimate falls to ``target`` if no other request is counted: first the
    previous window's weight decays; then the current window becomes the previous one."""
    if target < 0:  # a limit of 0: nothing is ever admitted
        return float(window_s)
    left = window_s - elapsed
    carried = min(previous, limit)
    if current <= target:
        if carried * left / window_s <= target - current + _EPSILON:
            return 0.0
        return max(0.0, left - (target - current) * window_s / carried)
    carried_next = min(current, limit)
    if carried_next <= target + _EPSILON:
        return left
    return left + window_s - target * window_s / carried_next


def decide(limit: int, window_s: int, elapsed: float, previous: int, current: int) -> Decision:
    """The decision for a request counted in ``current`` (the counts include it)."""
    level = estimate(previous, current, elapsed, window_s, limit)
    remaining = max(0, math.floor(limit - level + _EPSILON))
    wait = seconds_until(limit - remaining - 1, previous, current, elapsed, window_s, limit)
    return Decision(limit, window_s, level <= limit + _EPSILON, remaining, wait)


def policy_for(principal: Any) -> tuple[int, int]:
    """(requests, window_s): the consumer's own override, else its plan's, else the default."""
    settings = get_settings()
    if principal.rate_limit:
        return principal.rate_limit
    plan = settings.rate_limit_plans.get(principal.plan)
    return plan or (settings.rate_limit_requests, settings.rate_limit_window_s)


def admit(principal: Any, now: float | None = None) -> Decision:
    """Count this request against the consumer's sliding window; raise RateLimited past it."""
    limit, window_s = policy_for(principal)
    now = time.time() if now is None else now
    key = (principal.consumer_id, limit, window_s)
    refused_until = _refusals.until(key, now)
    if refused_until is not None:
        decision = Decision(limit, window_s, False, 0, refused_until - now)
    else:
        start = int(now // window_s) * window_s
        previous, current = _count(principal.consumer_id, start, window_s)
        decision = decide(limit, window_s, now - start, previous, current)
        if not decision.admitted:
            _refusals.remember(key, now + decision.wait_s)
    if not decision.admitted:
        raise RateLimited(
            f"At most {limit} requests per {window_s} s; retry in {decision.reset_s} s.",
            headers=decision.headers(),
        )
    return decision


def _count(consumer_id: str, start: int, window_s: int) -> tuple[int, int]:
    """(previous, current): add 1 to this window's count and 0 to the previous one's, in one
    commit, and read both counts from its transform results."""
    from google.cloud.firestore import Increment

    db = get_db()
    batch = db.batch()
    for window_start, step in ((start, 1), (start - window_s, 0)):
        expires = datetime.fromtimestamp(window_start + 2 * window_s, UTC) + timedelta(minutes=5)
        batch.set(
            db.collection(RATELIMIT_WINDOWS).document(f"{consumer_id}_{window_start}"),
            {"count": Increment(step), "expires_at": expires},
            merge=True,
        )
    current, previous = (int(_transform_result(result)) for result in batch.commit())
    return previous, current


def _transform_result(write_result: Any) -> int | float:
    value = write_result.transform_results[0]
    return value.integer_value or value.double_value


class _Refusals:
    """Consumers refused recently, each until the time its estimate admits one more request.
    Bounded: past ``max_entries`` the expired entries go, then the oldest."""

    def __init__(self, max_entries: int = 10_000) -> None:
        self._until: dict[tuple[str, int, int], float] = {}
        self._lock = threading.Lock()
        self._max = max_entries

    def until(self, key: tuple[str, int, int], now: float) -> float | None:
        with self._lock:
            until = self._until.get(key)
            if until is not None and now >= until - 1e-3:  # tolerance for the rounded header
                del self._until[key]
                return None
            return until

    def remember(self, key: tuple[str, int, int], until: float) -> None:
        with self._lock:
            self._until[key] = max(until, self._until.pop(key, until))
            if len(self._until) > self._max:
                now = time.time()
                for stale in [k for k, t in self._until.items() if t <= now]:
                    del self._until[stale]
                while len(self._until) > self._max:
                    del self._until[next(iter(self._until))]

    def clear(self) -> None:
        with self._lock:
            self._until.clear()


_refusals = _Refusals()


def forget_refusals() -> None:
    """Forget the refusals remembered in process (tests: as if on another instance)."""
    _refusals.clear()
