"""SendGrid's Event Webhook: addresses that bounced, were dropped, reported spam or
unsubscribed go on the suppression list. No Flask here.

The pipeline has verified the ECDSA signature on the raw body before this runs
(``Auth.SENDGRID``). Every effect is idempotent (a suppression is a set), so SendGrid's retries
and duplicate deliveries need no receipt. Other event types (delivered, open, click, deferred,
processed) are acknowledged and ignored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel

from common.adapters.suppressions import suppress_addresses
from common.logging import get_logger

logger = get_logger("ars.webhooks")

# event -> the reason recorded; a "bounce" of type "blocked" is temporary and not suppressed.
SUPPRESSING = {
    "bounce": "bounced",
    "dropped": "dropped",
    "spamreport": "spam_report",
    "unsubscribe": "unsubscribed",
    "group_unsubscribe": "unsubscribed",
}


class SendGridEvent(BaseModel):
    """One event; SendGrid sends many more fields, which are ignored."""

    model_config = ConfigDict(extra="ignore")

    email: str = Field("", max_length=320)
    event: str = Field("", max_length=50)
    type: str | None = Field(None, max_length=50, description="bounce: bounce or blocked.")


class SendGridEvents(RootModel[list[SendGridEvent]]):
    """The body SendGrid posts: a JSON array of events."""

    root: list[SendGridEvent] = Field(max_length=10_000)


def handle(events: list[SendGridEvent]) -> dict[str, Any]:
    reasons: dict[str, str] = {}
    for event in events:
        reason = SUPPRESSING.get(event.event)
        if reason is None or not event.email or "@" not in event.email:
            continue
        if event.event == "bounce" and event.type == "blocked":
            continue  # a temporary refusal: SendGrid retries it and so may we
        reasons[event.email] = reason
    written = suppress_addresses(reasons, source="sendgrid") if reasons else 0
    outcome = {"events": len(events), "suppressed": written}
    logger.info("sendgrid events", extra=outcome)  # counts only: no address is logged
    return outcome
