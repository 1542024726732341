"""Models of the usage group."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pydantic import BaseModel, ConfigDict, Field, model_validator

from common.fields import Input, IsoDate

MAX_DAYS = 366


class UsageQuery(Input):
    model_config = ConfigDict(populate_by_name=True)

    from_: IsoDate | None = Field(None, alias="from", description="First day (UTC), YYYY-MM-DD.")
    to: IsoDate | None = Field(None, description="Last day (UTC), YYYY-MM-DD. Default: today.")

    def period(self, today: date) -> tuple[date, date]:
        """The days asked for: ``to`` defaults to today, ``from`` to the first of its month."""
        last = self.to or today
        return self.from_ or last.replace(day=1), last

    @model_validator(mode="after")
    def _ordered(self) -> UsageQuery:
        first, last = self.period(datetime.now(UTC).date())
        if first > last:
            raise ValueError("'from' must not be after 'to' (which defaults to today).")
        if (last - first).days >= MAX_DAYS:
            raise ValueError(f"A period is at most {MAX_DAYS} days.")
        return self


class UsageLine(BaseModel):
    operation: str
    requests: int
    cost_micros: int = Field(description="Integer micro-dollars (1,000,000 = $1).")
    cost: str = Field(description="Formatted, e.g. $0.25.")
    unbilled_requests: int = Field(
        0,
        description="Requests of the operation answered but not billed: they delivered nothing "
        "it is priced for (a search with no result, a run with nothing new, small talk).",
    )


class Usage(BaseModel):
    from_: date = Field(alias="from")
    to: date
    currency: str = "USD"
    operations: list[UsageLine]
    total: UsageLine

    model_config = ConfigDict(populate_by_name=True)
