"""Identity-provider events (Clerk's shape). Only what the service uses is modelled; the rest
of a payload is ignored, because the provider adds fields over time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class IdpEvent(Lenient):
    type: str = Field(min_length=1, max_length=100)
    data: dict[str, Any]
    timestamp: int | None = Field(None, description="Milliseconds since the epoch.")


class EmailAddress(Lenient):
    id: str
    email_address: str


class UserData(Lenient):
    """``data`` of user.created and user.updated."""

    id: str = Field(min_length=1, max_length=200)
    email_addresses: list[EmailAddress] = Field(min_length=1)
    primary_email_address_id: str | None = None
    first_name: str | None = Field(None, max_length=200)
    last_name: str | None = Field(None, max_length=200)
    updated_at: int = Field(ge=0, description="Milliseconds since the epoch.")
    banned: bool = False
    locked: bool = False

    def primary_email(self) -> str:
        for address in self.email_addresses:
            if address.id == self.primary_email_address_id:
                return address.email_address
        return self.email_addresses[0].email_address


class DeletedUserData(Lenient):
    """``data`` of user.deleted."""

    id: str = Field(min_length=1, max_length=200)
