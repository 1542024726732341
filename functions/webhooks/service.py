"""Consumer provisioning from identity-provider events. No Flask here.

Each delivery is processed at most once in effect: its id is remembered (with an expiry) after
the effects are applied, and every effect is idempotent, so a retry after a failure half-way
finishes the work and a duplicate delivery changes nothing.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ValidationError

from common import keys
from common.config import get_settings
from common.consumers import IdpUser, delete_from_idp, upsert_from_idp
from common.errors import FieldError, InvalidRequest
from common.fields import Email
from common.firestore import (
    CONSUMERS,
    MEMORIES,
    SUBSCRIPTIONS,
    TASKS,
    WEBHOOK_RECEIPTS,
    delete_matching,
    get_db,
    where_eq,
)
from common.logging import get_logger
from functions.webhooks.models import DeletedUserData, IdpEvent, UserData

logger = get_logger("ars.webhooks")


def handle(delivery_id: str, event: IdpEvent) -> str:
    """Apply one verified event; returns what happened (for the log)."""
    receipt = get_db().collection(WEBHOOK_RECEIPTS).document(_receipt_id(delivery_id))
    if receipt.get().exists:
        return "duplicate"
    if event.type in ("user.created", "user.updated"):
        outcome = upsert_from_idp(_idp_user(_parse(UserData, event)))
    elif event.type == "user.deleted":
        outcome = erase(_parse(DeletedUserData, event).id)
    else:
        outcome = "ignored: unknown type"
    now = datetime.now(UTC)
    ttl = timedelta(hours=get_settings().webhook_receipt_ttl_hours)
    receipt.set({"type": event.type, "received_at": now, "expires_at": now + ttl})
    logger.info("idp event", extra={"eventType": event.type, "outcome": outcome})
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
    # Task records hold legal requests and guides, and the runs' item lists.
    delete_matching(db.collection(TASKS).where(filter=where_eq("owner_id", consumer_id)))
    db.collection(CONSUMERS).document(consumer_id).update({"subscription_count": 0})
    return "erased"


def _parse(model: type[BaseModel], event: IdpEvent) -> BaseModel:
    try:
        return model.model_validate(event.data)
    except ValidationError as exc:
        errors = [
            FieldError("data." + ".".join(map(str, e["loc"])), e["msg"]) for e in exc.errors()
        ]
        raise InvalidRequest(f"Not a valid {event.type} event.", errors=errors) from None


def _idp_user(data: UserData) -> IdpUser:
    from pydantic import TypeAdapter

    email = data.primary_email()
    try:
        TypeAdapter(Email).validate_python(email)
    except ValidationError:
        raise InvalidRequest(
            "The user's primary email address is not usable.",
            errors=[FieldError("data.email_addresses", "Not a deliverable email address.")],
        ) from None
    name = " ".join(filter(None, (data.first_name, data.last_name)))
    return IdpUser(
        idp_user_id=data.id,
        email=email,
        name=name,
        disabled=data.banned or data.locked,
        updated_at_ms=data.updated_at,
    )


def _receipt_id(delivery_id: str) -> str:
    return hashlib.sha256(delivery_id.encode()).hexdigest()
