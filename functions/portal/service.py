"""Developer-portal key management for the signed-in consumer. No Flask here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from common.accounts import keys
from common.adapters.firestore import API_KEYS, CONSUMERS, get_db, run_transaction, where_eq
from common.config import get_settings
from common.errors import Conflict, LimitExceeded, NotFound


def list_keys(consumer_id: str) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    return [
        {**record, "status": keys.key_status(record, now)} for record in keys.list_keys(consumer_id)
    ]


def create_key(consumer_id: str, name: str, expires_in_days: int | None) -> dict[str, Any]:
    """Issue a key; at most MAX_ACTIVE_KEYS_PER_CONSUMER active keys per consumer.

    The transaction reads the consumer's keys and writes the consumer record, so two
    concurrent creations are serialised and cannot both pass the limit; they wait in line on
    the record (``run_transaction``'s ``in_line_on``), so all of them are served up to it."""
    db = get_db()
    limit = get_settings().max_active_keys_per_consumer
    consumer_ref = db.collection(CONSUMERS).document(consumer_id)
    owned = db.collection(API_KEYS).where(filter=where_eq("consumer_id", consumer_id))
    issued = keys.build_key(consumer_id, name, expires_in_days)
    now = datetime.now(UTC)

    def insert(transaction: Any) -> None:
        consumer_ref.get(transaction=transaction)
        active = sum(
            keys.key_status(doc.to_dict(), now) == "active" for doc in transaction.get(owned)
        )
        if active >= limit:
            raise LimitExceeded(f"You have {limit} active keys; revoke one to create another.")
        transaction.update(consumer_ref, {"keys_changed_at": now})
        transaction.create(db.collection(API_KEYS).document(issued.key_id), issued.record)

    run_transaction(insert, in_line_on=consumer_ref)
    record = {k: v for k, v in issued.record.items() if k != "key_hash"}
    return {**record, "status": "active", "key": issued.plaintext}


def revoke_key(consumer_id: str, key_id: str) -> dict[str, Any]:
    record = keys.get_key(key_id)
    if record is None or record["consumer_id"] != consumer_id:
        raise NotFound("No key with this id belongs to you.")
    keys.revoke_key(key_id)
    record = keys.get_key(key_id) or record
    record.pop("key_hash", None)
    return {**record, "status": keys.key_status(record, datetime.now(UTC))}


def rotate_key(consumer_id: str, key_id: str, grace_hours: float) -> tuple[dict[str, Any], dict]:
    """A successor of one of the consumer's active keys, within the active-key cap: the new
    key, shown once, and the old key's record, expiring after the grace (decision 0046)."""
    db = get_db()
    limit = get_settings().max_active_keys_per_consumer
    consumer_ref = db.collection(CONSUMERS).document(consumer_id)
    owned = db.collection(API_KEYS).where(filter=where_eq("consumer_id", consumer_id))
    old_ref = db.collection(API_KEYS).document(key_id)
    now = datetime.now(UTC)

    def rotate(transaction: Any) -> tuple[keys.IssuedKey, dict[str, Any]]:
        consumer_ref.get(transaction=transaction)
        current = old_ref.get(transaction=transaction).to_dict()
        if current is None or current["consumer_id"] != consumer_id:
            raise NotFound("No key with this id belongs to you.")
        if keys.key_status(current, now) != "active":
            raise Conflict("Only an active key can be rotated.")
        # The old key stays active through its grace period beside its successor, so the
        # successor counts against the cap like a new key; with no grace it replaces it.
        active = sum(
            keys.key_status(doc.to_dict(), now) == "active" for doc in transaction.get(owned)
        )
        if active + (1 if grace_hours > 0 else 0) > limit:
            raise LimitExceeded(
                f"You have {limit} active keys, counting keys still in a rotation's grace "
                "period; revoke one, or rotate with grace_hours 0, to rotate another."
            )
        issued, change = keys.successor(current, grace_hours, now)
        transaction.update(consumer_ref, {"keys_changed_at": now})
        transaction.create(db.collection(API_KEYS).document(issued.key_id), issued.record)
        if change:
            transaction.update(old_ref, change)
        return issued, {**current, **change}

    issued, previous = run_transaction(rotate, in_line_on=consumer_ref)
    keys.forget_key(key_id)
    previous.pop("key_hash", None)
    record = {k: v for k, v in issued.record.items() if k != "key_hash"}
    return (
        {**record, "status": "active", "key": issued.plaintext},
        {**previous, "status": keys.key_status(previous, now)},
    )


def usage(consumer_id: str, month: str | None) -> dict[str, Any]:
    """The consumer's requests and cost per operation and per day for one month."""
    from common.billing import metering

    today = datetime.now(UTC).date()
    first, last = metering.month_bounds(month, today)
    last = max(first, min(last, today))  # no future days in the chart
    lines, total = metering.summary(consumer_id, first, last)
    days = metering.daily(consumer_id, first, last)
    return {
        "from": first,
        "to": last,
        "operations": [line.as_dict() for line in lines],
        "total": total.as_dict(),
        "days": [{**line.as_dict(), "day": line.operation} for line in days],
    }
