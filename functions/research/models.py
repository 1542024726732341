"""Request model of POST /v1/research/topics (the answer is a stream of NDJSON events)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from common.fields import JsonInt
from common.interests import Interests, Keywords, Topics, TopicsOrKeywords
from common.models import Input

_RULE = TopicsOrKeywords("topics", "customKeywords")


class ResearchRequest(Input):
    model_config = ConfigDict(json_schema_extra=_RULE.schema())

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

    _topics_or_keywords = _RULE.validator()
