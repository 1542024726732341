"""Consumers: the spec's "user", owner of API keys and subscriptions.

A consumer has a uuid ``id`` (the ``user_id`` of its subscriptions), its primary email, a
status (``active`` or ``disabled``), a plan, and the identity provider's user id once it is
provisioned through the IdP webhook.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from common.firestore import CONSUMERS, get_db, where_eq

ACTIVE = "active"
DISABLED = "disabled"


def get_consumer(consumer_id: str) -> dict[str, Any] | None:
    snapshot = get_db().collection(CONSUMERS).document(consumer_id).get()
    return snapshot.to_dict() if snapshot.exists else None


def find_by_email(email: str) -> dict[str, Any] | None:
    query = get_db().collection(CONSUMERS).where(filter=where_eq("email_lower", email.lower()))
    docs = list(query.limit(1).stream())
    return docs[0].to_dict() if docs else None


def create_consumer(email: str, *, plan: str = "payg", idp_user_id: str | None = None) -> dict:
    now = datetime.now(UTC)
    record = {
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
    get_db().collection(CONSUMERS).document(record["id"]).create(record)
    return record


def get_or_create_by_email(email: str) -> tuple[dict[str, Any], bool]:
    """The consumer with this email, creating it when missing; the flag says it was created."""
    existing = find_by_email(email)
    if existing is not None:
        return existing, False
    return create_consumer(email), True
