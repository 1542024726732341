"""The responsible-use rules of OSINT profiles, enforced in code on every claim before it is
streamed (decision 0029; DESIGN.md §3). No Flask here, no I/O but the data file.

Two checks:

- ``screen(claim, policy)``: the category of personal data a claim contains (email address,
  phone number, street address, postcode, date of birth, family, health, religion, sexuality,
  ethnicity, political or union membership of a private person, licence plate, personal
  account handle), or None. A claim with any is dropped whole -- never redacted in place, since
  what is left of a redacted sentence still points at what was cut -- and counted. The
  patterns are data (``data/osint/guardrails.toml``), each category with examples it must drop
  and a list of professional facts no category may drop, both checked by the tests.
- ``Subject.identifies(text)``: a source counts for a person only when it names them together
  with their professional context (the company, its domain, or their public role); a homonym
  without that context is left out, and shows in the stream only as a count.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache

from pydantic import Field, model_validator

from common.content import Content, Line, LowerLine, Pattern, load
from functions.osint import names

PERSON = "{person}"


class Category(Content):
    key: str = Field(pattern=r"^[a-z][a-z_]*$", max_length=40)
    patterns: tuple[Pattern, ...] = ()
    near_person: tuple[Pattern, ...] = ()
    private_persons_only: bool = False
    professional_exception: bool = False
    examples: tuple[Line, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _something_to_match(self) -> Category:
        if not self.patterns and not self.near_person:
            raise ValueError("give patterns or near_person (or both)")
        return self


class Rules(Content):
    """data/osint/guardrails.toml."""

    window: int = Field(ge=10, le=200)
    person_words: tuple[LowerLine, ...] = Field(min_length=1)
    public_office_roles: tuple[LowerLine, ...] = Field(min_length=1)
    professional_examples: tuple[Line, ...] = Field(min_length=1)
    category: tuple[Category, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_keys(self) -> Rules:
        keys = [c.key for c in self.category]
        if len(set(keys)) != len(keys):
            raise ValueError("two categories have the same key")
        return self


@cache
def rules() -> Rules:
    return load("osint/guardrails.toml", Rules)


@dataclass(frozen=True)
class Policy:
    """What the screen needs to know about the subject of a profile.

    ``person_names``: the profiled person's names (first, last), references to them count like
    "she" for the person-anchored patterns. ``professional_tokens``: folded, space-free forms
    of the company's name and domain; a handle containing one is the company's own account.
    ``public_office``: the person holds public office, so their party or union is public."""

    person_names: tuple[str, ...] = ()
    professional_tokens: tuple[str, ...] = ()
    public_office: bool = False


@dataclass(frozen=True)
class _Compiled:
    key: str
    patterns: tuple[re.Pattern[str], ...]
    anchored: tuple[str, ...]  # patterns with {person}, compiled per policy
    near: re.Pattern[str] | None
    private_persons_only: bool
    professional_exception: bool


@cache
def _compiled() -> tuple[_Compiled, ...]:
    compiled = []
    for category in rules().category:
        plain = tuple(re.compile(p, re.IGNORECASE) for p in category.patterns if PERSON not in p)
        anchored = tuple(p for p in category.patterns if PERSON in p)
        near = (
            re.compile("|".join(f"(?:{p})" for p in category.near_person), re.IGNORECASE)
            if category.near_person
            else None
        )
        compiled.append(
            _Compiled(
                category.key,
                plain,
                anchored,
                near,
                category.private_persons_only,
                category.professional_exception,
            )
        )
    return tuple(compiled)


@lru_cache(maxsize=512)
def _person_alternation(person_names: tuple[str, ...]) -> str:
    words = [re.escape(w) for w in rules().person_words]
    for name in person_names:
        for part in name.split():
            if len(part) >= 2:
                words.append(re.escape(part))
    words.sort(key=len, reverse=True)
    return rf"(?<!\w)(?:{'|'.join(words)})(?:['\u2019]s)?(?!\w)"


@lru_cache(maxsize=512)
def _person_pattern(person_names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(_person_alternation(person_names), re.IGNORECASE)


@lru_cache(maxsize=2048)
def _anchored(pattern: str, person_names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(pattern.replace(PERSON, _person_alternation(person_names)), re.IGNORECASE)


_INVISIBLE = {"Cf", "Cc", "Co", "Cs"}  # format (zero-width...), control, private, surrogates


def clean(text: str) -> str:
    """The text a claim is screened and shown as: compatibility-normalised (a fullwidth
    at sign is "@"), invisible characters removed (a zero-width space must not split an address
    from the screen), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    kept = [
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _INVISIBLE
    ]
    return " ".join("".join(kept).split())


def screen(claim: str, policy: Policy = Policy()) -> str | None:
    """The first category of personal data ``claim`` contains, or None when it may be shown.
    Screen the text as ``clean`` returns it: that is the text to show."""
    text = clean(claim)
    window = rules().window
    for category in _compiled():
        if category.private_persons_only and policy.public_office:
            continue
        for pattern in category.patterns:
            for match in pattern.finditer(text):
                if category.professional_exception and _professional(match.group(0), policy):
                    continue
                return category.key
        for raw in category.anchored:
            if _anchored(raw, policy.person_names).search(text):
                return category.key
        if category.near is not None and _near(text, category.near, policy, window):
            return category.key
    return None


def _near(text: str, terms: re.Pattern[str], policy: Policy, window: int) -> bool:
    found = [m.span() for m in terms.finditer(text)]
    if not found:
        return False
    people = [m.span() for m in _person_pattern(policy.person_names).finditer(text)]
    return any(max(0, max(ts, ps) - min(te, pe)) <= window for ts, te in found for ps, pe in people)


def _professional(handle: str, policy: Policy) -> bool:
    """A handle or account URL that names the company profiled is its official account."""
    compact = names.fold(handle).replace(" ", "")
    return any(token and token in compact for token in policy.professional_tokens)


def holds_public_office(role: str | None) -> bool:
    """True when a public-figures role is a public office (an MP, a senator, a mayor...)."""
    folded = names.fold(role or "")
    return any(names.contains(folded, names.fold(r)) for r in rules().public_office_roles)


@dataclass(frozen=True)
class Subject:
    """Who or what a profile is about, and the professional context a source must show.

    ``first``/``last`` are set for a person; ``companies`` are folded company names (the one
    asked about, the employer on the person's public-figures record) and ``roles`` folded role
    phrases; a person's source must name them together with one of these."""

    kind: str  # "person" or "company"
    first: str = ""
    last: str = ""
    companies: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    public_office: bool = False
    extra_tokens: tuple[str, ...] = field(default=())  # domain labels

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
        """The folded text mentions the company (any of its names) or the role."""
        return any(names.contains(folded, c) for c in (*self.companies, *self.extra_tokens)) or any(
            names.contains(folded, r) for r in self.roles
        )

    def identifies(self, text: str) -> bool:
        """The text names the subject in a way that rules out a homonym: a person together
        with their company or role; a company by its name."""
        folded = names.fold(text)
        if self.kind == "company":
            return self.in_context(folded)
        return names.names_person(folded, self.first, self.last) and self.in_context(folded)

    def mentioned_in(self, sentence: str) -> bool:
        """A sentence of a source that identifies the subject is about them: it names the
        person (full or last name) or the company."""
        folded = names.fold(sentence)
        if self.kind == "company":
            return self.in_context(folded)
        last = names.fold(self.last)
        return names.names_person(folded, self.first, self.last) or names.contains(folded, last)

    def policy(self) -> Policy:
        tokens = tuple(
            sorted({t.replace(" ", "") for t in (*self.companies, *self.extra_tokens) if t})
        )
        people = (self.first, self.last) if self.kind == "person" else ()
        return Policy(
            person_names=tuple(p for p in people if p),
            professional_tokens=tokens,
            public_office=self.public_office,
        )
