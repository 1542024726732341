"""The OSINT audit log: every profile request -- who asked, about whom, when, the goal they
stated, which sources the report cites, how many claims were kept and dropped -- including the
refused ones. A consumer reads its own entries (``GET /v1/osint/audit``); operators read any
(``python -m admin osint-audit``).

An entry is written before the stream starts (``outcome: started``) and completed when it ends
(``completed``, ``failed``, or ``abandoned`` when the client went away), so a request that
crashes half-way still left its trace. Entries expire after OSINT_AUDIT_RETENTION_DAYS
(Firestore TTL on ``expires_at``); they are not erased when the consumer's account is deleted
(decision 0029): the log exists for the people profiled, not for the consumer.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from common.adapters import cursors
from common.adapters.firestore import OSINT, OSINT_AUDIT, collection, get_db, where_eq
from common.config import get_settings

MAX_SOURCES = 100  # URLs kept per entry


def start(
    *,
    consumer_id: str,
    profile: str,
    subject: dict[str, str],
    subject_key: str,
    goal: str | None,
    channel: str,
    request_id: str,
    outcome: str = "started",
) -> str:
    """Record a request; returns the entry's id. ``outcome`` other than ``started`` records a
    refusal, which is final."""
    now = datetime.now(UTC)
    entry_id = str(uuid.uuid4())
    retention = timedelta(days=get_settings().osint_audit_retention_days)
    collection(OSINT_AUDIT).document(entry_id).set(
        {
            "id": entry_id,
            "consumer_id": consumer_id,
            "profile": profile,
            "channel": channel,
            "subject": subject,
            "subject_key": subject_key,
            "subject_tokens": subject_key.split(),
            "report_goal": goal,
            "outcome": outcome,
            "created_at": now,
            "finished_at": None if outcome == "started" else now,
            "sources_used": [],
            "claims_kept": 0,
            "claims_dropped": 0,
            "sources_left_out": 0,
            "request_id": request_id,
            "expires_at": now + retention,
        }
    )
    return entry_id


def finish(
    entry_id: str,
    outcome: str,
    *,
    sources_used: list[str],
    claims_kept: int,
    claims_dropped: int,
    sources_left_out: int,
) -> None:
    collection(OSINT_AUDIT).document(entry_id).update(
        {
            "outcome": outcome,
            "finished_at": datetime.now(UTC),
            "sources_used": list(dict.fromkeys(sources_used))[:MAX_SOURCES],
            "claims_kept": claims_kept,
            "claims_dropped": claims_dropped,
            "sources_left_out": sources_left_out,
        }
    )


def list_for_consumer(
    consumer_id: str, limit: int, cursor: str | None
) -> tuple[list[dict[str, Any]], int, str | None]:
    """One page of the consumer's entries, newest first, the total and the next cursor."""
    from google.cloud.firestore import Query

    db = get_db(OSINT)
    owned = db.collection(OSINT_AUDIT).where(filter=where_eq("consumer_id", consumer_id))
    page = owned.order_by("created_at", direction=Query.DESCENDING).order_by(
        "__name__", direction=Query.DESCENDING
    )
    if cursor:
        created_at, entry_id = cursors.decode(cursor)
        page = page.start_after(
            {"created_at": created_at, "__name__": db.collection(OSINT_AUDIT).document(entry_id)}
        )
    records = [doc.to_dict() or {} for doc in page.limit(limit + 1).stream()]
    total = owned.count().get()[0][0].value  # type: ignore[call-arg, index]
    next_cursor = cursors.encode(records[limit - 1]) if len(records) > limit else None
    return records[:limit], int(total), next_cursor


MAX_SUBJECT_SCAN = 5000  # entries sharing a name token, read to find one person's


def search(
    *,
    consumer_id: str | None = None,
    subject_key: str | None = None,
    person: bool = True,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Entries for operators, newest first: all, one consumer's, or those about one subject.
    A person is found under any writing of their name (``names.same_person``: "Dana J.
    Whitfield" finds "Dana Whitfield"): the entries sharing a token of the name are read and
    compared in memory (no composite index needed)."""
    from google.cloud.firestore import Query

    from common.adapters.firestore import field_filter
    from common.language import names

    query: Any = collection(OSINT_AUDIT)
    if subject_key and person:
        asked = names.canonical(subject_key)
        query = query.where(
            filter=field_filter("subject_tokens", "array_contains_any", sorted(set(asked))[:30])
        )
        found = [
            record
            for record in (doc.to_dict() or {} for doc in query.limit(MAX_SUBJECT_SCAN).stream())
            if record.get("profile") == "person"
            and (not consumer_id or record.get("consumer_id") == consumer_id)
            and names.same_person(asked, tuple(record.get("subject_tokens") or ()))
        ]
        found.sort(key=lambda r: r["created_at"], reverse=True)
        return found[:limit]
    if consumer_id:
        query = query.where(filter=where_eq("consumer_id", consumer_id))
    if subject_key:
        query = query.where(filter=where_eq("subject_key", subject_key))
    query = query.order_by("created_at", direction=Query.DESCENDING).limit(limit)
    return [doc.to_dict() or {} for doc in query.stream()]


def view(record: dict[str, Any]) -> dict[str, Any]:
    """An entry as the API shows it (models.AuditEntry)."""
    return {
        "id": record["id"],
        "profile": record["profile"],
        "subject": record.get("subject") or {},
        "reportGoal": record.get("report_goal"),
        "channel": record.get("channel", "api"),
        "outcome": record["outcome"],
        "createdAt": record["created_at"],
        "finishedAt": record.get("finished_at"),
        "sourcesUsed": record.get("sources_used") or [],
        "claimsKept": record.get("claims_kept", 0),
        "claimsDropped": record.get("claims_dropped", 0),
        "sourcesLeftOut": record.get("sources_left_out", 0),
    }
