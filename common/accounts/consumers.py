"""Consumers: the spec's "user", owner of API keys and subscriptions.

A consumer has a uuid ``id`` (the ``user_id`` of its subscriptions), its primary email, a
status (``active`` or ``disabled``), a plan, and the identity provider's user id once it is
provisioned through the IdP webhook.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from common.adapters.firestore import CONSUMERS, IDP_USERS, get_db, run_transaction, where_eq
from common.errors import Forbidden, NotProvisioned

ACTIVE = "active"
DISABLED = "disabled"


def get_consumer(consumer_id: str) -> dict[str, Any] | None:
    snapshot = get_db().collection(CONSUMERS).document(consumer_id).get()
    return snapshot.to_dict() if snapshot.exists else None


def find_by_email(email: str) -> dict[str, Any] | None:
    query = get_db().collection(CONSUMERS).where(filter=where_eq("email_lower", email.lower()))
    docs = list(query.limit(1).stream())
    return docs[0].to_dict() if docs else None


def create_consumer(email: str, *, plan: str = "payg") -> dict:
    record = new_consumer_record(email, plan=plan)
    get_db().collection(CONSUMERS).document(record["id"]).create(record)
    return record


def new_consumer_record(email: str, *, plan: str = "payg", idp_user_id: str | None = None) -> dict:
    now = datetime.now(UTC)
    return {
        "id": str(uuid.uuid4()),
        "email": email,
        "email_lower": email.lower(),
        "status": ACTIVE,
        "plan": plan,
        "idp_user_id": idp_user_id,
        "subscription_count": 0,
        "created_at": now,
        "updated_at": now,
    }


def get_or_create_by_email(email: str) -> tuple[dict[str, Any], bool]:
    """The consumer with this email, creating it when missing; the flag says it was created."""
    existing = find_by_email(email)
    if existing is not None:
        return existing, False
    return create_consumer(email), True


@dataclass(frozen=True)
class PortalUser:
    """A consumer signed in to the developer portal."""

    consumer_id: str
    email: str
    plan: str = "payg"
    rate_limit: tuple[int, int] | None = None  # the consumer's own (requests, window_s)
    key_id: str | None = None


def portal_principal(idp_user_id: str) -> PortalUser:
    """The active consumer an IdP user maps to; 403 when there is none."""
    db = get_db()
    link = db.collection(IDP_USERS).document(_link_id(idp_user_id)).get()
    consumer_id = link.get("consumer_id") if link.exists else None  # None: a tombstone
    consumer = get_consumer(consumer_id) if consumer_id else None
    if consumer is None or link.get("deleted"):
        raise NotProvisioned(
            "This sign-in has no API account yet; it is created when the identity provider "
            "reports the user with a verified primary email address. Verify your primary "
            "email address with the sign-in provider and try again in a minute, or contact "
            "support."
        )
    if consumer.get("status") != ACTIVE:
        raise Forbidden("This account is disabled.")
    own_limit = consumer.get("rate_limit")
    return PortalUser(
        consumer_id=consumer["id"],
        email=consumer["email"],
        plan=consumer.get("plan", "payg"),
        rate_limit=tuple(own_limit) if own_limit else None,
    )


def _link_id(idp_user_id: str) -> str:
    """A document id for an IdP user id (any string, hashed to a safe, fixed-size id)."""
    return hashlib.sha256(idp_user_id.encode()).hexdigest()


@dataclass(frozen=True)
class IdpUser:
    idp_user_id: str
    email: str | None  # None: no verified primary address usable here (kept as it was)
    name: str
    disabled: bool
    updated_at_ms: int


def upsert_from_idp(user: IdpUser) -> str:
    """Create or update the consumer of an IdP user; returns what happened.

    An update older than the last one applied is ignored, and a deleted user is never brought
    back. A ``user.updated`` that arrives before its ``user.created`` creates the consumer.
    Without a usable email address a known user's other changes (a ban) still apply, and an
    unknown user is not created (a later event with an address creates it)."""
    db = get_db()
    link_ref = db.collection(IDP_USERS).document(_link_id(user.idp_user_id))
    now = datetime.now(UTC)
    profile: dict[str, Any] = {
        "name": user.name,
        "status": DISABLED if user.disabled else ACTIVE,
        "updated_at": now,
    }
    if user.email is not None:
        profile.update(email=user.email, email_lower=user.email.lower())

    def apply(transaction: Any) -> str:
        link = link_ref.get(transaction=transaction)
        if link.exists:
            if link.get("deleted"):
                return "ignored: deleted"
            if link.get("idp_updated_at") >= user.updated_at_ms:
                return "ignored: stale"
            consumer_ref = db.collection(CONSUMERS).document(link.get("consumer_id"))
            transaction.update(consumer_ref, profile)
            transaction.update(link_ref, {"idp_updated_at": user.updated_at_ms})
            return "updated" if user.email is not None else "updated: email kept"
        if user.email is None:
            return "ignored: no usable verified primary email address"
        record = new_consumer_record(user.email, idp_user_id=user.idp_user_id)
        record.update(profile)
        transaction.create(db.collection(CONSUMERS).document(record["id"]), record)
        transaction.create(
            link_ref,
            {
                "consumer_id": record["id"],
                "deleted": False,
                "idp_user_id": user.idp_user_id,
                "idp_updated_at": user.updated_at_ms,
            },
        )
        return "created"

    return run_transaction(apply)


def delete_from_idp(idp_user_id: str) -> str | None:
    """Mark the IdP user deleted (for good) and disable its consumer, erasing its email and
    name; returns the consumer id whose data must now be erased, if there is one."""
    db = get_db()
    link_ref = db.collection(IDP_USERS).document(_link_id(idp_user_id))
    now = datetime.now(UTC)

    def apply(transaction: Any) -> str | None:
        link = link_ref.get(transaction=transaction)
        if not link.exists:  # deleted before we heard of it: a tombstone stops a late create
            tombstone = {"consumer_id": None, "deleted": True, "idp_user_id": idp_user_id}
            transaction.create(link_ref, {**tombstone, "idp_updated_at": 0})
            return None
        consumer_id = link.get("consumer_id")
        if consumer_id is None:  # a tombstone: deleted again, still nothing to erase
            return None
        transaction.update(link_ref, {"deleted": True})
        transaction.update(
            db.collection(CONSUMERS).document(consumer_id),
            {
                "status": DISABLED,
                "email": "",
                "email_lower": "",
                "name": "",
                "deleted_at": now,
                "updated_at": now,
            },
        )
        return consumer_id

    return run_transaction(apply)
