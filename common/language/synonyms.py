"""Words of the same meaning for knowledge search (decision 0055): for the everyday words
people type, the words the knowledge guides use for the same thing (``data/search/
synonyms.toml``: "cops" -> "police", "jail" -> "imprisonment"). A query term's synonyms
count as the term itself in the words ranking (``common.search.postings.search``, ``related``): a
passage scores by the best of them, never by two.

The file is read on first use, not at import, and its words are turned into search terms as
the index stores them (``common.language.index.terms``)."""

from __future__ import annotations

from functools import cache

from pydantic import Field

from common.datafiles import Content, LowerLine, load
from common.language.index import terms

MAX_SYNONYMS = 4  # per word


class Synonyms(Content):
    """data/search/synonyms.toml: for the knowledge collection, a word and the words meaning
    the same."""

    knowledge: dict[LowerLine, list[LowerLine]] = Field(default_factory=dict)


@cache
def words() -> Synonyms:
    return load("search/synonyms.toml", Synonyms)


@cache
def related() -> dict[str, tuple[str, ...]]:
    """The knowledge synonyms as search terms: term -> the terms meaning the same, in the
    file's order, each once and never the term itself."""
    table: dict[str, list[str]] = {}
    for word, alike in words().knowledge.items():
        for term in terms(word):
            found = table.setdefault(term, [])
            for other in alike[:MAX_SYNONYMS]:
                found.extend(t for t in terms(other) if t != term and t not in found)
    return {term: tuple(alike) for term, alike in table.items() if alike}
