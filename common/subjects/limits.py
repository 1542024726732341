"""The per-subject limit: a person may be profiled at most OSINT_SUBJECT_DAILY_LIMIT times per
UTC day, by all consumers together, so that the service cannot be used to watch someone.

What counts is a profile that was delivered, not a request: ``admit`` reserves a place for the
request (refusing it past the limit) and ``Reservation.release`` gives the place back unless the
profile was delivered to the client, as the request pipeline settles it (its first finding
written to the client, decisions 0037 and 0066) -- the client went away before the findings,
the profile failed, or it found nothing about the person -- so abandoned requests cannot use up
a person's day and block legitimate research at no cost. A refused request takes no place
either. A process that dies between the admission and the settlement keeps its place: the
error is on the side of the person profiled.

A name is counted under every pair of its canonical tokens (``names.pair_keys``): "Dana
Whitfield", "Dana J. Whitfield" and "Dana Whitfield Said" all count against the pair "dana
whitfield", so adding a token to the name does not open a new day's allowance. One document per
(pair, day), keyed by a hash of the pair (the name itself is not stored here), counted with
atomic ``Increment``s in one batch whose results the commit returns: no read, no transaction,
and concurrent requests get distinct counts, so never more than the limit are in flight or
delivered. Documents expire two days later (Firestore TTL on ``expires_at``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.adapters.firestore import (
    OSINT_SUBJECT_COUNTS,
    CounterPlaces,
    add_to_counters,
    collection,
)
from common.config import get_settings
from common.errors import SubjectRateLimited
from common.language import names
from common.logging import get_logger

logger = get_logger("ars.osint")


Reservation = CounterPlaces  # a place taken in the subject's day; ``release`` gives it back


def admit(name: str, now: datetime | None = None) -> Reservation:
    """Reserve one profile of the person today; SubjectRateLimited past the limit (the place
    is given back at once). An empty reservation when the limit is off."""
    limit = get_settings().osint_subject_daily_limit
    if limit <= 0:
        return Reservation()
    now = now or datetime.now(UTC)
    day = now.date()
    midnight = datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC)
    counters = collection(OSINT_SUBJECT_COUNTS)
    pseudonyms = [names.subject_hash(key) for key in names.pair_keys(name)]
    refs = [counters.document(f"{p}_{day.isoformat()}") for p in pseudonyms]
    expires_at = midnight + timedelta(days=1)
    counts = add_to_counters(refs, 1, expires_at)
    if max(counts, default=0) > limit:
        add_to_counters(refs, -1, expires_at)
        retry = max(1, int((midnight - now).total_seconds()) + 1)
        # The subject by pseudonym only: a name in a log line is personal data.
        logger.warning(
            "osint subject limit reached",
            extra={"subject": pseudonyms[0] if pseudonyms else None, "limit": limit},
        )
        raise SubjectRateLimited(
            f"This person has been profiled {limit} times today, the most a day allows "
            f"across all users; retry after midnight UTC (in {retry} s).",
            headers={"Retry-After": str(retry)},
        )
    return Reservation(refs, expires_at)
