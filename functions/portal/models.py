"""Models of the developer-portal key API."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from common.fields import Input, JsonInt
from common.language.safety import NOT_BLANK
from functions.usage.models import Usage


class KeyCreate(Input):
    name: str = Field(min_length=1, max_length=100, pattern=NOT_BLANK)
    expires_in_days: JsonInt | None = Field(None, ge=1, le=365, description="Never, when omitted.")


class KeyPath(Input):
    id: str = Field(pattern=r"^key_[0-9a-f]{20}$", description="Key id (key_...).")


class KeyInfo(BaseModel):
    """What a listing shows of a key: never the key itself, nor its hash."""

    id: str
    name: str
    masked: str = Field(description="Prefix and last four characters.")
    status: Literal["active", "expired", "revoked"]
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class KeyList(BaseModel):
    data: list[KeyInfo]
    total: int


class NewKey(KeyInfo):
    key: str = Field(description="The API key. Shown only in this response: store it now.")


class NewKeyEnvelope(BaseModel):
    data: NewKey


class KeyEnvelope(BaseModel):
    data: KeyInfo


class KeyRotate(Input):
    grace_hours: JsonInt = Field(
        24, ge=0, le=720, description="Hours the old key keeps working (at most 30 days)."
    )


class RotatedKey(BaseModel):
    data: NewKey = Field(description="The successor key, shown only in this response.")
    previous: KeyInfo = Field(description="The old key, now expiring after the grace period.")


FIRST_USAGE_MONTH = "2020-01"  # no usage is older than the service; months before are refused


class PortalUsageQuery(Input):
    month: str | None = Field(
        None,
        pattern=r"^\d{4}-(0[1-9]|1[0-2])$",
        description=f"YYYY-MM from {FIRST_USAGE_MONTH} to this month (default: this month).",
    )

    @field_validator("month")
    @classmethod
    def _a_month_with_usage(cls, month: str | None) -> str | None:
        """A month the service can have usage for: not before it existed, not in the future
        (year 0 was a 500; year 9999 a range of nothing; docs/decisions/0044)."""
        if month is None:
            return None
        this_month = datetime.now(UTC).strftime("%Y-%m")
        if not FIRST_USAGE_MONTH <= month <= this_month:
            raise ValueError(f"Give a month from {FIRST_USAGE_MONTH} to {this_month}.")
        return month


class DayLine(BaseModel):
    day: date
    requests: int
    cost_micros: int = Field(description="Integer micro-dollars (1,000,000 = $1).")
    cost: str
    unbilled_requests: int = 0


class PortalUsage(Usage):
    days: list[DayLine] = Field(description="Each day of the period, for the portal's chart.")


class FileName(Input):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class VendorFile(Input):
    package: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class PortalConfig(BaseModel):
    """The portal page's sign-in settings (public values: a PKCE client has no secret)."""

    issuer: str
    client_id: str
    authorization_endpoint: str
    token_endpoint: str
    redirect_uri: str = Field(description="Empty: the page's own /portal/ URL.")
    scope: str
