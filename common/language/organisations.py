"""Organisations' names, recognised by the word they end in: the one list
(``data/text/organisations.toml``) and the one recogniser the research overview, the chat
assistant's extraction and memory, and the personal-data screen share.
"""

from __future__ import annotations

import itertools
import re
from functools import cache
from typing import Literal

from common.datafiles import Content, LowerWords, Words, load

Kind = Literal["company", "organisation", "government"]


class OrganisationWords(Content):
    """data/text/organisations.toml."""

    company: Words
    organisation: Words
    government: Words
    company_likely: LowerWords


@cache
def words() -> OrganisationWords:
    return load("text/organisations.toml", OrganisationWords)


@cache
def suffix_kind() -> dict[str, Kind]:
    """The kind each last word marks (as written: "Foods", "plc"); a word in two lists is of
    the later kind (government last)."""
    data = words()
    found: dict[str, Kind] = {}
    lists: tuple[tuple[Kind, frozenset[str]], ...] = (
        ("company", data.company),
        ("organisation", data.organisation),
        ("government", data.government),
    )
    for kind, suffixes in lists:
        found.update(dict.fromkeys(suffixes, kind))
    return found


def kind_of(name: str) -> Kind | None:
    """The kind of a name of two words or more by its last word ("Harlow Foods": company), or
    a government's by a word of the government list that "of" or "for" follows ("California
    Department of Food and Agriculture"), or None ("Dana Whitfield", "Foods")."""
    parts = [part.rstrip(".,") for part in name.split()]
    if len(parts) < 2:
        return None
    found = suffix_kind().get(parts[-1])
    if found is None and any(
        word in words().government and after in ("of", "for")
        for word, after in itertools.pairwise(parts)
    ):
        return "government"
    return found


@cache
def company_suffix() -> str:
    """A regular expression for a company's last word ("Foods", "Ltd", "Co"), longest first."""
    alternation = "|".join(sorted(map(re.escape, words().company), key=len, reverse=True))
    return rf"(?:{alternation})"


@cache
def company_words() -> frozenset[str]:
    """Every word a company's name may end in, lower case: the sure ones and the likely."""
    return frozenset(w.lower() for w in words().company) | words().company_likely


@cache
def all_words() -> frozenset[str]:
    """Every word of the lists, lower case: an organisation's, not a person's."""
    data = words()
    return company_words() | {w.lower() for w in data.organisation | data.government}
