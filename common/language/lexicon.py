"""The offline engine's word lists, kept as data in ``data/offline/`` and validated on first use
(common.datafiles, decision 0020): what entity extraction looks for (``entities.toml``)."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import Field

from common.datafiles import Content, Line, Lower, LowerLine, LowerWords, Words, load


class EntityWords(Content):
    """data/offline/entities.toml: the words behind ``extractedInfo`` (common.offline.entities)."""

    roles: tuple[LowerLine, ...] = Field(min_length=1)
    legal_activities: tuple[LowerLine, ...] = Field(min_length=1)
    jurisdictions: tuple[Line, ...] = Field(min_length=1)
    not_names: Words
    content_types: dict[Lower, Line] = Field(min_length=1)
    platforms: dict[Lower, Line] = Field(min_length=1)
    frequencies: dict[Literal["realtime", "weekly", "daily"], tuple[LowerLine, ...]]
    company_cues: LowerWords
    place_words: LowerWords
    not_companies: Words
    scheme_words: LowerWords


@cache
def entities() -> EntityWords:
    return load("offline/entities.toml", EntityWords)


@cache
def not_names() -> frozenset[str]:
    """Capitalised words that never start a company's or a person's name (jurisdictions too)."""
    words = entities()
    return words.not_names | frozenset(words.jurisdictions)
