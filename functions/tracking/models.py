"""Request and response models of the tracking group (spec §2.4, §4.5; DESIGN.md §3)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)

from common.catalog.interests import (
    KEYWORDS_DOC,
    TOPICS_DOC,
    Interests,
    Keywords,
    Topics,
    TopicsOrKeywords,
)
from common.fields import Email, Input

Frequency = Literal["daily", "weekly", "realtime"]
DeliveryStatus = Literal["confirmed", "pending_confirmation", "suppressed"]
DeliveryMethod = Literal["email"]


_CREATE_RULE = TopicsOrKeywords("topics", "custom_keywords")


class SubscriptionCreate(Input):
    model_config = ConfigDict(json_schema_extra=_CREATE_RULE.schema())

    topics: Topics = Field(default_factory=list, description=TOPICS_DOC)
    custom_keywords: Keywords = Field(default_factory=list, description=KEYWORDS_DOC)
    frequency: Frequency = "daily"
    specific_interests: Interests | None = None
    delivery_email: Email | None = Field(
        None,
        description="Defaults to the email address of the account. Any other address first "
        "gets one confirmation email, and no digest until its owner confirms.",
    )
    delivery_method: DeliveryMethod = "email"

    _topics_or_keywords = _CREATE_RULE.validator()


class SubscriptionPatch(Input):
    """Every field is optional; a field that is sent must not be null, except
    ``specific_interests``, where null clears it. (The defaults below mean "not sent".)"""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    # The types stay non-null (a null is refused, and the schema says so); None is only the
    # default, which pydantic does not validate, so the ignores below are deliberate.
    topics: Topics = Field(None, description=TOPICS_DOC)  # type: ignore[arg-type]
    custom_keywords: Keywords = Field(None, description=KEYWORDS_DOC)  # type: ignore[arg-type]
    frequency: Frequency = None  # type: ignore[assignment]
    specific_interests: Interests | None = Field(None, description="null clears it.")
    delivery_email: Email = None  # type: ignore[assignment]
    delivery_method: DeliveryMethod = None  # type: ignore[assignment]
    active: bool = Field(None, description="false pauses, true resumes.")  # type: ignore[assignment]

    @model_validator(mode="after")
    def _something_to_change(self) -> SubscriptionPatch:
        if not self.model_fields_set:
            raise ValueError("Send at least one field to change.")
        return self

    def changes(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.model_fields_set}


class SubscriptionPath(Input):
    id: UUID = Field(description="Subscription id (uuid).")


class ListQuery(Input):
    limit: int = Field(50, ge=1, le=100, description="Page size, 1..100.")
    cursor: str | None = Field(
        None, max_length=500, description="next_cursor of the previous page."
    )


class Subscription(BaseModel):
    id: UUID
    user_id: UUID
    topics: list[str]
    custom_keywords: list[str]
    frequency: Frequency
    specific_interests: str | None
    delivery_email: str = Field(json_schema_extra={"format": "email"})
    delivery_method: DeliveryMethod
    delivery_status: DeliveryStatus = Field(
        description="confirmed: digests go out; pending_confirmation: the address has not yet "
        "confirmed (a confirmation email was sent to it); suppressed: the address asked for no "
        "email from this service (or bounced), which no subscription can override."
    )
    active: bool
    last_sent_at: datetime | None
    created_at: datetime
    updated_at: datetime


class SubscriptionEnvelope(BaseModel):
    data: Subscription


class SubscriptionList(BaseModel):
    data: list[Subscription]
    total: int = Field(description="All of the caller's subscriptions, active and paused.")
    next_cursor: str | None = Field(description="Pass as cursor for the next page; null at end.")


class Deleted(BaseModel):
    deleted: bool


class TopicInfo(BaseModel):
    id: str
    name: str
    description: str


class TopicCatalog(BaseModel):
    data: list[TopicInfo]
    total: int
