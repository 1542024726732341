"""Opaque page cursors of the newest-first lists (subscriptions, the OSINT audit): the last
record's ``created_at`` and id, base64url JSON. A cursor the API did not return is a 400."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import UTC, datetime
from typing import Any

from common.errors import FieldError, InvalidRequest


def encode(record: dict[str, Any]) -> str:
    raw = json.dumps({"t": record["created_at"].isoformat(), "id": record["id"]})
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str) -> tuple[datetime, str]:
    """(created_at, id) of a cursor ``encode`` made; 400 naming ``cursor`` otherwise."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        # Aware and within Firestore's range (years 1..9999 in UTC): a forged "0001-01-01T00:00
        # +01:00" would otherwise fail while the query is built (a 500).
        created_at = datetime.fromisoformat(raw["t"])
        if created_at.tzinfo is None:
            raise ValueError("naive timestamp")
        created_at = created_at.astimezone(UTC)
        record_id = str(uuid.UUID(raw["id"]))
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError, binascii.Error):
        raise InvalidRequest(
            "The cursor is not one this API returned.",
            errors=[FieldError("cursor", "Pass next_cursor from the previous page unchanged.")],
        ) from None
    return created_at, record_id
