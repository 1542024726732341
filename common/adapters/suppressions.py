"""The suppression list: addresses that get no email from this service, whoever asks.

An address lands here when its owner follows the "stop all email to this address" link of any
email, or when SendGrid reports it bounced, dropped, marked as spam or unsubscribed (its Event
Webhook). Entries are keyed by a SHA-256 of the lower-cased address, so the list holds no
address in clear, and there is no API to remove one: no subscription owner can override it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from common.adapters.firestore import RECIPIENTS, SUPPRESSIONS, collection, get_db, locations

BATCH = 400


def address_key(address: str) -> str:
    """The list's key of an address: a SHA-256 of its trimmed, lower-case form."""
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


def ref(address: str) -> Any:
    return collection(SUPPRESSIONS).document(address_key(address))


def is_suppressed(address: str) -> bool:
    """On the list: in the recipients database, or still in the main one before an upgrade's
    ``admin move-restricted`` (``locations``)."""
    if not address:
        return False
    key = address_key(address)
    return any(place.document(key).get().exists for place in locations(SUPPRESSIONS))


def suppress_addresses(reasons: dict[str, str], source: str) -> int:
    """Put addresses on the list (``{address: reason}``); returns how many were written."""
    return suppress_keys({address_key(a): r for a, r in reasons.items()}, source)


def suppress_keys(reasons: dict[str, str], source: str) -> int:
    """Put address keys on the list (``{key: reason}``), in batches; idempotent."""
    db = get_db(RECIPIENTS)
    now = datetime.now(UTC)
    items = list(reasons.items())
    for start in range(0, len(items), BATCH):
        batch = db.batch()
        for key, reason in items[start : start + BATCH]:
            entry = {"reason": reason[:50], "source": source, "at": now}
            batch.set(collection(SUPPRESSIONS).document(key), entry)
        batch.commit()
    return len(items)
