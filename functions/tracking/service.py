"""Tracking subscriptions: create, list, update and delete, owner-scoped. No Flask here.

Every read and write is scoped to the calling consumer: a subscription that does not exist and
one that belongs to someone else give the same NotFound, so ids reveal nothing.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from common.adapters import cursors
from common.adapters.firestore import (
    CONSUMERS,
    RESULTS,
    SUBSCRIPTIONS,
    delete_matching,
    get_db,
    run_transaction,
    where_eq,
)
from common.config import get_settings
from common.errors import FieldError, InvalidRequest, LimitExceeded, NotFound, Unauthorized

INTERVALS = {"daily": timedelta(days=1), "weekly": timedelta(days=7), "realtime": timedelta(0)}
_NOT_FOUND = "No subscription with this id belongs to you."


def create_subscription(consumer_id: str, default_email: str, fields: dict[str, Any]) -> dict:
    """Store a new subscription; at most MAX_SUBSCRIPTIONS_PER_CONSUMER per consumer.

    The consumer record holds the count, checked and moved in the same transaction as the
    insert, so concurrent creations can never pass the limit; they wait in line on the record
    (``run_transaction``'s ``in_line_on``), so all of them are served up to it."""
    from google.cloud.firestore import Increment

    db = get_db()
    now = datetime.now(UTC)
    record = {
        "id": str(uuid.uuid4()),
        "user_id": consumer_id,
        **fields,
        "delivery_email": fields.get("delivery_email") or default_email,
        "active": True,
        "last_sent_at": None,
        "created_at": now,
        "updated_at": now,
        # First digest on the dispatcher's next tick, then one interval after each run.
        "next_run_at": now,
    }
    limit = get_settings().max_subscriptions_per_consumer
    consumer_ref = db.collection(CONSUMERS).document(consumer_id)
    sub_ref = db.collection(SUBSCRIPTIONS).document(record["id"])

    def insert(transaction: Any) -> None:
        snapshot = consumer_ref.get(transaction=transaction)
        consumer = snapshot.to_dict() if snapshot.exists else None
        if consumer is None or consumer.get("status") != "active":
            raise Unauthorized()  # deleted or disabled since its key was cached
        if (consumer.get("subscription_count") or 0) >= limit:
            raise LimitExceeded(
                f"You have the maximum of {limit} subscriptions; delete one to create another."
            )
        transaction.update(consumer_ref, {"subscription_count": Increment(1)})
        transaction.create(sub_ref, record)

    run_transaction(insert, in_line_on=consumer_ref)
    return record


def list_subscriptions(
    consumer_id: str, limit: int, cursor: str | None
) -> tuple[list[dict], int, str | None]:
    """One page, newest first, plus the total and the cursor of the next page."""
    from google.cloud.firestore import Query

    db = get_db()
    owned = db.collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", consumer_id))
    page = owned.order_by("created_at", direction=Query.DESCENDING).order_by(
        "__name__", direction=Query.DESCENDING
    )
    if cursor:
        created_at, sub_id = cursors.decode(cursor)
        page = page.start_after(
            {"created_at": created_at, "__name__": db.collection(SUBSCRIPTIONS).document(sub_id)}
        )
    records = [doc.to_dict() or {} for doc in page.limit(limit + 1).stream()]
    # google-cloud-firestore 2.x annotates count() as returning the class AggregationQuery and
    # its get() as a flat list; they return an instance and one list of results per aggregation.
    total = owned.count().get()[0][0].value  # type: ignore[call-arg, index]
    next_cursor = cursors.encode(records[limit - 1]) if len(records) > limit else None
    return records[:limit], int(total), next_cursor


def update_subscription(consumer_id: str, sub_id: str, changes: dict[str, Any]) -> dict:
    """Change only the supplied fields, keeping "topics or custom_keywords is non-empty"."""
    ref = get_db().collection(SUBSCRIPTIONS).document(sub_id)
    now = datetime.now(UTC)

    def apply(transaction: Any) -> dict:
        current = _owned(ref.get(transaction=transaction), consumer_id)
        merged = {**current, **changes}
        if not merged["topics"] and not merged["custom_keywords"]:
            raise InvalidRequest(
                "A subscription needs at least one topic or custom keyword.",
                errors=[
                    FieldError(name, "Would leave the subscription with no topic or keyword.")
                    for name in ("topics", "custom_keywords")
                    if name in changes
                ],
            )
        updates = {**changes, "updated_at": now}
        if changes.get("frequency", current["frequency"]) != current["frequency"]:
            sooner = now + INTERVALS[changes["frequency"]]
            updates["next_run_at"] = min(current["next_run_at"], sooner)
        transaction.update(ref, updates)
        return {**merged, **updates}

    return run_transaction(apply)


def delete_subscription(consumer_id: str, sub_id: str) -> None:
    """Delete the subscription and every result under it.

    Results go first and the subscription last, so a failure half-way leaves a subscription
    that a repeated DELETE finishes removing, never results without their subscription."""
    from google.cloud.firestore import Increment

    db = get_db()
    ref = db.collection(SUBSCRIPTIONS).document(sub_id)
    _owned(ref.get(), consumer_id)
    delete_results(ref)
    consumer_ref = db.collection(CONSUMERS).document(consumer_id)

    def remove(transaction: Any) -> None:
        _owned(ref.get(transaction=transaction), consumer_id)
        transaction.delete(ref)
        transaction.update(consumer_ref, {"subscription_count": Increment(-1)})

    run_transaction(remove, in_line_on=consumer_ref)
    # A research run that finished between the first sweep and the delete wrote its results
    # under the subscription; once it is gone no run can write any (see tracking.run).
    delete_results(ref)


def delete_results(sub_ref: Any) -> int:
    """Delete every result of a subscription; returns the count."""
    return delete_matching(sub_ref.collection(RESULTS))


def _owned(snapshot: Any, consumer_id: str) -> dict:
    record = snapshot.to_dict() if snapshot.exists else None
    if record is None or record.get("user_id") != consumer_id:
        raise NotFound(_NOT_FOUND)
    return record
