"""Look-alike letters read as the Latin letters they pass for: a Cyrillic "\u0456" in a name,
a Greek "\u03bf" in "d\u03bfctor", a mathematical bold "\U0001d41a". Names (the opt-out list,
the per-person limit, the resolver) and the personal-data screen compare text through
``latin``, so a name or a word written with look-alikes is the name or the word.

The table is Unicode's own (UTS #39 confusables, as the ``confusable-homoglyphs`` package ships
it): every letter or digit outside ASCII that Unicode lists as confusable with one ASCII letter
or digit is read as it. Letters with accents are not confusables (NFKD handles them where text
is folded). Built on first use (about 30 ms), never at import.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources


@cache
def table() -> dict[int, str]:
    """Code point -> the ASCII letter or digit it passes for."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    mapping: dict[int, str] = {}
    for char, homoglyphs in data.items():
        if len(char) != 1 or char.isascii() or unicodedata.category(char)[0] not in "LN":
            continue
        plain = [h["c"] for h in homoglyphs if len(h["c"]) == 1 and h["c"].isascii()]
        plain = [c for c in plain if c.isalnum()]
        if plain:
            mapping[ord(char)] = plain[0]
    return mapping


def latin(text: str) -> str:
    """``text`` with its look-alike letters and digits read as ASCII (case as Unicode lists
    it: Cyrillic "\u0410" is "A", "\u0430" is "a")."""
    if text.isascii():
        return text
    return text.translate(table())
