"""The places the legal guide recognises and the knowledge tags of notes about their law
(``data/legal/jurisdictions.toml``, decision record 0026).

``tags_for("England")`` answers which jurisdiction a request's ``jurisdiction`` field (or a
phrase such as the chat intent's extracted ``jurisdiction``) names, with its display name and the
``jurisdiction-...`` tags to pass to ``functions.knowledge.service.search``: the place's own tags
first, then those of the places containing it (a note tagged ``jurisdiction-us`` applies to
Iowa too, after Iowa's own notes). ``mentioned_in(text)`` finds a place named in free text.

A tag can be wider than a document's real scope: the notes tagged ``jurisdiction-gb`` (the
United Kingdom) mostly describe England and Wales. ``JurisdictionMatch.admits(url)`` tells
whether a document may be quoted for the place (gb-protest-law is never quoted as the law of
Scotland); ``functions.legal.notes`` also checks, sentence by sentence, which places a passage
names. Nothing here reads a file at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from common.datafiles import Content, Line, Prose, load

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]*$", max_length=40)]
Tag = Annotated[str, StringConstraints(pattern=r"^jurisdiction-[a-z0-9-]+$", max_length=60)]
Kind = Literal["name", "abbreviation", "code", "place"]


class Jurisdiction(Content):
    """One place (see the header of the data file)."""

    key: Key
    name: Line
    within: Key | None = None
    names: tuple[Line, ...] = ()
    abbreviations: tuple[Line, ...] = ()
    codes: tuple[Line, ...] = ()
    places: tuple[Line, ...] = ()
    tags: tuple[Tag, ...] = ()
    note: Prose | None = None
    spelling: Literal["us"] | None = None


class SourceScope(Content):
    """A knowledge document whose scope is narrower than its tags."""

    id: Key
    url: Line
    scope: Key


class Jurisdictions(Content):
    jurisdiction: tuple[Jurisdiction, ...] = Field(min_length=1)
    source: tuple[SourceScope, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Jurisdictions:
        keys = [j.key for j in self.jurisdiction]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"two jurisdictions have the key {repeated[0]!r}")
        known = set(keys)
        parent = {j.key: j.within for j in self.jurisdiction}
        for j in self.jurisdiction:
            if j.within is not None and j.within not in known:
                raise ValueError(f"{j.key!r} is within {j.within!r}, which is not a jurisdiction")
            seen, at = {j.key}, j.within
            while at is not None:
                if at in seen:
                    raise ValueError(f"{j.key!r} is (indirectly) within itself")
                seen.add(at)
                at = parent[at]
        owners: dict[str, str] = {}
        for j in self.jurisdiction:
            for alias, exact in _aliases(j):
                spelled = alias if exact else alias.lower()
                other = owners.setdefault(spelled, j.key)
                if other != j.key:
                    raise ValueError(f"{alias!r} names both {other!r} and {j.key!r}")
        for source in self.source:
            if source.scope not in known:
                raise ValueError(f"source {source.id!r}: scope {source.scope!r} is not a key")
        return self


def _aliases(j: Jurisdiction) -> Iterable[tuple[str, bool]]:
    """(alias, matched with its exact capitalisation) of a jurisdiction."""
    yield from ((n, False) for n in (*j.names, *j.places))
    yield from ((a, True) for a in (*j.abbreviations, *j.codes))


@dataclass(frozen=True)
class JurisdictionMatch:
    """A recognised place.

    ``name`` is how to call it in running text and headings ("England", "the United States");
    ``named`` the words of the text that named it ("London"); ``tags`` the knowledge tags of
    notes about its law, its own first, then those of the places containing it (empty: the
    service has no notes on it); ``chain`` its key, then the keys of the places containing it;
    ``note`` what the guide says whenever this place is recognised (Scotland's: the notes on
    United Kingdom law that describe only England and Wales are not used).
    """

    key: str
    name: str
    named: str
    tags: tuple[str, ...]
    chain: tuple[str, ...]
    note: str | None = None

    def admits(self, url: str | None) -> bool:
        """Whether the knowledge document at ``url`` may be quoted as this place's law: false
        when its declared scope (data/legal/jurisdictions.toml ``[[source]]``) neither
        contains this place nor lies within it."""
        scope = source_scope(url)
        return scope is None or related(scope, self.key)


# -- loading -----------------------------------------------------------------------------------


@cache
def data() -> Jurisdictions:
    return load("legal/jurisdictions.toml", Jurisdictions)


@cache
def _by_key() -> dict[str, Jurisdiction]:
    return {j.key: j for j in data().jurisdiction}


@cache
def chain(key: str) -> tuple[str, ...]:
    """``key``, then the keys of the places containing it, innermost first."""
    found, at = [], _by_key()[key].within
    found.append(key)
    while at is not None:
        found.append(at)
        at = _by_key()[at].within
    return tuple(found)


def related(a: str, b: str) -> bool:
    """True when one place is (or contains) the other."""
    return a in chain(b) or b in chain(a)


def depth(key: str) -> int:
    return len(chain(key))


def jurisdiction(key: str) -> Jurisdiction:
    return _by_key()[key]


def spelling_of(match: JurisdictionMatch | None) -> str | None:
    """The spelling the place's readers expect ("us"), from it or a place containing it."""
    if match is None:
        return None
    return next((s for k in match.chain if (s := jurisdiction(k).spelling)), None)


def source_scope(url: str | None) -> str | None:
    """The declared scope of the knowledge document at ``url``, if it has one."""
    if not url:
        return None
    return _scopes().get(url)


@cache
def _scopes() -> dict[str, str]:
    return {s.url: s.scope for s in data().source}


# -- recognition -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    key: str
    kind: Kind
    text: str


Mode = Literal["field", "text", "sentence"]
_KINDS: dict[Mode, tuple[Kind, ...]] = {
    "field": ("name", "abbreviation", "code", "place"),  # a jurisdiction field
    "text": ("name", "abbreviation", "place"),  # free text: two-letter codes are words there
    "sentence": ("name", "abbreviation"),  # a note's sentence: "London School of Economics"
}


@dataclass(frozen=True)
class _Matcher:
    pattern: re.Pattern[str] | None
    exact: dict[str, tuple[str, Kind]]  # abbreviations and codes, as written
    folded: dict[str, tuple[str, Kind]]  # names and places, lower case


@cache
def _matcher(mode: Mode) -> _Matcher:
    kinds = _KINDS[mode]
    exact: dict[str, tuple[str, Kind]] = {}
    folded: dict[str, tuple[str, Kind]] = {}
    for j in data().jurisdiction:
        groups: tuple[tuple[Kind, tuple[str, ...]], ...] = (
            ("name", j.names),
            ("abbreviation", j.abbreviations),
            ("code", j.codes),
            ("place", j.places),
        )
        for kind, aliases in groups:
            if kind not in kinds:
                continue
            target = exact if kind in ("abbreviation", "code") else folded
            for alias in aliases:
                target[alias if target is exact else alias.lower()] = (j.key, kind)
    alternatives = [(a, re.escape(a)) for a in exact]
    alternatives += [(a, f"(?i:{re.escape(a)})") for a in folded]
    alternatives.sort(key=lambda pair: (-len(pair[0]), pair[0]))  # the longest name wins
    if not alternatives:
        return _Matcher(None, exact, folded)
    body = "|".join(regex for _, regex in alternatives)
    return _Matcher(re.compile(rf"(?<![\w.])(?:{body})(?![\w]|\.\w)"), exact, folded)


def _find(text: str, mode: Mode) -> list[_Found]:
    matcher = _matcher(mode)
    if matcher.pattern is None:
        return []
    text = text.replace("\u2019", "'")
    found = []
    for match in matcher.pattern.finditer(text):
        word = match.group()
        hit = matcher.exact.get(word) or matcher.folded.get(word.lower())
        if hit is not None:
            found.append(_Found(hit[0], hit[1], word))
    if mode == "field" and not found:  # the whole field is a code, in any case: "ia", "us-ca"
        whole = " ".join(text.split()).upper()
        hit = matcher.exact.get(whole)
        if hit is not None:
            found.append(_Found(hit[0], hit[1], text.strip()))
    return found


def _resolve(found: list[_Found]) -> JurisdictionMatch | None:
    """The place a list of mentions means (see the header of the data file)."""
    strong = [f for f in found if f.kind != "place"]
    weak = [f for f in found if f.kind == "place"]
    if strong:
        # A city counts only when it lies inside (or contains) every strong name.
        candidates = strong + [w for w in weak if all(related(w.key, s.key) for s in strong)]
    else:
        candidates = weak
    if not candidates:
        return None
    keys = list(dict.fromkeys(f.key for f in candidates))
    inner = [k for k in keys if not any(k != o and k in chain(o) for o in keys)]
    common = [k for k in chain(inner[0]) if all(k in chain(o) for o in inner[1:])]
    if len(inner) > 1 and common:  # "Iowa and California": the United States
        named = " and ".join(dict.fromkeys(f.text for f in candidates if f.key in inner))
        return _match(common[0], named)
    key = inner[0]  # one place, or unrelated places: the first named
    return _match(key, next(f.text for f in candidates if f.key == key))


def _match(key: str, named: str) -> JurisdictionMatch:
    keys = chain(key)
    tags = tuple(dict.fromkeys(t for k in keys for t in jurisdiction(k).tags))
    j = jurisdiction(key)
    return JurisdictionMatch(key=key, name=j.name, named=named, tags=tags, chain=keys, note=j.note)


def tags_for(text: str | None) -> JurisdictionMatch | None:
    """The jurisdiction a request's ``jurisdiction`` field names ("England", "Des Moines, IA",
    "us-ia"), with its display name and knowledge tags; None when no place is recognised.

    A recognised place may have no tags (``match.tags == ()``): the service knows it but has
    no notes on its law (Ontario). Search with ``tags=list(match.tags)`` and, before quoting a
    passage as the place's law, check ``match.admits(passage["url"])``.
    """
    if not text or not text.strip():
        return None
    return _resolve(_find(text, "field"))


def mentioned_in(text: str | None) -> JurisdictionMatch | None:
    """The place free text (a prompt, a situation) names: names, "UK"-style abbreviations and
    cities, not two-letter codes ("IN", "OR" and "ME" are words there)."""
    if not text or not text.strip():
        return None
    return _resolve(_find(text, "text"))


def named_in_sentence(text: str) -> list[str]:
    """The keys of the places a sentence of a note names by name ("In England and Wales, ..."),
    in order, without repeats; cities are not counted ("London School of Economics")."""
    return list(dict.fromkeys(f.key for f in _find(text, "sentence")))
