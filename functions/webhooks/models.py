"""Identity-provider events (Clerk's shape). Only what the service uses is modelled; the rest
of a payload is ignored, because the provider adds fields over time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class IdpEvent(Lenient):
    """The envelope. What ``data`` holds is checked per event type by the service: a verified
    event it cannot use is acknowledged and logged, never refused (decision 0016)."""

    type: str = Field(min_length=1, max_length=100)
    data: Any = Field(None, description="The event's object (a user, for user.* events).")
    timestamp: int | None = Field(None, description="Milliseconds since the epoch.")


class Verification(Lenient):
    status: str | None = None  # "verified" once the user proved the address is theirs


class EmailAddress(Lenient):
    id: str
    email_address: str
    verification: Verification | None = None

    @property
    def verified(self) -> bool:
        return self.verification is not None and self.verification.status == "verified"


class UserData(Lenient):
    """``data`` of user.created and user.updated."""

    id: str = Field(min_length=1, max_length=200)
    email_addresses: list[EmailAddress] = Field(default_factory=list)  # none: phone sign-in
    primary_email_address_id: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    updated_at: int = Field(ge=0, lt=2**63, description="Milliseconds since the epoch.")
    banned: bool = False
    locked: bool = False

    def primary_email(self) -> str | None:
        """The user's primary address, once verified; None otherwise. Another address of the
        user (even a verified one) is never taken: the owner's address gets the account's
        digests without a consent or the confirmation cap (decision 0063)."""
        for address in self.email_addresses:
            if address.id == self.primary_email_address_id and address.verified:
                return address.email_address
        return None


class DeletedUserData(Lenient):
    """``data`` of user.deleted."""

    id: str = Field(min_length=1, max_length=200)
