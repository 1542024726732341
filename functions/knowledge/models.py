"""Models of the knowledge group: the corpus's documents and passages, and the search API."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from common.fields import Input, JsonInt
from common.language.safety import NOT_BLANK
from common.search import relevance

DocId = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9-]*$")
]
Tag = Annotated[
    str, StringConstraints(min_length=1, max_length=60, pattern=r"^[a-z0-9][a-z0-9-]*$")
]


class KnowledgeDocument(BaseModel):
    """One document of the corpus (a Markdown or text file's front matter, or a JSONL line)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: DocId
    title: str = Field(min_length=1, max_length=300)
    url: str | None = Field(None, max_length=2000, pattern=r"^https?://\S+$")
    text: str = Field(min_length=1, max_length=500_000)
    tags: list[Tag] = Field(default_factory=list, max_length=30)


class KnowledgeRequest(Input):
    query: str = Field(min_length=1, max_length=500, pattern=NOT_BLANK, description="A question.")
    limit: JsonInt = Field(5, ge=1, le=20, description="Most passages, 1..20.")
    tags: list[Tag] | None = Field(
        None,
        min_length=1,
        max_length=10,
        description="Only passages with at least one of these tags (e.g. legal, "
        "jurisdiction-gb, welfare-science, campaign-tactics, cage-free).",
    )


class Passage(BaseModel):
    passage: str
    title: str
    url: str | None
    section: str = Field(description="The headings above the passage, outermost first.")
    score: float = Field(
        description="The relevance judge's calibrated probability (0..1) that the passage "
        f"answers the query (a search is billed when {relevance.ANSWERS})."
    )


class KnowledgeResults(BaseModel):
    data: list[Passage]
    total: int
    message: str | None = Field(
        None,
        description="Why there are no results, when there are none (not billed).",
    )
