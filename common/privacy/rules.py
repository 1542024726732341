"""The screen's data: ``data/privacy/screen.toml`` (categories, person words, titles, what
obfuscation to read through), the wordings of other languages (``data/privacy/languages/*.toml``,
merged into it: a language adds patterns and examples to the categories screen.toml defines,
and its own person words) and ``data/privacy/given_names.txt``, validated on first use
(common.datafiles, decision 0020) and compiled once. No I/O but those files."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Literal, get_args

from pydantic import Field, model_validator

from common.datafiles import DATA, Content, Line, LowerLine, LowerWords, Pattern, Words, load

PERSON = "{person}"
PARTY = "{party}"

Label = Literal[
    "contact",
    "home",
    "age",
    "family",
    "health",
    "pregnancy",
    "religion",
    "sexuality_gender",
    "ethnicity",
    "political_union",
    "personal_account",
]
LABELS: tuple[str, ...] = get_args(Label)  # the classifier's personal labels, besides "none"


class Category(Content):
    key: str = Field(pattern=r"^[a-z][a-z_]*$", max_length=40)
    label: Label
    patterns: tuple[Pattern, ...] = ()
    near_person: tuple[Pattern, ...] = ()
    person_bound: bool = False
    private_persons_only: bool = False
    official_accounts: bool = False
    # an organisation's channel (its press line, press@ mailbox, head office) is not a
    # person's contact or home: ``Channels``
    organisation_channels: bool = False
    # the words may be said of an organisation ("the 50-year-old co-op", "the firm turns 100")
    said_of_organisations: bool = False
    # the words may tell a business's history ("founded by his grandfather in 1931")
    business_history: bool = False
    # a sentence one of these finds is not this category's, whatever else it says: "is on the
    # kill floor every morning for the hygiene inspection" is work, not whereabouts
    unless: tuple[Pattern, ...] = ()
    examples: tuple[Line, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _something_to_match(self) -> Category:
        if not self.patterns and not self.near_person:
            raise ValueError("give patterns or near_person (or both)")
        if any(p.count(PERSON) > 1 for p in self.patterns):
            raise ValueError("a pattern may use {person} once")
        return self


class Normalise(Content):
    homoglyphs: str
    number_words: dict[LowerLine, Annotated[str, Field(pattern=r"^[0-9]$")]] = Field(min_length=10)
    at_words: tuple[LowerLine, ...] = Field(min_length=1)
    dot_words: tuple[LowerLine, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _pairs(self) -> Normalise:
        words = self.homoglyphs.split()
        if len(words) % 2 or any(len(w) != 1 for w in words):
            raise ValueError("write pairs of single characters: a look-alike, then its letter")
        return self

    def homoglyph_table(self) -> dict[int, str]:
        words = self.homoglyphs.split()
        return {ord(words[i]): words[i + 1] for i in range(0, len(words), 2)}


class Channels(Content):
    """An organisation's contact channel: a mailbox whose name is a role (``mailboxes``:
    press@, info@, prensa@) or a number or address the sentence gives as an organisation's
    (``cues`` near it: "the press line", "head office", "Pressestelle"), in a sentence with no
    word of a person's own channel (``personal``: mobile, private, WhatsApp, home); a handle
    described as an organisation's (``accounts``: "its official account", "la cuenta oficial
    de la marca")."""

    mailboxes: LowerWords
    cues: tuple[Pattern, ...] = Field(min_length=1)
    personal: tuple[Pattern, ...] = Field(min_length=1)
    reach: int = Field(ge=10, le=200)  # characters around the number a cue may stand in
    # words before a handle that make it an organisation's account, ending at the handle
    accounts: tuple[Pattern, ...] = Field(min_length=1)
    # the first digits of numbers only organisations have (free-call, non-geographic)
    free_numbers: tuple[Annotated[str, Field(pattern=r"^[0-9]{3,4}$")], ...] = ()


class Rules(Content):
    """data/privacy/screen.toml."""

    window: int = Field(ge=10, le=200)
    person_words: tuple[LowerLine, ...] = Field(min_length=1)
    person_nouns: LowerWords
    text_pronouns: tuple[LowerLine, ...] = ()
    name_verbs: LowerWords
    object_words: LowerWords
    record_fields: tuple[LowerLine, ...] = Field(min_length=1)
    animal_words: LowerWords
    organisation_before: LowerWords
    organisation_words: LowerWords
    not_names: Words
    office_titles: tuple[LowerLine, ...] = Field(min_length=1)
    office_title_patterns: tuple[Pattern, ...] = ()
    parties: Words
    # named alternations a pattern uses as {name} (a routine's time, places of work, ...)
    terms: dict[Annotated[str, Field(pattern=r"^[a-z_]+$")], Pattern] = Field(default_factory=dict)
    # nouns for organisations and their places (``said_of_organisations``)
    organisation_nouns: LowerWords = frozenset()
    channels: Channels
    professional_examples: tuple[Line, ...] = Field(min_length=1)
    normalise: Normalise
    category: tuple[Category, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_keys(self) -> Rules:
        keys = [c.key for c in self.category]
        if len(set(keys)) != len(keys):
            raise ValueError("two categories have the same key")
        return self


class Wording(Content):
    """One category's wordings in a language: patterns and near-person words added to the
    category of screen.toml with the same ``key``, and the sentences they must drop."""

    key: str = Field(pattern=r"^[a-z][a-z_]*$", max_length=40)
    patterns: tuple[Pattern, ...] = ()
    near_person: tuple[Pattern, ...] = ()
    examples: tuple[Line, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _something_to_match(self) -> Wording:
        if not self.patterns and not self.near_person:
            raise ValueError("give patterns or near_person (or both)")
        return self


class Language(Content):
    """data/privacy/languages/<code>.toml: a language's words for people and its wordings of
    the categories. Every list is added to screen.toml's; nothing here can loosen the screen
    but ``professional_examples``, which only tests read."""

    language: str = Field(pattern=r"^[a-z]{2}$")
    person_words: tuple[LowerLine, ...] = ()
    person_nouns: LowerWords = frozenset()
    name_verbs: LowerWords = frozenset()
    animal_words: LowerWords = frozenset()
    organisation_words: LowerWords = frozenset()
    not_names: Words = frozenset()
    professional_examples: tuple[Line, ...] = ()
    category: tuple[Wording, ...] = Field(min_length=1)


@cache
def languages() -> tuple[Language, ...]:
    """The language files, by code."""
    from common.datafiles import read

    folder = DATA / "privacy" / "languages"
    return tuple(read(path, Language) for path in sorted(folder.glob("*.toml")))


@cache
def rules() -> Rules:
    """screen.toml with every language file merged in (``Language``)."""
    base = load("privacy/screen.toml", Rules)
    extra = languages()
    if not extra:
        return base
    keys = {c.key for c in base.category}
    for language in extra:
        unknown = [w.key for w in language.category if w.key not in keys]
        if unknown:
            from common.datafiles import ContentError

            raise ContentError(
                f"data/privacy/languages/{language.language}.toml: unknown category "
                f"{', '.join(unknown)} (the keys are screen.toml's)"
            )
    categories = []
    for category in base.category:
        wordings = [w for lang in extra for w in lang.category if w.key == category.key]
        categories.append(
            category.model_copy(
                update={
                    "patterns": category.patterns + tuple(p for w in wordings for p in w.patterns),
                    "near_person": category.near_person
                    + tuple(p for w in wordings for p in w.near_person),
                    "examples": category.examples + tuple(e for w in wordings for e in w.examples),
                }
            )
        )

    def joined(name: str) -> frozenset[str]:
        return getattr(base, name).union(*(getattr(lang, name) for lang in extra))

    return base.model_copy(
        update={
            "person_words": base.person_words
            + tuple(w for lang in extra for w in lang.person_words),
            "person_nouns": joined("person_nouns"),
            "name_verbs": joined("name_verbs"),
            "animal_words": joined("animal_words"),
            "organisation_words": joined("organisation_words"),
            "not_names": joined("not_names"),
            "professional_examples": base.professional_examples
            + tuple(e for lang in extra for e in lang.professional_examples),
            "category": tuple(categories),
        }
    )


@cache
def given_names() -> frozenset[str]:
    """data/privacy/given_names.txt: lower-case given names, one per line."""
    text = (DATA / "privacy" / "given_names.txt").read_text(encoding="utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


@cache
def world_given_names() -> frozenset[str]:
    """``given_names`` and data/privacy/given_names_world.txt (given names from many countries,
    written by ``python -m devtools.given_names``): for names written all in capitals or all in
    lower case, where nothing else marks a word as a name."""
    text = (DATA / "privacy" / "given_names_world.txt").read_text(encoding="utf-8")
    return given_names() | frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


@cache
def organisation_words() -> frozenset[str]:
    """Words that make a capitalised run an organisation's or a place's name: this file's and
    the shared list of organisations' last words (data/text/organisations.toml)."""
    from common.language import organisations

    return rules().organisation_words | organisations.all_words()


@cache
def animal_words() -> frozenset[str]:
    return rules().animal_words


@cache
def never_names() -> frozenset[str]:
    """Capitalised words (as written) that never name a person on their own: this file's,
    the offline engine's (sentence words, jurisdictions), months, days, nationalities."""
    from common.language.lexicon import entities, not_names

    return rules().not_names | not_names() | entities().not_companies


@dataclass(frozen=True)
class Compiled:
    key: str
    label: str
    patterns: tuple[re.Pattern[str], ...]  # need no person
    anchored: tuple[re.Pattern[str], ...]  # {person} replaced by the person-reference pattern
    near: re.Pattern[str] | None
    person_bound: bool
    private_persons_only: bool
    official_accounts: bool
    organisation_channels: bool
    said_of_organisations: bool
    business_history: bool
    unless: tuple[re.Pattern[str], ...]

    @property
    def judges_organisations(self) -> bool:
        """Some of its matches may be judged an organisation's (``screen._an_organisations``)."""
        return (
            self.official_accounts
            or self.organisation_channels
            or self.said_of_organisations
            or self.business_history
        )


# A reference to a person in a pattern: a person word or noun ("she", "the manager"), or a
# capitalised word, possibly with a possessive, in the group ``person``; the screen accepts the
# match only when ``people.references`` found a person there (not "Hens" in "Hens live in").
def _person_alternation() -> str:
    every = [*rules().person_words, *rules().person_nouns]
    words = sorted((re.escape(w) for w in every), key=len, reverse=True)
    word = rf"(?i:{'|'.join(words)})"
    name = r"(?-i:[A-Z][\w\u2019'-]*[a-z][\w\u2019'-]*)"
    return rf"(?<!\w)(?P<person>{word}|{name})(?:['\u2019]s)?(?!\w)"


@cache
def _party_alternation() -> str:
    """The parties and unions by name, as written (``parties``; "Sinn_Féin" is "Sinn Féin")."""
    names = sorted((re.escape(n.replace("_", " ")) for n in rules().parties), key=len, reverse=True)
    return rf"(?<!\w)(?-i:(?:{'|'.join(names)}))(?!\w)"


def expand(pattern: str) -> str:
    """``pattern`` with ``{party}`` and the named ``terms`` ({routine}, ...) written out."""
    pattern = pattern.replace(PARTY, _party_alternation())
    for name, alternation in rules().terms.items():
        pattern = pattern.replace("{" + name + "}", f"(?:{alternation})")
    return pattern


@cache
def compiled() -> tuple[Compiled, ...]:
    person = _person_alternation()
    found = []
    for category in rules().category:
        patterns = [expand(p) for p in category.patterns]
        plain = tuple(re.compile(p, re.IGNORECASE) for p in patterns if PERSON not in p)
        anchored = tuple(
            re.compile(p.replace(PERSON, person), re.IGNORECASE) for p in patterns if PERSON in p
        )
        near = (
            re.compile(
                "|".join(f"(?<!\\w)(?:{expand(p)})(?!\\w)" for p in category.near_person),
                re.IGNORECASE,
            )
            if category.near_person
            else None
        )
        found.append(
            Compiled(
                category.key,
                category.label,
                plain,
                anchored,
                near,
                category.person_bound,
                category.private_persons_only,
                category.official_accounts,
                category.organisation_channels,
                category.said_of_organisations,
                category.business_history,
                tuple(re.compile(expand(p), re.IGNORECASE) for p in category.unless),
            )
        )
    return tuple(found)


def label_of(key: str) -> str:
    """The classifier label a category key counts for (a label is its own)."""
    for category in rules().category:
        if category.key == key:
            return category.label
    return key
