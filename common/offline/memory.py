"""Memory extraction: the user's organisation, role, cause areas, research topics and
preferences, from the user's own messages. Never emails, phone numbers, street addresses or
other people's names: values that contain them are dropped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from common.offline.entities import _ORG_SUFFIX, person_in, topics_in

_ORG = re.compile(
    r"\b(?:I (?:work|volunteer|campaign) (?:at|for|with)|I(?:'m| am) (?:with|from|at)|"
    r"I(?:'m| am) (?:a|an|the) [a-z -]{2,50}? (?:at|for|with)|"
    r"(?:our|my) (?:organi[sz]ation|group|charity|nonprofit|non-profit|ngo|team|sanctuary)"
    r"(?: is| is called|,)?|we are|we're)\s+((?:the\s+)?[A-Z][\w&'-]*(?:\s+(?:of\s+|for\s+|"
    r"the\s+|&\s+)?[A-Z][\w&'-]*){0,5})"
)
_ROLE_WORDS = ("manager", "director", "coordinator", "campaigner", "researcher", "volunteer",
               "lawyer", "attorney", "organizer", "organiser", "officer", "lead", "head",
               "founder", "writer", "analyst", "strategist", "intern", "advocate", "editor",
               "investigator", "specialist", "executive", "fundraiser")  # fmt: skip
_ROLE = re.compile(r"\bI(?:'m| am) (?:a|an|the|our) ([a-z][a-z -]{2,50}?)(?= at| for| with|"
                   r"[.,!;]|$)", re.IGNORECASE)  # fmt: skip
_RESEARCH = re.compile(r"\b(?:research(?:ing)?|investigat(?:e|ing)|look(?:ing)? into|"
                       r"stud(?:y|ying)|track(?:ing)?|monitor(?:ing)?)\s+(.{3,80}?)(?:[.?!,;]|$)",
                       re.IGNORECASE)  # fmt: skip
_PREFERENCE = re.compile(
    r"\b((?:I|we) (?:prefer|like|want|need) [^.?!]{3,80}|(?:please )?(?:keep it|make it) "
    r"[^.?!]{2,60}|in (?:English|Spanish|French|German|Portuguese|Hindi|Italian|Dutch)|"
    r"(?:formal|casual|friendly|serious|hopeful|urgent|neutral) tone|bullet points?)",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_PHONE = re.compile(r"\+?\d[\d\s().-]{6,}\d")
_ADDRESS = re.compile(r"\b\d{1,5}\s+\w+(?:\s+\w+)*\s+(?:street|st|avenue|ave|road|rd|lane|ln|"
                      r"boulevard|blvd|drive|dr|way|court|ct)\b", re.IGNORECASE)  # fmt: skip


def contact_details(value: str) -> bool:
    return bool(_EMAIL.search(value) or _PHONE.search(value) or _ADDRESS.search(value))


def personal(value: str) -> bool:
    """Whether a value carries personal data: contact details or a person's name."""
    name, _ = person_in(value)
    return contact_details(value) or (bool(name) and not re.search(_ORG_SUFFIX, name))


def _clean(values: list[str], limit: int = 10, *, names_allowed: bool = False) -> list[str]:
    """Trimmed, de-duplicated values without personal data. ``names_allowed`` is for the
    user's own organisation, whose name often looks like a person's ("Hope for Hens")."""
    rejected = contact_details if names_allowed else personal
    kept: list[str] = []
    for value in values:
        value = value.strip(" .,;:")
        if value and not rejected(value) and value.lower() not in {v.lower() for v in kept}:
            kept.append(value[:100])
    return kept[:limit]


def extract_memory(messages: Sequence[dict[str, str]]) -> dict[str, Any]:
    text = "\n".join(m["content"] for m in messages if m["role"] == "user")
    organizations = _clean([m.group(1) for m in _ORG.finditer(text)], 1, names_allowed=True)
    roles = _clean([m.group(1) for m in _ROLE.finditer(text)
                    if any(word in m.group(1).lower() for word in _ROLE_WORDS)], 1)  # fmt: skip
    return {
        "organization": organizations[0] if organizations else None,
        "role": roles[0].lower() if roles else None,
        "causeAreas": topics_in(text),
        "researchTopics": _clean([m.group(1) for m in _RESEARCH.finditer(text)]),
        "preferences": _clean([m.group(1) for m in _PREFERENCE.finditer(text)]),
    }
