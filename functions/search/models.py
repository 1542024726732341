"""The searchable tables (records curated by the operator) and the search API's models.

A record's ``id`` is its document id. Required: ``id`` and the first field of each table; the
rest are optional. Records are validated when imported (a row that fails is reported with its
line and reason) and served as stored.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema

from common.fields import Input, JsonInt
from common.language.safety import NOT_BLANK
from common.search import relevance

TableName = Literal["campaigns", "organizations", "public_figures", "actions", "content"]
TABLE_NAMES: tuple[TableName, ...] = (
    "campaigns",
    "organizations",
    "public_figures",
    "actions",
    "content",
)
SearchType = Literal["text", "semantic", "hybrid"]

RecordId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$"),
]
Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Long = Annotated[str, StringConstraints(strip_whitespace=True, max_length=20_000)]
Url = Annotated[str, StringConstraints(max_length=2000, pattern=r"^https?://\S+$")]
Country = Annotated[str, StringConstraints(max_length=60)]
Tags = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=60)]], Field(max_length=50)
]


class Record(BaseModel):
    """A row of a table: unknown columns are refused, so a typo in a header is reported."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: RecordId


class Campaign(Record):
    title: Short
    description: Long | None = None
    status: Literal["active", "won", "lost", "paused"] | None = None
    target: Short | None = None
    organization: Short | None = None
    topics: Tags = Field(default_factory=list)
    country: Country | None = None
    start_date: dt.date | None = None
    url: Url | None = None


class Organization(Record):
    name: Short
    description: Long | None = None
    type: Literal["nonprofit", "company", "government", "other"] | None = None
    website: Url | None = None
    country: Country | None = None
    focus_areas: Tags = Field(default_factory=list)


class PublicFigure(Record):
    name: Short
    role: Short | None = None
    organization: Short | None = None
    country: Country | None = None
    summary: Long | None = Field(None, description="Public, professional facts only.")
    url: Url | None = None


class Action(Record):
    title: Short
    description: Long | None = None
    action_type: (
        Literal["petition", "protest", "letter", "call", "boycott", "event", "other"] | None
    ) = None
    campaign_id: RecordId | None = None
    date: dt.date | None = None
    url: Url | None = None


class Content(Record):
    title: Short
    body: Long | None = None
    content_type: Short | None = None
    topics: Tags = Field(default_factory=list)
    url: Url | None = None
    published_at: dt.date | None = None


# --- the API ---------------------------------------------------------------------------------

FIELD_NAME = r"^[a-z][a-z_]{0,63}$"
_RECORDS = (Campaign, Organization, PublicFigure, Action, Content)
FILTERABLE = sorted({name for model in _RECORDS for name in model.model_fields} - {"id"})
Filters = Annotated[
    dict[
        Annotated[str, StringConstraints(pattern=FIELD_NAME)],
        Annotated[str, StringConstraints(min_length=1, max_length=200)],
    ],
    Field(max_length=10),
    WithJsonSchema(
        {
            "type": "object",
            "maxProperties": 10,
            "propertyNames": {"enum": FILTERABLE},
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 200},
        }
    ),
]


class SearchRequest(Input):
    query: str = Field(min_length=1, max_length=500, pattern=NOT_BLANK, description="What to find.")
    search_type: SearchType = Field(
        "hybrid",
        description="text: words (stemmed); semantic: meaning (vector search); hybrid: both, "
        "fused by reciprocal rank.",
    )
    limit: JsonInt = Field(10, ge=1, le=50, description="Most results, 1..50.")
    filters: Filters | None = Field(
        None,
        description='Exact values a result must have, e.g. {"status": "active", '
        '"country": "GB"}; for a list field (topics, focus_areas) the list must contain '
        "the value. Only fields of the searched tables.",
    )
    hybrid_weight: float | None = Field(
        None,
        ge=0,
        le=1,
        description="How much meaning counts against words in hybrid search, 0 (words only) to "
        "1 (meaning only); default 0.5, both alike. text and semantic ignore it.",
    )
    min_score: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Leave out results scoring below this (0..1: see score).",
    )


class AllTablesRequest(SearchRequest):
    tables: list[TableName] | None = Field(
        None, min_length=1, max_length=5, description="Tables to search (default: all)."
    )


class TablePath(Input):
    table: str = Field(
        max_length=64,
        description="campaigns, organizations, public_figures, actions or content.",
    )


class SearchHit(BaseModel):
    table: TableName
    id: str
    score: float = Field(
        description="The relevance judge's calibrated probability (0..1) that the record "
        "answers the query, whatever the search type (which decides how candidates are found: "
        "by words, by meaning or both). Results come in the order retrieval ranks them; a "
        f"search is billed when {relevance.RECORD_ANSWERS}."
    )
    record: dict[str, Any]


class SearchResults(BaseModel):
    data: list[SearchHit]
    total: int = Field(description="Results returned (at most limit).")
    searchType: SearchType
    degraded: bool = Field(
        False,
        description="True when part of the search did not finish within the search's time "
        "budget or failed (the meaning half, or a table), and the results are those of the "
        "part that did: fewer or words only.",
    )
    message: str | None = Field(
        None,
        description="Why there are no results, when there are none (not billed).",
    )
