"""The service's own texts in the reader's spelling (``data/text/spelling.toml``).

The texts are written in British English; ``respell(text, "us")`` gives them in US spelling,
word by word from the list (a capitalised word keeps its capital: "Organisation" ->
"Organization"). Only the service's own words are respelled, never a quotation.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache

from common.datafiles import DATA

PATH = DATA / "text" / "spelling.toml"


@cache
def _words(spelling: str) -> dict[str, str]:
    with PATH.open("rb") as handle:
        table = tomllib.load(handle).get(spelling, {})
    return {british.replace("_", " "): us for british, us in table.items()}


@cache
def _pattern(spelling: str) -> re.Pattern[str] | None:
    words = sorted(_words(spelling), key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def respell(text: str, spelling: str | None) -> str:
    """``text`` in ``spelling`` ("us"); unchanged for None or a spelling with no list."""
    pattern = _pattern(spelling) if spelling else None
    if pattern is None or spelling is None:
        return text
    words = _words(spelling)

    def swap(match: re.Match[str]) -> str:
        found = match.group(0)
        us = words[found.lower()]
        return us[:1].upper() + us[1:] if found[:1].isupper() else us

    return pattern.sub(swap, text)
