"""The five searchable tables: their record model, which field is the title, and which fields
make up the text that is indexed and embedded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from common.language import places
from functions.search.models import (
    TABLE_NAMES,
    Action,
    Campaign,
    Content,
    Organization,
    PublicFigure,
    TableName,
)

FILTER_VALUE_CHARS = 200  # the longest value a filter takes (functions.search.models.Filters)


@dataclass(frozen=True)
class Table:
    name: TableName
    model: type[BaseModel]
    title: str  # the required first field
    text: tuple[str, ...]  # indexed and embedded, in this order, after the title

    @property
    def collection(self) -> str:
        return self.name

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.model.model_fields)

    def title_of(self, record: dict[str, Any]) -> str:
        return str(record.get(self.title) or "")

    def filter_keys(self, record: dict[str, Any]) -> list[str]:
        """``field=value`` for each value a filter can ask for (lower case, each item of a
        list), stored with the record so that a semantic search pre-filters on one of them
        (decision 0048); values longer than a filter value can be are left out."""
        keys = []
        for name in self.fields:
            value = record.get(name)
            if name == "id" or value is None:
                continue
            for item in value if isinstance(value, list) else [value]:
                text = str(item).lower()
                if len(text) <= FILTER_VALUE_CHARS:
                    keys.append(f"{name}={text}")
        return keys

    def text_of(self, record: dict[str, Any], *, countries_named: bool = False) -> str:
        """The record's searchable text: its text fields, lists joined, dates as written
        (``countries_named``: a country code by its name, as the judge reads it)."""
        parts = []
        for name in self.text:
            value = record.get(name)
            if isinstance(value, list):
                value = ", ".join(str(item).replace("-", " ") for item in value)
            elif countries_named and name == "country" and isinstance(value, str):
                value = places.called(value) or value
            if value:
                parts.append(str(value))
        return "\n".join(parts)

    def indexed_text(self, record: dict[str, Any]) -> str:
        """The record as the index holds and embeds it: its title, then its searchable text."""
        return f"{self.title_of(record)}\n{self.text_of(record)}"

    def judged_text(self, record: dict[str, Any]) -> str:
        """The record as the relevance judge reads it: its title, then its searchable text with
        its country by name ("BR" is "Brazil", which the judge's places read; decision 0067).
        The index and the embeddings keep the code: retrieval is unchanged by it."""
        return f"{self.title_of(record)}\n{self.text_of(record, countries_named=True)}"


TABLES: dict[str, Table] = {
    "campaigns": Table(
        "campaigns",
        Campaign,
        "title",
        ("description", "target", "organization", "topics", "country", "status"),
    ),
    "organizations": Table(
        "organizations",
        Organization,
        "name",
        ("description", "type", "focus_areas", "country"),
    ),
    "public_figures": Table(
        "public_figures",
        PublicFigure,
        "name",
        ("role", "organization", "summary", "country"),
    ),
    "actions": Table("actions", Action, "title", ("description", "action_type", "date")),
    "content": Table("content", Content, "title", ("body", "content_type", "topics")),
}
assert tuple(TABLES) == TABLE_NAMES
