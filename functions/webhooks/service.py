"""Consumer provisioning from identity-provider events. No Flask here.

Each delivery is processed at most once in effect: its id is remembered (with an expiry) after
the effects are applied, and every effect is idempotent, so a retry after a failure half-way
finishes the work and a duplicate delivery changes nothing.

A verified event that can never be used (no usable email address, a ``data`` object of another
shape) is acknowledged, so the provider stops retrying it, and logged as a warning with its
type and the reason -- never the address (decision 0016). Only a failure that a retry can fix
(the database) is an error answer.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from common.accounts import keys
from common.accounts.consumers import IdpUser, delete_from_idp, upsert_from_idp
from common.adapters.firestore import (
    CONSENTS,
    CONSUMERS,
    IDEMPOTENCY_KEYS,
    MEMORIES,
    RECIPIENTS,
    SUBSCRIPTIONS,
    TASKS,
    WEBHOOK_RECEIPTS,
    collection,
    delete_matching,
    get_db,
    where_eq,
)
from common.config import get_settings
from common.fields import Email
from common.logging import get_logger
from functions.webhooks.models import DeletedUserData, IdpEvent, UserData

logger = get_logger("ars.webhooks")
Data = TypeVar("Data", bound=BaseModel)


class Unusable(Exception):
    """A verified event that no retry can make usable; ``fields`` name what is wrong."""

    def __init__(self, reason: str, fields: list[str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fields = fields or []


def handle(delivery_id: str, event: IdpEvent) -> str:
    """Apply one verified event; returns what happened (for the log)."""
    receipt = get_db().collection(WEBHOOK_RECEIPTS).document(_receipt_id(delivery_id))
    if receipt.get().exists:
        return "duplicate"
    extra: dict[str, object] = {"eventType": event.type}
    try:
        if event.type in ("user.created", "user.updated"):
            outcome = upsert_from_idp(_idp_user(_parse(UserData, event)))
        elif event.type == "user.deleted":
            outcome = erase(_parse(DeletedUserData, event).id)
        else:
            outcome = "ignored: unknown type"
    except Unusable as exc:
        outcome = f"ignored: {exc.reason}"
        extra["fields"] = exc.fields
    now = datetime.now(UTC)
    ttl = timedelta(hours=get_settings().webhook_receipt_ttl_hours)
    receipt.set({"type": event.type, "received_at": now, "expires_at": now + ttl})
    unusable = "fields" in extra or "email" in outcome  # all or part of the event was unusable
    log = logger.warning if unusable else logger.info
    log("idp event", extra={**extra, "outcome": outcome, "deliveryId": delivery_id[:100]})
    return outcome


def erase(idp_user_id: str) -> str:
    """user.deleted: disable the consumer, revoke its keys, delete its subscriptions with their
    results, its chat memories and its task records. Usage records stay: they hold no personal
    data."""
    consumer_id = delete_from_idp(idp_user_id)
    if consumer_id is None:
        return "tombstoned"
    from functions.tracking.service import delete_results

    db = get_db()
    keys.revoke_all(consumer_id)
    owned = db.collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", consumer_id))
    refs = [doc.reference for doc in owned.select([]).stream()]
    for ref in refs:
        delete_results(ref)
    delete_matching(owned)
    for ref in refs:  # results a run finished writing before its subscription went
        delete_results(ref)
    delete_matching(db.collection(MEMORIES).where(filter=where_eq("consumer_id", consumer_id)))
    # The third-party addresses it asked to send digests to (the suppression list stays: it is
    # the recipients' choice, keyed by a hash, and holds nothing of the consumer's).
    consents = collection(CONSENTS).where(filter=where_eq("consumer_id", consumer_id))
    delete_matching(consents, database=RECIPIENTS)
    # Stored answers of keyed requests (a subscription's address, a chat reply).
    stored = db.collection(IDEMPOTENCY_KEYS).where(filter=where_eq("consumer_id", consumer_id))
    delete_matching(stored)
    # Task records hold legal requests and guides, and the runs' item lists.
    delete_matching(db.collection(TASKS).where(filter=where_eq("owner_id", consumer_id)))
    db.collection(CONSUMERS).document(consumer_id).update({"subscription_count": 0})
    return "erased"


def _parse(model: type[Data], event: IdpEvent) -> Data:
    try:
        return model.model_validate(event.data)
    except ValidationError as exc:  # where and what kind only: the values may be personal
        fields = [
            ".".join(["data", *map(str, e["loc"])]) + f": {e['type']}" for e in exc.errors()[:10]
        ]
        raise Unusable("invalid data", fields) from None


def _idp_user(data: UserData) -> IdpUser:
    """The user as the service keeps it; ``email`` None when the IdP has no usable address
    (no verified primary one, or one mail cannot be sent to here, e.g. a non-ASCII one)."""
    from pydantic import TypeAdapter

    email = data.primary_email()
    if email is not None:
        try:
            TypeAdapter(Email).validate_python(email)
        except ValidationError:
            email = None
    name = " ".join(filter(None, (data.first_name, data.last_name)))[:200]
    return IdpUser(
        idp_user_id=data.id,
        email=email,
        name=name,
        disabled=data.banned or data.locked,
        updated_at_ms=data.updated_at,
    )


def _receipt_id(delivery_id: str) -> str:
    return hashlib.sha256(delivery_id.encode()).hexdigest()
