"""The per-subject limit: a person may be profiled at most OSINT_SUBJECT_DAILY_LIMIT times per
UTC day, by all consumers together, so that the service cannot be used to watch someone.

One document per (subject, day), keyed by a hash of the subject's short key (the name itself is
not stored here), counted with one atomic ``Increment`` whose result the commit returns: no
read, no transaction, and concurrent requests get distinct counts, so never more than the limit
are admitted. Refused attempts count too (the day is spent anyway). Documents expire two days
later (Firestore TTL on ``expires_at``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.config import get_settings
from common.errors import SubjectRateLimited
from common.firestore import OSINT_SUBJECT_COUNTS, get_db
from common.logging import get_logger
from functions.osint import names

logger = get_logger("ars.osint")


def admit(subject_key: str, now: datetime | None = None) -> int:
    """Count one profile of the subject today; SubjectRateLimited past the limit. Returns the
    count, this request included (0 when the limit is off)."""
    from google.cloud.firestore import Increment

    limit = get_settings().osint_subject_daily_limit
    if limit <= 0:
        return 0
    now = now or datetime.now(UTC)
    day = now.date()
    pseudonym = names.subject_hash(subject_key)
    ref = get_db().collection(OSINT_SUBJECT_COUNTS).document(f"{pseudonym}_{day.isoformat()}")
    midnight = datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC)
    batch = get_db().batch()
    batch.set(ref, {"count": Increment(1), "expires_at": midnight + timedelta(days=1)}, merge=True)
    (result,) = batch.commit()
    value = result.transform_results[0]
    count = int(value.integer_value or value.double_value)
    if count > limit:
        retry = max(1, int((midnight - now).total_seconds()) + 1)
        # The subject by pseudonym only: a name in a log line is personal data.
        logger.warning(
            "osint subject limit reached",
            extra={"subject": pseudonym, "count": count, "limit": limit},
        )
        raise SubjectRateLimited(
            f"This person has been profiled {limit} times today, the most a day allows "
            f"across all users; retry after midnight UTC (in {retry} s).",
            headers={"Retry-After": str(retry)},
        )
    return count
