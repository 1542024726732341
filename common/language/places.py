"""The places a text names (``data/text/places.toml``): regions, countries, their states and
nations, large cities, each by its name, its adjective ("Canadian") or its abbreviation ("UK"),
and the places each lies within. The relevance judge reads them (decision 0067): a request about
Canada's rules is not answered by a passage about the EU's, and one about a march in Manchester
is answered by one about England.

A name is found in any case and without its accents, as whole words, the longest first ("New
York City" is not New York); a name listed under ``exact`` (an ordinary word or a person's name
in lower case: "turkey", "reading") and an abbreviation only as the file writes it. The file is
read on first use.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from pydantic import model_validator

from common.datafiles import Content, Line, LowerLine, Words, load
from common.language.index import unaccented


class Place(Content):
    key: LowerLine
    names: tuple[Line, ...]
    adjectives: tuple[Line, ...] = ()
    abbreviations: tuple[Line, ...] = ()
    within: LowerLine | None = None


class Places(Content):
    """data/text/places.toml."""

    place: tuple[Place, ...]
    exact: Words

    @model_validator(mode="after")
    def _a_tree(self) -> Places:
        keys = [p.key for p in self.place]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"place: keys repeated: {repeated}")
        unknown = sorted({p.within for p in self.place if p.within and p.within not in keys})
        if unknown:
            raise ValueError(f"place: within names no place: {unknown}")
        names = {n for p in self.place for n in (*p.names, *p.adjectives)}
        stray = sorted(self.exact - names)
        if stray:
            raise ValueError(f"exact: no place is named {stray}")
        parent = {p.key: p.within for p in self.place}
        for key in keys:
            seen = {key}
            while (key := parent[key] or "") and key not in seen:
                seen.add(key)
            if key:
                raise ValueError(f"place: {key} lies within itself")
        return self


@cache
def _places() -> Places:
    return load("text/places.toml", Places)


def _alternation(names: dict[str, str]) -> re.Pattern[str] | None:
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in ordered) + r")(?![\w])")


_Pattern = re.Pattern[str] | None


@cache
def _index() -> tuple[_Pattern, _Pattern, dict[str, str], dict[str, str]]:
    """(any-case pattern over lower-cased unaccented text, exact pattern over unaccented text,
    the lower-cased and the exact name -> its place's key)."""
    table = _places()
    loose: dict[str, str] = {}
    exact: dict[str, str] = {}
    for place in table.place:
        for name in (*place.names, *place.adjectives):
            plain = unaccented(name)
            if name in table.exact:
                exact.setdefault(plain, place.key)
            else:
                loose.setdefault(plain.lower(), place.key)
        for abbreviation in place.abbreviations:
            exact.setdefault(unaccented(abbreviation), place.key)
    return _alternation(loose), _alternation(exact), loose, exact


@lru_cache(maxsize=8192)
def named(text: str) -> frozenset[str]:
    """The keys of the places ``text`` names (not those they lie within: ``around``)."""
    loose, exact, loose_key, exact_key = _index()
    plain = unaccented(text)
    found: set[str] = set()
    taken: list[tuple[int, int]] = []  # a name within a longer one is not named ("York")
    if loose is not None:
        for match in loose.finditer(plain.lower()):
            found.add(loose_key[match.group(1)])
            taken.append(match.span())
    if exact is not None:
        for match in exact.finditer(plain):
            start, end = match.span()
            if not any(start < e and s < end for s, e in taken):
                found.add(exact_key[match.group(1)])
    return frozenset(found)


@cache
def around(key: str) -> tuple[str, ...]:
    """The places ``key`` lies within, nearest first."""
    parent = {p.key: p.within for p in _places().place}
    found: list[str] = []
    while (key := parent.get(key) or "") and key not in found:
        found.append(key)
    return tuple(found)
