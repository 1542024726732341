"""Sentences of a plain text: the one splitter of the service (the personal-data screen, the
OSINT claims, legal notes, content drafts, the offline summaries).

A text is split after ``.``, ``!`` or ``?`` (and closing quotes or brackets) followed by space
and a capital, a digit or an opening quote or bracket; a piece whose full stop follows a known
abbreviation (``data/text/sentences.toml``: "Mr.", "v.", "No."), a single letter ("Dana J.
Whitfield") or a dotted abbreviation ("U.S.", "e.g.") is joined to the next. Whitespace is
collapsed: a feed gives one paragraph.
"""

from __future__ import annotations

import re
from functools import cache

from common.datafiles import Content, LowerWords, load


class SentenceData(Content):
    """data/text/sentences.toml."""

    abbreviations: LowerWords


@cache
def _abbreviations() -> frozenset[str]:
    return frozenset(load("text/sentences.toml", SentenceData).abbreviations)


_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")
_DOTTED = re.compile(r"(?:[A-Za-z]{1,2}\.)+[A-Za-z]{1,2}")
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)\.[\"'\u201d\u2019)\]]*$")


def split(text: str) -> list[str]:
    """The sentences of ``text``, abbreviations and initials kept whole."""
    pieces = [p.strip() for p in _BOUNDARY.split(" ".join(text.split())) if p.strip()]
    merged: list[str] = []
    for piece in pieces:
        if merged and _ends_in_abbreviation(merged[-1]):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


def _ends_in_abbreviation(sentence: str) -> bool:
    last = _LAST_WORD.search(sentence)
    if last is None:
        return False
    word = last.group(1)
    dotted = _DOTTED.fullmatch(word) is not None  # "U.S", "e.g" (not "example.com")
    return len(word) == 1 or dotted or word.lower() in _abbreviations()
