"""Idempotency-Key: a retried POST or PATCH is executed once and its first answer replayed.

Stripe's semantics, per consumer (decision record 0017). Only requests that carry the header
pay for it; ``common.http`` calls :func:`key_from` and, when a key is present, :func:`begin`
around the handler:

- :func:`begin` reserves the key with a Firestore ``create()`` (it fails if the key exists, so
  there is no transaction on the hot path). A key that exists answers, depending on its record:
  the stored answer (:class:`Replay`), 422 ``idempotency_key_reused`` (another request, or a
  streamed answer, which is never replayed), 409 ``idempotency_key_in_use`` (still running), or
  is taken over (expired, released, or abandoned by a crashed instance).
- :meth:`Reservation.complete` stores a 2xx answer; :meth:`Reservation.release` frees the key
  after any error answer, so a retry runs again (errors change nothing and are not billed).

The usage record of a keyed request is named by the key and its 24-hour generation, so a
request run again with the same key (after a release or a crash) is still billed once.
"""

from __future__ import annotations

import hashlib
import re
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from common import logging as log
from common.adapters.firestore import IDEMPOTENCY_KEYS, get_db, is_backend_error
from common.errors import (
    FieldError,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidRequest,
)

if TYPE_CHECKING:
    from common.http.routes import HeaderMap

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
METHODS = frozenset({"POST", "PATCH"})
TTL = timedelta(hours=24)  # a key is remembered this long after its first use
# An in-progress key whose request has not finished by then was abandoned (its instance died):
# longer than any function's timeout (at most 540 s, terraform/functions.tf).
LOCK = timedelta(minutes=10)
# A Firestore document holds at most 1 MiB; a larger answer is kept as "not replayable".
MAX_STORED_BODY = 900_000
# The answer's headers a replay repeats, besides those the handler set itself.
REPLAYED_HEADERS = ("Content-Type", "Location")
MAX_LENGTH = 255
# 1..255 printable ASCII characters; HTTP trims spaces at the ends of a header value.
PATTERN = r"^[!-~](?:[ -~]{0,253}[!-~])?$"
_KEY = re.compile(PATTERN)

IN_PROGRESS, DONE, RELEASED = "in_progress", "done", "released"

logger = log.get_logger("ars.idempotency")


def applies(method: str, consumer: bool) -> bool:
    """True for the operations that honour the header: POST and PATCH by a consumer (with an
    API key, or signed in to the developer portal: creating a key is a create like any other)."""
    return consumer and method in METHODS


def key_from(headers: HeaderMap) -> str | None:
    """The request's Idempotency-Key, None without one; 400 naming the header if malformed."""
    value = headers.get(HEADER)
    if value is None:
        return None
    if not _KEY.match(value):
        message = f"Must be 1 to {MAX_LENGTH} printable ASCII characters."
        raise InvalidRequest(
            f"Invalid {HEADER} header: {message}", errors=[FieldError(HEADER, message)]
        )
    return value


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    """SHA-256 of what makes two requests the same: method, path, query string and body."""
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), query, body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def kept_headers(headers: HeaderMap) -> dict[str, str]:
    """The headers of an answer that a replay repeats (the handler's own are added to them)."""
    return {name: headers[name] for name in REPLAYED_HEADERS if name in headers}


def document_id(consumer_id: str, key: str) -> str:
    """Keys are scoped per consumer: another consumer's identical key is another document."""
    return hashlib.sha256(f"{consumer_id}\n{key}".encode()).hexdigest()


@dataclass(frozen=True)
class Replay:
    """The stored first answer, to be sent again with ``Idempotent-Replayed: true``."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Reservation:
    """A key this request holds while it runs; settled once, by complete() or release()."""

    ref: Any
    update_time: Any  # of our write: later writes are conditional on it (never clobber a taker)
    request_id: str  # the usage record's id: one per key and generation
    settled: bool = field(default=False)

    def complete(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """Store a 2xx answer for replays. A failure is logged: the answer still goes out, and
        the key stays reserved until the lock lapses."""
        stored = zlib.compress(body)
        replayable = len(stored) <= MAX_STORED_BODY
        response = {"status": status, "headers": headers, "body": stored} if replayable else None
        self._settle(
            "answer not stored",
            {"state": DONE, "replayable": replayable, "response": response},
        )

    def complete_stream(self) -> None:
        """A streamed answer ran to its end: the key is used, and the stream is not replayed."""
        self._settle("stream end not stored", {"state": DONE, "replayable": False})

    def release(self) -> None:
        """Free the key after an error answer (no-op once settled): a retry runs again."""
        self._settle("key not released", {"state": RELEASED, "response": None})

    def _settle(self, failure: str, fields: dict[str, Any]) -> None:
        if self.settled:
            return
        self.settled = True
        db = get_db()
        try:
            self.ref.update(
                {**fields, "settled_at": datetime.now(UTC)},
                option=db.write_option(last_update_time=self.update_time),
            )
        except Exception as exc:
            if not is_backend_error(exc):
                raise
            # FailedPrecondition: another request took the key over after our lock lapsed.
            logger.warning("idempotency key: %s", failure, extra={"error": type(exc).__name__})


def begin(
    consumer_id: str, key: str, request_hash: str, *, now: datetime | None = None
) -> Reservation | Replay:
    """Reserve ``key`` for this request, or answer from its record (see the module's doc)."""
    from google.api_core.exceptions import AlreadyExists, FailedPrecondition, NotFound

    now = now or datetime.now(UTC)
    db = get_db()
    doc_id = document_id(consumer_id, key)
    ref = db.collection(IDEMPOTENCY_KEYS).document(doc_id)
    for _ in range(3):  # another request may release or take the key between our two reads
        generation = uuid.uuid4().hex
        try:
            written = ref.create(_record(consumer_id, request_hash, generation, now))
            return Reservation(ref, written.update_time, _request_id(doc_id, generation))
        except AlreadyExists:
            pass
        snapshot = ref.get()
        if not snapshot.exists:
            continue
        stored = snapshot.to_dict() or {}
        expired = stored["expires_at"] <= now
        if not expired:
            generation = stored["generation"]
            if stored["state"] != RELEASED and stored["request_hash"] != request_hash:
                raise IdempotencyKeyReused()
            if stored["state"] == IN_PROGRESS and stored["locked_until"] > now:
                raise IdempotencyKeyInUse()
            if stored["state"] == DONE:
                return _replay(stored)
        # Free: expired (new generation, a new 24 h), released, or abandoned mid-request.
        record = _record(consumer_id, request_hash, generation, now)
        if not expired:
            record["created_at"] = stored["created_at"]
            record["expires_at"] = stored["expires_at"]
        try:
            written = ref.update(
                record, option=db.write_option(last_update_time=snapshot.update_time)
            )
        except (FailedPrecondition, NotFound):
            continue  # someone else took it first: look again
        return Reservation(ref, written.update_time, _request_id(doc_id, generation))
    raise IdempotencyKeyInUse()


def _record(consumer_id: str, request_hash: str, generation: str, now: datetime) -> dict:
    return {
        "consumer_id": consumer_id,
        "request_hash": request_hash,
        "generation": generation,
        "state": IN_PROGRESS,
        "replayable": False,
        "response": None,
        "created_at": now,
        "expires_at": now + TTL,  # Firestore's TTL policy deletes the record some time after
        "locked_until": now + LOCK,
    }


def _request_id(doc_id: str, generation: str) -> str:
    return f"idem-{doc_id}-{generation}"


def _replay(stored: dict[str, Any]) -> Replay:
    response = stored.get("response")
    if not stored.get("replayable") or not response:
        raise IdempotencyKeyReused(
            "The request with this Idempotency-Key has completed, and its answer (a stream) is "
            "not replayed. Send a new key to run the request again."
        )
    logger.info("idempotent replay", extra={"status": response["status"]})
    return Replay(response["status"], dict(response["headers"]), zlib.decompress(response["body"]))
