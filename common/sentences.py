"""Sentences of a plain text: the one splitter the personal-data screen and the OSINT claims use.

A text is split after ``.``, ``!`` or ``?`` (and a closing quote or bracket) followed by space and
a capital, a digit or an opening quote; a piece that ends in a known abbreviation ("Mr.",
"Inc.", "U.S.") or a single initial ("Dana J. Whitfield") is joined to the next. Whitespace is
collapsed: a feed gives one paragraph.
"""

from __future__ import annotations

import re

_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "st",
        "no",
        "vs",
        "inc",
        "ltd",
        "co",
        "corp",
        "jr",
        "sr",
        "gen",
        "sen",
        "rep",
        "gov",
        "rev",
        "fig",
        "approx",
        "est",
        "cllr",
        "hon",
        "lt",
        "col",
        "capt",
        "sgt",
        "e.g",
        "i.e",
        "u.s",
        "u.k",
    ]
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]?\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")


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
    last = sentence.rsplit(" ", 1)[-1].rstrip(".").lower()
    return sentence.endswith(".") and (
        last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())
    )
