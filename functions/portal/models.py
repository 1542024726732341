"""Models of the developer-portal key API."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from common.fields import JsonInt
from common.models import Input


class KeyCreate(Input):
    name: str = Field(min_length=1, max_length=100, pattern=r"\S")
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
