"""Sentences of a plain text: the one splitter of the service (``split``: the personal-data
screen, the OSINT claims, legal notes, content drafts, the assistant's answers, the research
overview and summaries, the offline summaries); its callers import it from here.

A text is split after ``.``, ``!`` or ``?`` (and closing quotes or brackets) followed by space
and a capital, a digit or an opening quote or bracket; a piece whose full stop follows a known
abbreviation (``data/text/sentences.toml``: "Mr.", "v.", "No.", "geb."), a single letter
("Dana J. Whitfield"), a dotted abbreviation ("U.S.", "e.g.") or a German ordinal ("am 14.
März", "zum 60. Geburtstag") is joined to the next. Whitespace is
collapsed: a feed gives one paragraph.
"""

from __future__ import annotations

import re
from functools import cache

from common.datafiles import Content, LowerWords, load


class SentenceData(Content):
    """data/text/sentences.toml."""

    abbreviations: LowerWords
    ordinal_after: LowerWords
    months: LowerWords


@cache
def _data() -> SentenceData:
    return load("text/sentences.toml", SentenceData)


@cache
def _abbreviations() -> frozenset[str]:
    return frozenset(_data().abbreviations)


_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")
_DOTTED = re.compile(r"(?:[A-Za-z]{1,2}\.)+[A-Za-z]{1,2}")
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)\.[\"'\u201d\u2019)\]]*$")


def split(text: str) -> list[str]:
    """The sentences of ``text``, abbreviations and initials kept whole."""
    pieces = [p.strip() for p in _BOUNDARY.split(" ".join(text.split())) if p.strip()]
    merged: list[str] = []
    for piece in pieces:
        if merged and (_ends_in_abbreviation(merged[-1]) or _ordinal(merged[-1], piece)):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


_ORDINAL = re.compile(r"(?:^|\s)(\S+)\s+\d{1,3}\.$")


def _ordinal(sentence: str, following: str) -> bool:
    """``sentence`` ends in a German ordinal number: a month follows ("am 14. März") or a
    word that takes one comes before it ("zum 60. Geburtstag", "seit dem 1. Januar")."""
    found = _ORDINAL.search(sentence)
    if found is None:
        return False
    data = _data()
    first = following.split(maxsplit=1)[0].lower().strip(",;:")
    return first in data.months or found.group(1).lower() in data.ordinal_after


def _ends_in_abbreviation(sentence: str) -> bool:
    last = _LAST_WORD.search(sentence)
    if last is None:
        return False
    word = last.group(1)
    dotted = _DOTTED.fullmatch(word) is not None  # "U.S", "e.g" (not "example.com")
    return len(word) == 1 or dotted or word.lower() in _abbreviations()
