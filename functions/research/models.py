"""Request model of POST /v1/research/topics and the NDJSON events of its answer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from common.catalog.interests import Interests, Keywords, Topics, TopicsOrKeywords
from common.fields import Input, JsonInt
from common.http.streams import Event, StreamError

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


# -- the events of the answer (one JSON object per line) -------------------------------------


class ResearchBegin(Event):
    type: Literal["begin"] = "begin"
    topics: list[str]
    keywords: list[str]
    sources: int = Field(description="News sources that will be read.")


class ResearchItem(Event):
    type: Literal["item"] = "item"
    rank: int = Field(description="1 for the best item.")
    id: str
    title: str
    link: str
    source: str
    published: str | None = Field(description="ISO 8601, when the source gives it.")
    summary: str
    score: float
    matched: list[str] = Field(description="The topics, then keywords, this item matched.")


class Theme(BaseModel):
    label: str
    name: str
    items: int
    itemIds: list[str]


class Actor(BaseModel):
    name: str
    kind: Literal["company", "organisation", "government", "person", "group"]
    role: str | None = Field(None, description="A person's public role (only then).")
    items: int
    itemIds: list[str]


class Change(BaseModel):
    kind: str = Field(description="vote, ban, pledge, ruling, launch, reversal...")
    text: str
    itemId: str
    link: str


class ResearchSummary(Event):
    type: Literal["summary"] = "summary"
    text: str = Field(description="What the items show, at most about 600 characters.")
    items: int
    failedSources: list[str] = Field(description="One label per source that did not answer.")
    themes: list[Theme]
    who: list[Actor]
    changes: list[Change]
    itemIds: list[str] = Field(description="The items the paragraph draws on.")
    engine: str = Field(description="offline, or provider:<name>.")


class ResearchEnd(Event):
    type: Literal["end"] = "end"
    items: int


RESEARCH_EVENTS = (ResearchBegin, ResearchItem, ResearchSummary, ResearchEnd, StreamError)
