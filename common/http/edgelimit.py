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
trust append theirs; API Gateway's ESPv2 trusts two hops by default, as Terraform sets). An
IPv6 client is counted by its /64, the prefix one subscriber gets: it could otherwise fail
from 2^64 addresses. The map is bounded (``AUTH_FAILURE_MAX_ADDRESSES``): past it, the
addresses that still had failures left go first, the longest unseen first, then the closed
ones by the same order; each step is O(1) (it was a scan of the map under the lock, 9 ms per
failure at 10,000 addresses). ``AUTH_FAILURES_PER_ADDRESS=0`` turns the limiter off.
Decisions 0034 and 0050.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from typing import Any

from common.config import get_settings


class _Buckets:
    """address -> (tokens, time of the last update), in two maps by what the last failure left:
    ``_open`` (failures left) and ``_closed`` (none), each in order of last failure.
    Thread-safe, bounded, O(1) per step."""

    def __init__(self) -> None:
        self._open: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._closed: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._open) + len(self._closed)

    def _get(self, address: str) -> tuple[float, float] | None:
        return self._closed.get(address) or self._open.get(address)

    @staticmethod
    def _tokens(state: tuple[float, float], now: float, capacity: int, rate: float) -> float:
        tokens, at = state
        return min(float(capacity), tokens + (now - at) * rate)

    def closed_for(self, address: str, now: float, capacity: int, rate: float) -> int | None:
        """Seconds until the address may fail once more, or None if it may now."""
        with self._lock:
            state = self._get(address)
            if state is None:
                return None
            tokens = self._tokens(state, now, capacity, rate)
            if tokens >= 1.0:
                return None
            return max(1, math.ceil((1.0 - tokens) / rate))

    def take(self, address: str, now: float, capacity: int, rate: float, bound: int) -> None:
        with self._lock:
            state = self._closed.pop(address, None) or self._open.pop(address, None)
            tokens = float(capacity) if state is None else self._tokens(state, now, capacity, rate)
            left = max(0.0, tokens - 1.0)
            (self._open if left >= 1.0 else self._closed)[address] = (left, now)
            while len(self) > bound:
                (self._open or self._closed).popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._open.clear()
            self._closed.clear()


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


def _counted(address: str) -> str:
    """What the limiter counts: an IPv6 address's /64 (an IPv4-mapped one is the IPv4
    address), any other address as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


def _policy() -> tuple[int, float]:
    settings = get_settings()
    capacity = settings.auth_failures_per_address
    return capacity, capacity / settings.auth_failure_window_s if capacity else 0.0


def closed_for(address: str, now: float | None = None) -> int | None:
    """Seconds the address must wait, if it used up its failures; else None."""
    capacity, rate = _policy()
    if not capacity:
        return None
    at = time.monotonic() if now is None else now
    return _buckets.closed_for(_counted(address), at, capacity, rate)


def failed(address: str, now: float | None = None) -> None:
    """The address failed authentication once more."""
    capacity, rate = _policy()
    if capacity:
        bound = get_settings().auth_failure_max_addresses
        at = time.monotonic() if now is None else now
        _buckets.take(_counted(address), at, capacity, rate, bound)
