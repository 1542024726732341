"""The base of every request model (bodies, query strings, path parameters)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Input(BaseModel):
    """What a caller sends: an unknown field is a 400 naming it, so a typo never silently does
    nothing (DESIGN.md §3). Bodies are validated strictly by the pipeline (common.http)."""

    model_config = ConfigDict(extra="forbid")
