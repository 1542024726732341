"""Request model of POST /v1/research/topics (the answer is a stream of NDJSON events)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from common.fields import JsonInt
from functions.tracking.models import Interests, Keywords, Topics

_ONE_OF = "Send at least one topic or custom keyword."


class ResearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "anyOf": [
                {"required": ["topics"], "properties": {"topics": {"minItems": 1}}},
                {
                    "required": ["customKeywords"],
                    "properties": {"customKeywords": {"minItems": 1}},
                },
            ]
        },
    )

    topics: Topics = Field(
        default_factory=list, description="Topic identifiers from GET /v1/tracking/topics."
    )
    customKeywords: Keywords = Field(
        default_factory=list, description="Keywords searched in the news (at most 20)."
    )
    specificInterests: Interests | None = Field(
        None, description="What matters to you; lifts matching items in the ranking."
    )
    limit: JsonInt = Field(10, ge=1, le=50, description="Most items streamed, 1..50.")

    @model_validator(mode="after")
    def _topics_or_keywords(self) -> ResearchRequest:
        if not self.topics and not self.customKeywords:
            raise ValueError(_ONE_OF)
        return self
