"""Metering: one append-only usage record per priced request that delivered what it is priced
for (decision 0039), and one in ``usage_unbilled`` per priced request answered without being
billed, so that a customer can reconcile the bill (``GET /v1/usage``: requests billed and
requests answered but not billed, per operation).

The record's id is the request id, so writing the same record twice (a retry inside the
service) is a no-op, and nothing is counted twice; records are never updated, so concurrent
requests never contend. Usage records hold no personal data: consumer id, operation, cost,
time. A metered answer is returned only once its record is stored; if the store fails, the
caller gets 502 and is not charged.
"""

from __future__ import annotations

import calendar
import contextlib
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from common.adapters.firestore import USAGE, USAGE_UNBILLED, field_filter, get_db, where_eq
from common.billing.pricing import format_usd, price_of, prices


def record(
    consumer_id: str,
    operation: str,
    request_id: str,
    *,
    key_id: str | None = None,
    at: datetime | None = None,
) -> bool:
    """Store the usage record of one request; False when it was already stored."""
    from google.api_core.exceptions import AlreadyExists

    try:
        usage_ref(request_id).create(usage_record(consumer_id, operation, key_id=key_id, at=at))
    except AlreadyExists:
        return False
    return True


def record_unbilled(
    consumer_id: str, operation: str, request_id: str, *, key_id: str | None = None
) -> None:
    """Note a priced request answered without being billed (cost 0); once per request."""
    from google.api_core.exceptions import AlreadyExists

    record = {**usage_record(consumer_id, operation, key_id=key_id), "cost_micros": 0}
    with contextlib.suppress(AlreadyExists):
        unbilled_ref(request_id).create(record)


def unbilled_ref(request_id: str) -> Any:
    """Where the note of an unbilled request lives (a job writes it in its own transaction)."""
    return get_db().collection(USAGE_UNBILLED).document(request_id)


def usage_ref(request_id: str) -> Any:
    """Where the usage record of ``request_id`` lives (a job writes it in its own transaction)."""
    return get_db().collection(USAGE).document(request_id)


def usage_record(
    consumer_id: str, operation: str, *, key_id: str | None = None, at: datetime | None = None
) -> dict[str, Any]:
    at = at or datetime.now(UTC)
    return {
        "consumer_id": consumer_id,
        "operation": operation,
        "cost_micros": price_of(operation),
        "at": at,
        "day": at.date().isoformat(),
        "key_id": key_id,
    }


@dataclass(frozen=True)
class Line:
    operation: str
    requests: int
    cost_micros: int
    unbilled: int = 0  # requests answered but not billed

    def as_dict(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "requests": self.requests,
            "cost_micros": self.cost_micros,
            "cost": format_usd(self.cost_micros),
            "unbilled_requests": self.unbilled,
        }


def summary(consumer_id: str, first: date, last: date) -> tuple[list[Line], Line]:
    """Requests and cost per operation, and the total, for days ``first``..``last``.

    One count-and-sum aggregation per priced operation, so the size of a month's usage never
    matters."""

    def period(collection: str) -> Any:
        return (
            get_db()
            .collection(collection)
            .where(filter=where_eq("consumer_id", consumer_id))
            .where(filter=field_filter("day", ">=", first.isoformat()))
            .where(filter=field_filter("day", "<=", last.isoformat()))
        )

    billed, unbilled = period(USAGE), period(USAGE_UNBILLED)
    lines = []
    for operation in prices():
        counted = billed.where(filter=where_eq("operation", operation)).count(alias="requests")
        aggregate = counted.sum("cost_micros", alias="cost")
        values = {r.alias: r.value for r in aggregate.get()[0]}
        free = unbilled.where(filter=where_eq("operation", operation)).count(alias="n").get()
        not_billed = int(free[0][0].value)
        if values["requests"] or not_billed:
            requests, cost = int(values["requests"]), int(values["cost"] or 0)
            lines.append(Line(operation, requests, cost, not_billed))
    total = Line(
        "total",
        sum(x.requests for x in lines),
        sum(x.cost_micros for x in lines),
        sum(x.unbilled for x in lines),
    )
    return lines, total


def daily(consumer_id: str, first: date, last: date) -> list[Line]:
    """Requests and cost of each day ``first``..``last`` (``Line.operation`` is the day,
    YYYY-MM-DD; days without usage included): one count-and-sum aggregation per day, so a
    portal chart of a month costs at most 31 small queries whatever the volume."""
    base = get_db().collection(USAGE).where(filter=where_eq("consumer_id", consumer_id))
    days = []
    day = first
    while day <= last:
        counted = base.where(filter=where_eq("day", day.isoformat())).count(alias="requests")
        aggregate = counted.sum("cost_micros", alias="cost")  # type: ignore[call-arg, arg-type]
        values = {r.alias: r.value for r in aggregate.get()[0]}
        days.append(Line(day.isoformat(), int(values["requests"]), int(values["cost"] or 0)))
        day += timedelta(days=1)
    return days


def month_bounds(month: str | None, today: date) -> tuple[date, date]:
    """First and last day of ``YYYY-MM`` (default: this month, up to today)."""
    if month is None:
        return today.replace(day=1), today
    year, number = (int(part) for part in month.split("-"))
    return date(year, number, 1), date(year, number, calendar.monthrange(year, number)[1])
