"""Memory extraction: the user's organisation, role, cause areas, research topics and
preferences. Never emails, phone numbers, street addresses or anybody's name.

Only closed forms are stored, whichever engine extracted them (``normalize``): cause areas and
topics from the topic catalog, companies only when their name carries a company suffix
("Harlow Foods"), preferences from a fixed vocabulary ("tone: friendly"), a role only when it
is made of lower-case role words, an organisation only when it looks like one. Free text, where
a name could hide, is dropped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from common.datafiles import Content, LowerWords, Words, load
from common.offline.entities import topics_in
from common.text import organisations
from common.topics import is_topic

_ORG = re.compile(
    r"\b(?:I (?:work|volunteer|campaign) (?:at|for|with)|I(?:'m| am) (?:with|from|at)|"
    r"I(?:'m| am) (?:a|an|the) [a-z -]{2,50}? (?:at|for|with)|"
    r"(?:our|my) (?:organi[sz]ation|group|charity|nonprofit|non-profit|ngo|team|sanctuary)"
    r"(?: is| is called|,)?|we are|we're)\s+((?:the\s+)?[A-Z][\w&'-]*(?:\s+(?:of\s+|for\s+|"
    r"in\s+|the\s+|&\s+)?[A-Z][\w&'-]*){0,5})"
)
_ROLE = re.compile(
    r"\bI(?:'m| am) (?:a|an|the|our) ([a-z][a-z -]{2,50}?)(?= at| for| with|"
    r"[.,!;]|$)",
    re.IGNORECASE,
)
_RESEARCH = re.compile(
    r"\b(?:research(?:ing)?|investigat(?:e|ing)|look(?:ing)? into|"
    r"stud(?:y|ying)|track(?:ing)?|monitor(?:ing)?)\s+([^.?!;]{3,120})",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_PHONE = re.compile(r"\+?\d[\d\s().-]{6,}\d")
_ADDRESS = re.compile(
    r"\b\d{1,5}\s+\w+(?:\s+\w+)*\s+(?:street|st|avenue|ave|road|rd|lane|ln|"
    r"boulevard|blvd|drive|dr|way|court|ct)\b",
    re.IGNORECASE,
)


class MemoryWords(Content):
    """data/offline/memory.toml."""

    organization_words: LowerWords
    titles: LowerWords
    role_words: LowerWords
    tones: LowerWords
    short_words: LowerWords
    detailed_words: LowerWords
    languages: Words


@cache
def words() -> MemoryWords:
    return load("offline/memory.toml", MemoryWords)


def _alternatives(values: Iterable[str]) -> str:
    return "|".join(re.escape(v) for v in sorted(values, key=lambda v: (-len(v), v)))


@cache
def _titles() -> re.Pattern[str]:
    return re.compile(rf"^(?:{_alternatives(words().titles)})\b\.?", re.IGNORECASE)


@cache
def _preferences() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern, label) of each preference; ``{}`` in a label is the word found."""
    w = words()
    languages = _alternatives(w.languages)
    return (
        (re.compile(rf"\b({_alternatives(w.tones)})\b(?:\s+tone)?", re.IGNORECASE), "tone: {}"),
        (re.compile(rf"\b({_alternatives(w.short_words)})\b", re.IGNORECASE), "length: short"),
        (
            re.compile(rf"\b({_alternatives(w.detailed_words)})\b", re.IGNORECASE),
            "length: detailed",
        ),
        (re.compile(rf"\bin ({languages})\b", re.IGNORECASE), "language: {}"),
        (
            re.compile(r"\bbullet(?:ed)? (?:points?|lists?)\b", re.IGNORECASE),
            "format: bullet points",
        ),
        (re.compile(r"\btables?\b", re.IGNORECASE), "format: tables"),
        (re.compile(r"\b(?:cite|citations?|sources?)\b", re.IGNORECASE), "format: cite sources"),
    )


@cache
def _preference_cue() -> re.Pattern[str]:
    languages = _alternatives(words().languages)
    return re.compile(
        rf"\b(prefer|like|want|need|please|keep it|make it|always|tone|in (?:{languages}))\b",
        re.IGNORECASE,
    )


@cache
def _closed_preference() -> re.Pattern[str]:
    """The stored forms of preferences: what ``preferences_in`` produces, nothing else."""
    w = words()
    languages = _alternatives(v.lower() for v in w.languages)
    return re.compile(
        rf"^(?:tone: (?:{_alternatives(w.tones)})|length: (?:short|detailed)|"
        rf"format: (?:bullet points|tables|cite sources)|language: (?:{languages}))$"
    )


@cache
def _company() -> re.Pattern[str]:
    """A company's name: capitalised words ending in a company's last word ("Harlow Foods")."""
    return re.compile(rf"\b((?:[A-Z][\w&'-]*\s+){{1,3}}{organisations.company_suffix()})\b")


def contact_details(value: str) -> bool:
    return bool(_EMAIL.search(value) or _PHONE.search(value) or _ADDRESS.search(value))


def organization_like(value: str) -> bool:
    """An organisation's name, not a person's: no title, and an organisation word, an acronym
    or a company suffix in it."""
    parts = value.split()
    if not parts or _titles().match(value) or contact_details(value):
        return False
    return bool(
        {w.lower().strip(".,") for w in parts} & words().organization_words
        or any(len(w) >= 2 and w.isupper() for w in parts)
        or organisations.kind_of(value.rstrip(".")) == "company"
    )


def role_like(value: str) -> bool:
    return (
        value == value.lower()
        and any(w in value for w in words().role_words)
        and not contact_details(value)
        and len(value) <= 60
    )


def companies_in(text: str) -> list[str]:
    return [m.group(1) for m in _company().finditer(text)]


def preferences_in(text: str) -> list[str]:
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if not _preference_cue().search(sentence):
            continue
        for pattern, label in _preferences():
            for match in pattern.finditer(sentence):
                found.append(label.format(match.group(1).lower() if match.groups() else ""))
    return list(dict.fromkeys(found))


def normalize(memory: dict[str, Any]) -> dict[str, Any]:
    """Keep only the closed forms described above; everything else is dropped."""

    def strings(key: str) -> list[str]:
        values = memory.get(key) or []
        return [v.strip() for v in values if isinstance(v, str) and v.strip()]

    organization = memory.get("organization")
    role = memory.get("role")
    topics = [t for t in strings("researchTopics") if is_topic(t)]
    companies = [
        c
        for value in strings("researchTopics")
        for c in companies_in(value)
        if organization_like(c)
    ]
    preferences = [
        p
        for value in strings("preferences")
        for p in (
            [value] if _closed_preference().match(value) else preferences_in(f"I prefer {value}")
        )
    ]
    return {
        "organization": organization.strip()[:100]
        if isinstance(organization, str) and organization_like(organization.strip())
        else None,
        "role": role.strip().lower()[:60]
        if isinstance(role, str) and role_like(role.strip().lower())
        else None,
        "causeAreas": list(
            dict.fromkeys(
                slug
                for value in strings("causeAreas")
                for slug in ([value] if is_topic(value) else topics_in(value))
            )
        )[:20],
        "researchTopics": list(dict.fromkeys(topics + companies))[:20],
        "preferences": list(dict.fromkeys(preferences))[:20],
    }


def extract_memory(messages: Sequence[dict[str, str]]) -> dict[str, Any]:
    text = "\n".join(m["content"] for m in messages if m["role"] == "user")
    research = [m.group(1) for m in _RESEARCH.finditer(text)]
    roles = [m.group(1) for m in _ROLE.finditer(text)]
    organizations = [m.group(1) for m in _ORG.finditer(text)]
    return normalize(
        {
            "organization": next((o for o in organizations if organization_like(o)), None),
            "role": next((r.lower() for r in roles if role_like(r.lower())), None),
            "causeAreas": topics_in(text),
            "researchTopics": [slug for r in research for slug in topics_in(r)]
            + [c for r in research for c in companies_in(r)],
            "preferences": preferences_in(text),
        }
    )
