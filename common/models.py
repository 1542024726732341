"""The base of every request model (bodies, query strings, path parameters), and the response
parts several groups share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Input(BaseModel):
    """What a caller sends: an unknown field is a 400 naming it, so a typo never silently does
    nothing (DESIGN.md §3). Bodies are validated strictly by the pipeline (common.http)."""

    model_config = ConfigDict(extra="forbid")


class Citation(BaseModel):
    """One factual sentence (or record line) of a draft or a reply, with its source
    (decision 0042)."""

    text: str = Field(description="The sentence or record line, as it appears in the output.")
    url: str | None = Field(
        description="The source that holds it: the knowledge document's own listed source "
        "the sentence draws on (or the document's main source), or the record's link."
    )
    title: str = Field(description="That source's title.")
