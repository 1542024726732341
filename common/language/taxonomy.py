"""Trees of named things a text may name: places (``places``), animals (``species``). Each is a
TOML file of entries, each with a ``key``, the names it goes by and the key of the entry it lies
within (Iowa within the US, hens within chickens within poultry). The relevance judge reads them
(decision 0067): a request about Canada's rules is not answered by a passage about the EU's, nor
one about turkeys by a passage about broiler chickens.

A name is found in any case and without its accents, as whole words, the longest first ("New
York City" is not New York; "laying hens" is not "hens"); a name the file lists under ``exact``
(an ordinary word or a person's name: "Turkey" the country, "turkey" the bird) and an
abbreviation only as the file writes it. A file is read on first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache

from pydantic import model_validator

from common.datafiles import Content, Line, LowerLine, Words, load
from common.language.index import unaccented


class Entry(Content):
    key: LowerLine
    names: tuple[Line, ...]
    adjectives: tuple[Line, ...] = ()
    abbreviations: tuple[Line, ...] = ()
    within: LowerLine | None = None


class Tree(Content):
    """A file of entries, under the one field a subclass adds ("place", "species"), and the
    ``exact`` names."""

    exact: Words = frozenset()

    def entries(self) -> tuple[Entry, ...]:
        (field,) = (name for name in type(self).model_fields if name != "exact")
        entries: tuple[Entry, ...] = getattr(self, field)
        return entries

    @model_validator(mode="after")
    def _a_tree(self) -> Tree:
        entries = self.entries()
        keys = [e.key for e in entries]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"keys repeated: {repeated}")
        unknown = sorted({e.within for e in entries if e.within and e.within not in keys})
        if unknown:
            raise ValueError(f"within names no entry: {unknown}")
        names = {n for e in entries for n in (*e.names, *e.adjectives)}
        stray = sorted(self.exact - names)
        if stray:
            raise ValueError(f"exact: no entry is named {stray}")
        parent = {e.key: e.within for e in entries}
        for key in keys:
            seen = {key}
            while (key := parent[key] or "") and key not in seen:
                seen.add(key)
            if key:
                raise ValueError(f"{key} lies within itself")
        return self


_Pattern = re.Pattern[str] | None


def _alternation(names: dict[str, str]) -> _Pattern:
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in ordered) + r")(?![\w])")


class Taxonomy:
    """The names of one file's entries, found in text: ``named`` and ``around``."""

    def __init__(self, relative: str, model: type[Tree]) -> None:
        self._tree: Callable[[], Tree] = cache(lambda: load(relative, model))
        self._index = cache(self._build)
        self.named: Callable[[str], frozenset[str]] = lru_cache(maxsize=8192)(self._named)
        self.around: Callable[[str], tuple[str, ...]] = cache(self._around)
        self.called: Callable[[str], str | None] = lru_cache(maxsize=1024)(self._called)

    def _build(self) -> tuple[_Pattern, _Pattern, dict[str, str], dict[str, str]]:
        """(any-case pattern over lower-cased unaccented text, exact pattern over unaccented
        text, the lower-cased and the exact name -> its entry's key)."""
        tree = self._tree()
        loose: dict[str, str] = {}
        exact: dict[str, str] = {}
        for entry in tree.entries():
            for name in (*entry.names, *entry.adjectives):
                plain = unaccented(name)
                if name in tree.exact:
                    exact.setdefault(plain, entry.key)
                else:
                    loose.setdefault(plain.lower(), entry.key)
            for abbreviation in entry.abbreviations:
                exact.setdefault(unaccented(abbreviation), entry.key)
        return _alternation(loose), _alternation(exact), loose, exact

    def _named(self, text: str) -> frozenset[str]:
        """The keys of the entries ``text`` names (not those they lie within: ``around``)."""
        loose, exact, loose_key, exact_key = self._index()
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

    def _called(self, code: str) -> str | None:
        """The first name of the entry whose key or abbreviation ``code`` is, in any case ("BR"
        -> "Brazil", "gb" -> "United Kingdom"), or None."""
        folded = code.strip().casefold()
        for entry in self._tree().entries():
            if entry.key == folded or folded in {a.casefold() for a in entry.abbreviations}:
                return entry.names[0]
        return None

    def _around(self, key: str) -> tuple[str, ...]:
        """The entries ``key`` lies within, nearest first."""
        parent = {e.key: e.within for e in self._tree().entries()}
        found: list[str] = []
        while (key := parent.get(key) or "") and key not in found:
            found.append(key)
        return tuple(found)
