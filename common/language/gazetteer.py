"""The companies the service knows by name (issue 29): a curated list of the largest food,
retail, restaurant, food-service, hospitality, fashion and cosmetics companies
(``data/text/companies.toml``, with its sources), and the names the caller's own tables hold
(organizations, campaign and action targets), handed in by the caller that can read them.

A name is found in a message however it is written: in any case, with or without accents,
apostrophes and a possessive ("Kroger's", "mcdonalds", "Nestle", "Marks and Spencer"), the
longest name first. What is returned is the name as the message writes it, without a
possessive. A name that is also an ordinary word or a person's name on its own (``ambiguous``:
Target, Subway, Next, Puma) counts only with more evidence: written capitalised away from a
sentence's start, with a possessive, after a word that asks about a company (``company_cues``
of ``data/offline/entities.toml``: "at", "into", "about", "research"...), or standing almost
alone (a message of a few words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal

from common.datafiles import Content, Line, load
from common.language import lexicon
from common.language.index import unaccented
from common.language.message import Message, annotate
from common.language.names import Word, words_of

Sector = Literal[
    "retail", "restaurant", "foodservice", "hospitality", "producer", "food", "fashion", "cosmetics"
]
LONGEST = 6  # words in the longest name matched
_APOSTROPHES = frozenset("'\u2019")
_AMPERSAND = re.compile("&")
_POSSESSIVE = re.compile(r"['\u2019]s?$")
_FEW_WORDS = 4  # a message this short is mostly its name ("Target cage free?")


class Company(Content):
    name: Line
    aliases: tuple[Line, ...] = ()
    sector: Sector
    ambiguous: bool = False


class Companies(Content):
    company: list[Company]


@dataclass(frozen=True)
class Found:
    name: str  # as the message writes it, without a possessive
    start: int  # character offset in the message
    canonical: str  # the gazetteer's name (or the table's)


def fold(text: str) -> str:
    """Lower case, no accents, no apostrophes, "&" as "and", other punctuation as spaces."""
    plain = unaccented(text).lower()
    plain = re.sub(r"['\u2019`]", "", plain.replace("&", " and "))
    return " ".join(re.sub(r"[^\w]+|_", " ", plain).split())


@cache
def curated() -> tuple[Company, ...]:
    return tuple(load("text/companies.toml", Companies).company)


Index = Mapping[str, tuple[str, bool]]  # folded form -> (canonical name, ambiguous)


@cache
def _curated_index() -> Index:
    return _index((c.name, c.ambiguous, c.aliases) for c in curated())


def exact(name: str) -> str | None:
    """The curated company ``name`` is, written whole in any case, accents or punctuation
    ("kroger", "Marks and Spencer", "Nestle"), ambiguous ones included (the caller asked
    about a company); None when it is not one."""
    found = _curated_index().get(fold(_POSSESSIVE.sub("", name.strip())))
    return found[0] if found else None


def index_of(names: Iterable[str], aliases: Callable[[str], Iterable[str]] | None = None) -> Index:
    """The index of names from the caller's tables (built once by the caller, then reused),
    each also found by what ``aliases`` gives for it (a shorter form: "Brightwell" for
    "Brightwell Supermarkets")."""
    return _index((name, False, aliases(name) if aliases else ()) for name in names)


def _index(entries: Iterable[tuple[str, bool, Iterable[str]]]) -> Index:
    index: dict[str, tuple[str, bool]] = {}
    for name, ambiguous, aliases in entries:
        for form in (name, *aliases):
            key = fold(form)
            if key and key not in index:
                index[key] = (name, ambiguous)
    return index


@dataclass(frozen=True)
class _Words:
    """A text's words as ``find`` looks them up: each as written, folded, and folded without
    its possessive."""

    words: list[Word]
    folded: list[str]
    bare: list[str]


def _words(message: Message) -> _Words:
    """The message's words, read once however many indexes look them up (a reading)."""
    words = _written(message)
    folded = [fold(w.text) for w in words]
    bare = [fold(_POSSESSIVE.sub("", w.text)) for w in words]
    return _Words(words, folded, bare)


def _written(message: Message) -> list[Word]:
    """The words of a name as the message writes them, from its atoms
    (``common.language.names.words_of``): letters and digits, joined by an apostrophe to more
    ("O'Brien's"), with one apostrophe at the end ("Farmers'"); "&" alone."""
    return words_of(message, within=_APOSTROPHES, alone=_AMPERSAND, singly=True)


def find(text: str | Message, known: Index | None = None) -> Found | None:
    """The first company ``text`` names (the longest name at the earliest place), from the
    curated list and ``known`` (``index_of`` the caller's table names, never ambiguous: a
    campaign's own target is meant), or None. A message's words are read once, whatever the
    indexes (``common.language.message``)."""
    index = _curated_index()
    extra = known or {}
    message = annotate(text)
    text = message.text
    scanned = message.read(_words)
    words, folded, bare = scanned.words, scanned.folded, scanned.bare
    for i in range(len(words)):
        for n in range(min(LONGEST, len(words) - i), 0, -1):
            last = i + n - 1
            head = " ".join(folded[i:last])
            # the last word as written ("McDonald's" -> mcdonalds) or without its possessive
            for tail, possessive in ((folded[last], False), (bare[last], True)):
                key = f"{head} {tail}".strip()
                entry = extra.get(key) or index.get(key)
                if entry is None:
                    continue
                canonical, ambiguous = entry
                written = words[last].text
                kept = _POSSESSIVE.sub("", written) if possessive else written.rstrip("'\u2019")
                span_end = words[last].start + len(kept)
                has_possessive = span_end < words[last].end
                if ambiguous and not _evidence(text, words, i, has_possessive):
                    continue
                return Found(text[words[i].start : span_end], words[i].start, canonical)
    return None


def _evidence(text: str, words: list[Word], i: int, possessive: bool) -> bool:
    """Whether an ambiguous name at word ``i`` is meant as a company."""
    first = words[i].text
    at_sentence_start = i == 0 or bool(re.search(r"[.!?]\s*$", text[: words[i].start]))
    if first[:1].isupper() and not at_sentence_start and not text.isupper():
        return True
    if possessive or len(words) <= _FEW_WORDS:
        return True
    return i > 0 and words[i - 1].text.lower() in lexicon.entities().company_cues
