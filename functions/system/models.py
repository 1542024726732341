"""Models of the system group."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, RootModel


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    checks: dict[str, str]


class OpenApiDocument(RootModel[dict[str, Any]]):
    """The OpenAPI 3.1 document of the whole API."""
