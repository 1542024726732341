"""Per-address limit of failed authentication, in process, before any Firestore read.

A well-formed forged API key costs one Firestore read per distinct key and ``KEY_CACHE_TTL_S``
(decision 0003): a client inventing keys could make every request a read. Each client address
therefore has a token bucket of ``AUTH_FAILURES_PER_ADDRESS`` failures, refilled over
``AUTH_FAILURE_WINDOW_S``. Every 401 of a keyed or portal route (no key, a malformed, unknown,
revoked or expired key, a bad ID token) takes one token. An address whose bucket is empty is
*closed*: its requests are answered 429 with ``Retry-After`` before authentication reads
anything, except those with a key this instance has already verified (the key cache, no read),
so a legitimate client sharing the address keeps working with its warm key. A flood of fake
keys from one address therefore costs at most ``AUTH_FAILURES_PER_ADDRESS`` reads at once, then
one per ``AUTH_FAILURE_WINDOW_S / AUTH_FAILURES_PER_ADDRESS`` seconds, per instance.

The address is ``REMOTE_ADDR``, or with ``CLIENT_ADDRESS_HOPS=n`` the n-th entry from the right
of ``X-Forwarded-For`` (entries further left are whatever the client sent; the proxies we
trust append theirs). The map is bounded (``AUTH_FAILURE_MAX_ADDRESSES``): past it, full
buckets go first, then the oldest. ``AUTH_FAILURES_PER_ADDRESS=0`` turns the limiter off.
Decision 0034.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import Any

from common.config import get_settings
from common.errors import RateLimited


class TooManyFailures(RateLimited):
    """This address failed authentication too often; nothing was read to answer it."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "Too many failed authentication attempts from this address; retry after "
            f"{retry_after} s with a valid key.",
            headers={"Retry-After": str(retry_after)},
        )


class _Buckets:
    """address -> (tokens, time of the last update). Thread-safe, bounded."""

    def __init__(self) -> None:
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def _tokens(self, address: str, now: float, capacity: int, rate: float) -> float:
        tokens, at = self._state.get(address, (float(capacity), now))
        return min(float(capacity), tokens + (now - at) * rate)

    def closed_for(self, address: str, now: float, capacity: int, rate: float) -> int | None:
        """Seconds until the address may fail once more, or None if it may now."""
        with self._lock:
            if address not in self._state:
                return None
            tokens = self._tokens(address, now, capacity, rate)
            if tokens >= 1.0:
                return None
            return max(1, math.ceil((1.0 - tokens) / rate))

    def take(self, address: str, now: float, capacity: int, rate: float, bound: int) -> None:
        with self._lock:
            tokens = self._tokens(address, now, capacity, rate)
            self._state[address] = (max(0.0, tokens - 1.0), now)
            self._state.move_to_end(address)
            if len(self._state) > bound:
                for full in [a for a in self._state if self._tokens(a, now, capacity, rate) >= 1]:
                    if len(self._state) <= bound:
                        break
                    del self._state[full]
                while len(self._state) > bound:
                    self._state.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._state.clear()


_buckets = _Buckets()


def reset() -> None:
    """Forget every address (tests)."""
    _buckets.clear()


def client_address(remote_addr: str | None, headers: Any) -> str:
    """The client's address; ``headers`` is werkzeug's Headers or a plain mapping (tests)."""
    hops = get_settings().client_address_hops
    if hops > 0:
        forwarded = headers.get("X-Forwarded-For") or ""
        chain = [part.strip() for part in forwarded.split(",")]
        chain = [part for part in chain if part]
        if len(chain) >= hops:
            return chain[-hops]
    return remote_addr or "unknown"


def _policy() -> tuple[int, float]:
    settings = get_settings()
    capacity = settings.auth_failures_per_address
    return capacity, capacity / settings.auth_failure_window_s if capacity else 0.0


def closed_for(address: str, now: float | None = None) -> int | None:
    """Seconds the address must wait, if it used up its failures; else None."""
    capacity, rate = _policy()
    if not capacity:
        return None
    return _buckets.closed_for(address, time.monotonic() if now is None else now, capacity, rate)


def failed(address: str, now: float | None = None) -> None:
    """The address failed authentication once more."""
    capacity, rate = _policy()
    if capacity:
        bound = get_settings().auth_failure_max_addresses
        _buckets.take(address, time.monotonic() if now is None else now, capacity, rate, bound)
