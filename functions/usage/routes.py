"""GET /v1/usage: the caller's metered requests and cost. Free, not metered."""

from __future__ import annotations

from datetime import UTC, datetime

from common.billing import metering
from common.http import Call, Route
from functions.usage.models import Usage, UsageLine, UsageQuery


def get_usage(call: Call[None, UsageQuery]) -> Usage:
    first, last = call.query.period(datetime.now(UTC).date())
    lines, total = metering.summary(call.principal.consumer_id, first, last)
    return Usage(
        from_=first,
        to=last,
        operations=[UsageLine(**line.as_dict()) for line in lines],
        total=UsageLine(**total.as_dict()),
    )


ROUTES = (
    Route(
        method="GET",
        path="/v1/usage",
        handler=get_usage,
        operation_id="getUsage",
        summary="Your metered requests and cost per operation for a period (default: this month)",
        tag="Usage",
        query=UsageQuery,
        response=Usage,
    ),
)
