"""API keys: format, checksum, hashing at rest, issuing, revoking and verification.

Format: ``ars_live_`` (or ``ars_test_``) + 32 random base62 characters + a 6-character base62
CRC32 checksum of the random part. A malformed key or a wrong checksum is rejected without a
database read, and secret scanners can recognise a leaked key by its prefix and checksum.
Only the SHA-256 hash of a key is stored; the plaintext exists once, in the issuing response.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
import uuid
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from common.adapters.firestore import API_KEYS, get_db, where_eq
from common.config import get_settings
from common.logging import get_logger

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_LEN = 32
CHECKSUM_LEN = 6
logger = get_logger("ars.keys")
KEY_PATTERN = re.compile(r"^ars_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$")


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rem = divmod(number, 62)
        chars.append(BASE62[rem])
    return "".join(reversed(chars))


def checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode("ascii")), CHECKSUM_LEN)


def generate_key(environment: str = "live") -> str:
    random_part = "".join(secrets.choice(BASE62) for _ in range(RANDOM_LEN))
    return f"ars_{environment}_{random_part}{checksum(random_part)}"


def is_well_formed(key: str) -> bool:
    match = KEY_PATTERN.match(key)
    return match is not None and hmac.compare_digest(checksum(match.group(2)), match.group(3))


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def mask(key: str) -> str:
    """What listings show: the prefix and the last four characters."""
    return f"{key[:13]}…{key[-4:]}"


@dataclass(frozen=True)
class Principal:
    """The authenticated caller of a request."""

    consumer_id: str
    key_id: str
    email: str
    plan: str
    expires_at: datetime | None
    last_used_at: datetime | None = None
    rate_limit: tuple[int, int] | None = None  # the consumer's own (requests, window_s)

    def usable_at(self, now: datetime) -> bool:
        return self.expires_at is None or now < self.expires_at


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    plaintext: str
    record: dict[str, Any]


def build_key(
    consumer_id: str, name: str = "default", expires_in_days: int | None = None
) -> IssuedKey:
    """A new key and the record to store for it (nothing is written)."""
    plaintext = generate_key(get_settings().key_environment)
    now = datetime.now(UTC)
    key_id = f"key_{uuid.uuid4().hex[:20]}"
    record = {
        "id": key_id,
        "consumer_id": consumer_id,
        "name": name,
        "key_hash": hash_key(plaintext),
        "masked": mask(plaintext),
        "created_at": now,
        "expires_at": now + timedelta(days=expires_in_days) if expires_in_days else None,
        "revoked_at": None,
        "last_used_at": None,
    }
    return IssuedKey(key_id, plaintext, record)


def issue_key(
    consumer_id: str, name: str = "default", expires_in_days: int | None = None
) -> IssuedKey:
    issued = build_key(consumer_id, name, expires_in_days)
    get_db().collection(API_KEYS).document(issued.key_id).create(issued.record)
    return issued


def get_key(key_id: str) -> dict[str, Any] | None:
    snapshot = get_db().collection(API_KEYS).document(key_id).get()
    return snapshot.to_dict() if snapshot.exists else None


def revoke_key(key_id: str) -> bool:
    """Mark a key revoked; False when there is no such key. Takes effect within the cache TTL."""
    ref = get_db().collection(API_KEYS).document(key_id)
    snapshot = ref.get()
    if not snapshot.exists:
        return False
    if snapshot.get("revoked_at") is None:
        ref.update({"revoked_at": datetime.now(UTC)})
    _cache.forget(lambda principal: principal.key_id == key_id)
    return True


def revoke_all(consumer_id: str) -> int:
    """Revoke every key of a consumer; returns how many were still unrevoked."""
    db = get_db()
    query = db.collection(API_KEYS).where(filter=where_eq("consumer_id", consumer_id))
    now = datetime.now(UTC)
    batch, count = db.batch(), 0
    for doc in query.stream():
        if doc.get("revoked_at") is None:
            batch.update(doc.reference, {"revoked_at": now})
            count += 1
    if count:
        batch.commit()
    _cache.forget(lambda principal: principal.consumer_id == consumer_id)
    return count


def rotate_key(key_id: str, grace_hours: float = 24.0) -> IssuedKey | None:
    """Issue a successor with the same name and owner; the old key expires after the grace
    period (or keeps an earlier expiry). None when there is no usable key with that id. (The
    operator's rotation; the portal's applies the consumer's active-key cap in a transaction,
    functions/portal/service.py.)"""
    old = get_key(key_id)
    now = datetime.now(UTC)
    if old is None or key_status(old, now) != "active":
        return None
    issued, change = successor(old, grace_hours, now)
    get_db().collection(API_KEYS).document(issued.key_id).create(issued.record)
    if change:
        get_db().collection(API_KEYS).document(key_id).update(change)
    forget_key(key_id)
    return issued


def successor(old: dict[str, Any], grace_hours: float, now: datetime) -> tuple[IssuedKey, dict]:
    """An active key's successor (same name and owner) and the change to the old key's record
    (it expires after the grace period, or keeps an earlier expiry: then no change)."""
    issued = build_key(old["consumer_id"], old["name"], None)
    ends = now + timedelta(hours=grace_hours)
    if old["expires_at"] is None or old["expires_at"] > ends:
        return issued, {"expires_at": ends, "rotated_to": issued.key_id}
    return issued, {}


def forget_key(key_id: str) -> None:
    """Drop a key from this process's cache of verified keys (its record changed)."""
    _cache.forget(lambda principal: principal.key_id == key_id)


def key_status(record: dict[str, Any], now: datetime) -> str:
    if record.get("revoked_at") is not None:
        return "revoked"
    return "expired" if _expired(record, now) else "active"


def _expired(record: dict[str, Any], now: datetime) -> bool:
    return record.get("expires_at") is not None and record["expires_at"] <= now


def list_keys(consumer_id: str) -> list[dict[str, Any]]:
    query = get_db().collection(API_KEYS).where(filter=where_eq("consumer_id", consumer_id))
    records = [doc.to_dict() or {} for doc in query.stream()]
    for record in records:
        record.pop("key_hash", None)
    return sorted(records, key=lambda r: r["created_at"], reverse=True)


class _KeyCache:
    """A bounded, thread-safe map from key hash to the verified principal (or None), kept for
    ``KEY_CACHE_TTL_S``. Revocation therefore takes effect within that TTL on other instances."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[float, Principal | None]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key_hash: str, ttl: float) -> tuple[bool, Principal | None]:
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is None or time.monotonic() - entry[0] >= ttl:
                return False, None
            self._entries.move_to_end(key_hash)
            return True, entry[1]

    def put(self, key_hash: str, principal: Principal | None, max_entries: int) -> None:
        with self._lock:
            self._entries[key_hash] = (time.monotonic(), principal)
            self._entries.move_to_end(key_hash)
            while len(self._entries) > max_entries:
                self._entries.popitem(last=False)

    def forget(self, matches: Callable[[Principal], bool]) -> None:
        with self._lock:
            for key_hash, (_, principal) in list(self._entries.items()):
                if principal is not None and matches(principal):
                    del self._entries[key_hash]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


# Valid keys and rejected ones are cached apart, so a flood of forged (well-formed but unknown)
# keys can neither evict valid keys nor cost more than one database read per distinct key and
# TTL; the rejected-key cache is smaller.
_cache = _KeyCache()
_rejected = _KeyCache()
REJECTED_MAX_ENTRIES = 2_000


def clear_cache() -> None:
    _cache.clear()
    _rejected.clear()


def verify(key: str, cached_only: bool = False) -> Principal | None:
    """The principal of a usable key, or None for a malformed, unknown, revoked or expired key
    or one whose consumer is not active. Callers answer every None with the same 401.

    ``cached_only``: only a key this instance verified recently is accepted, without any read
    (an address over its failed-authentication limit, common.http.edgelimit)."""
    if not is_well_formed(key):
        return None
    settings = get_settings()
    key_hash = hash_key(key)
    now = datetime.now(UTC)
    hit, principal = _cache.get(key_hash, settings.key_cache_ttl_s)
    if not hit and cached_only:
        return None
    if not hit:
        hit, principal = _rejected.get(key_hash, settings.key_cache_ttl_s)
    if not hit:
        principal = _load_principal(key_hash, now)
        if principal is None:
            _rejected.put(key_hash, None, REJECTED_MAX_ENTRIES)
        else:
            _cache.put(key_hash, principal, settings.key_cache_max_entries)
    if principal is None or not principal.usable_at(now):
        return None
    _touch_last_used(principal, now, settings.key_last_used_interval_s)
    return principal


_last_used_written: dict[str, datetime] = {}


def _touch_last_used(principal: Principal, now: datetime, interval_s: float) -> None:
    """Record coarse use: at most one write per key per interval (per instance), never on
    every request. A failed write is logged and does not fail the request."""
    last = max(
        filter(None, (principal.last_used_at, _last_used_written.get(principal.key_id))),
        default=None,
    )
    if last is not None and (now - last).total_seconds() < interval_s:
        return
    _last_used_written[principal.key_id] = now
    try:
        get_db().collection(API_KEYS).document(principal.key_id).update({"last_used_at": now})
    except Exception as exc:
        from common.adapters.firestore import is_backend_error

        if not is_backend_error(exc):
            raise
        logger.warning("could not record last_used_at", extra={"keyId": principal.key_id})


def _load_principal(key_hash: str, now: datetime) -> Principal | None:
    from common.accounts.consumers import get_consumer

    query = get_db().collection(API_KEYS).where(filter=where_eq("key_hash", key_hash))
    docs = list(query.limit(1).stream())
    if not docs:
        return None
    record = docs[0].to_dict() or {}
    if not hmac.compare_digest(record["key_hash"], key_hash) or record.get("revoked_at"):
        return None
    consumer = get_consumer(record["consumer_id"])
    if consumer is None or consumer.get("status") != "active":
        return None
    principal = Principal(
        consumer_id=consumer["id"],
        key_id=record["id"],
        email=consumer["email"],
        plan=consumer.get("plan", "payg"),
        expires_at=record.get("expires_at"),
        last_used_at=record.get("last_used_at"),
        rate_limit=tuple(consumer["rate_limit"]) if consumer.get("rate_limit") else None,
    )
    return principal if principal.usable_at(now) else None
