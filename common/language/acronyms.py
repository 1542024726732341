"""Acronyms of the names the knowledge guides spell out (decision 0087): "NPPC v. Ross" is read
as "NPPC (National Pork Producers Council) v. Ross" by search and the relevance judge, which
otherwise found nothing on it (judged 0.125 against 0.948 for the name spelled out).

``data/search/acronyms.json`` is written from the guides and the sample records by
``python -m devtools.acronyms`` (a test checks it is what the script writes today); read on first
use, never at import."""

from __future__ import annotations

import re
from functools import cache

from pydantic import RootModel

from common.datafiles import DATA, read_json

PATH = DATA / "search" / "acronyms.json"
_ACRONYM = re.compile(r"\b([A-Z]{3,6})\b(?! \()")  # not one spelled out already


class Acronyms(RootModel[dict[str, str]]):
    """``data/search/acronyms.json``: acronym -> the name it stands for."""


@cache
def table() -> dict[str, str]:
    """Acronym -> the name it stands for."""
    return read_json(PATH, Acronyms).root


def spelled(text: str) -> str:
    """The text with each acronym the guides spell out followed by its name in brackets, the
    first time it stands (a request of "NPPC NPPC NPPC ..." grows by one name, not many); the
    same text when it holds none (and when it has been spelled out already)."""
    known, done = table(), set()

    def name(found: re.Match[str]) -> str:
        acronym = found[1]
        if acronym not in known or acronym in done:
            return acronym
        done.add(acronym)
        return f"{acronym} ({known[acronym]})"

    return _ACRONYM.sub(name, text)
