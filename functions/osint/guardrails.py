"""Who an OSINT profile is about, and the evidence that ties a source to them (decisions 0029
and 0037). Every claim is screened for personal data by the service-wide screen
(``common.privacy``), which never depends on the subject the caller named; this module decides
which sources are about the subject at all. No Flask here, no I/O.

A person's source counts when it names them together with evidence the records give: their
organisation (or the company asked about, unless it is part of the person's own name), their
role or title next to their name ("Senator Carla Jensen", "Jo Bland MP", "head of
sustainability"), or a fact the records hold (two or more term pairs of their record's summary,
"mink farming phase-out"). A source naming only the person is a namesake, or cannot be told
from one: left out, with its reason, never shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Literal

from common.language import names
from common.privacy import Known

FACT_PAIRS = 2  # term pairs shared with the records that tie a source to the person
TITLE_DISTANCE = 3  # words between a title and the name

# Why a source was left out (the report and the stream show these, never the source's text).
NAMESAKE = "namesake"  # the records say it is someone else of that name
NO_EVIDENCE = "no_evidence"  # names the person, with nothing that ties it to their work
NO_LINK = "no_link"  # nothing to cite


@cache
def _office_titles() -> tuple[str, ...]:
    from common.privacy.rules import rules

    return tuple(names.fold(t) for t in rules().office_titles)


@cache
def _role_titles() -> frozenset[str]:
    """Single words that are titles (office titles and the offline engine's roles)."""
    from common.language.lexicon import entities

    words = {t for t in _office_titles() if " " not in t}
    words |= {names.fold(r) for r in entities().roles if " " not in r}
    return frozenset(words)


def holds_public_office(role: str | None) -> bool:
    """True when a public-figures role is a public office (an MP, a senator, a mayor...)."""
    folded = names.fold(role or "")
    return any(names.contains(folded, t) for t in _office_titles())


def titles_of(role: str | None) -> tuple[str, ...]:
    """The folded titles a role gives: the whole role when it is specific ("head of
    sustainability"), and each title word in it ("state senator" -> "senator")."""
    from common.language.index import terms

    folded = names.fold(role or "")
    found = [folded] if folded and len(terms(folded)) >= 2 else []
    found += [w for w in folded.split() if w in _role_titles()]
    return tuple(dict.fromkeys(found))


def fact_pairs(*texts: str) -> frozenset[tuple[str, str]]:
    """Consecutive search-term pairs of each sentence of ``texts``: the facts a record holds,
    in a form a source that reports them shares ("mink farming phase-out" -> (mink, farm),
    (farm, phase))."""
    from common.language.index import terms
    from common.language.sentences import split

    found: set[tuple[str, str]] = set()
    for text in texts:
        for sentence in split(text or ""):
            found |= set(pairwise(terms(sentence)))
    return frozenset(found)


@dataclass(frozen=True)
class Subject:
    """Who or what a profile is about, and the evidence a source must show.

    ``first``/``last`` are set for a person; ``companies`` are folded company names (the one
    asked about, the employer on the person's public-figures record), ``titles`` folded titles
    from the record's role, ``facts`` term pairs of the record; ``organisations`` the compact
    names of organisations the records hold (their handles are official accounts)."""

    kind: Literal["person", "company"]
    first: str = ""
    last: str = ""
    companies: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    facts: frozenset[tuple[str, str]] = frozenset()
    public_office: bool = False
    extra_tokens: tuple[str, ...] = field(default=())  # domain labels
    organisations: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        return f"{self.first} {self.last}".strip()

    def names(self, text: str) -> bool:
        """The text names the subject: the person's first and last name, or the company."""
        folded = names.fold(text)
        if self.kind == "person":
            return names.names_person(folded, self.first, self.last)
        return self.in_context(folded)

    def in_context(self, folded: str) -> bool:
        """The folded text mentions the company (any of its names)."""
        return any(names.contains(folded, c) for c in (*self.companies, *self.extra_tokens))

    def identifies(self, text: str) -> bool:
        """The text names the subject in a way that rules out a homonym."""
        return self.left_out_because(text) is None

    def left_out_because(self, text: str) -> str | None:
        """None when the text is about the subject; else why not (``NO_EVIDENCE``, or ""
        when it does not name the subject at all)."""
        folded = names.fold(text)
        if self.kind == "company":
            return None if self.in_context(folded) else ""
        pattern = names.person_pattern(names.fold(self.first), names.fold(self.last))
        if not pattern.search(folded):
            return ""
        rest = pattern.sub(" \u2063 ", folded)  # the name itself is no evidence of anything
        if self.in_context(rest):
            return None
        if any(self._titled(rest, title) for title in self.titles):
            return None
        if self.facts and len(fact_pairs(text) & self.facts) >= FACT_PAIRS:
            return None
        return NO_EVIDENCE

    @staticmethod
    def _titled(masked: str, title: str) -> bool:
        if " " in title:  # a specific role anywhere in the source
            return names.contains(masked, title)
        near = rf"(?:^|\s){re.escape(title)}(?:\s+\S+){{0,{TITLE_DISTANCE - 1}}}\s+\u2063"
        after = rf"\u2063(?:\s+\S+){{0,{TITLE_DISTANCE - 1}}}\s+{re.escape(title)}(?:\s|$)"
        return re.search(near, masked) is not None or re.search(after, masked) is not None

    def mentioned_in(self, sentence: str) -> bool:
        """A sentence of a source that identifies the subject is about them: it names the
        person (full or last name) or the company."""
        folded = names.fold(sentence)
        if self.kind == "company":
            return self.in_context(folded)
        last = names.fold(self.last)
        return names.names_person(folded, self.first, self.last) or names.contains(folded, last)

    def known(self) -> Known:
        """What the screen may take from the records about this subject: their names (so a
        surname opening a sentence is a person), public office, official accounts. Never
        anything that makes the screen let more through on the caller's word: the names only
        make it stricter; public office and organisations come from the records."""
        words = frozenset(names.fold(f"{self.first} {self.last}").split())
        office = frozenset([self.display.lower()]) if self.public_office else frozenset()
        return Known(
            names=words if self.kind == "person" else frozenset(),
            public_office=office,
            organisations=frozenset(self.organisations),
        )


def compact(name: str) -> str:
    """An organisation's name folded to letters and digits: its handles contain it."""
    return names.company_core(name).replace(" ", "")
