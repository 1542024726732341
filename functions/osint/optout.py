"""The opt-out list: people who asked not to be profiled. Operators keep it with
``python -m admin osint-optout add|remove|list --name "First Last"``; a person profile of
someone on it is refused with 403 ``subject_opted_out`` before anything is searched.

A person is listed under the short key of their folded name (first and last word:
``names.short_key``), so "Dana J. Whitfield", "dana whitfield" and "Dána Whitfield" are all the
same entry; a homonym of someone on the list is refused too (the service cannot tell them
apart by name alone, and refusing a profile harms no one). Each entry also keeps the name as the
operator typed it and when it was added: an operator answering "am I on your list?" or
removing someone must be able to read it, and a hash of a name would not protect it (names
are easy to guess) while making the list unreadable. Decision 0029.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from common.firestore import OSINT_OPTOUTS, get_db
from functions.osint import names


@dataclass(frozen=True)
class OptOut:
    name: str
    key: str
    added_at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "key": self.key, "added_at": self.added_at.isoformat()}


def _doc_id(key: str) -> str:
    return hashlib.sha256(f"osint-optout:{key}".encode()).hexdigest()[:40]


def add(name: str) -> tuple[OptOut, bool]:
    """Put a person on the list (idempotent); returns the entry and whether it is new.
    ValueError for a name with fewer than two words (a first name alone would refuse half the
    world)."""
    key = _key(name)
    ref = get_db().collection(OSINT_OPTOUTS).document(_doc_id(key))
    snapshot = ref.get()
    if snapshot.exists:
        return _entry(snapshot.to_dict() or {}), False
    entry = OptOut(" ".join(name.split()), key, datetime.now(UTC))
    ref.set({"name": entry.name, "key": key, "added_at": entry.added_at})
    return entry, True


def remove(name: str) -> bool:
    """Take a person off the list; False when they were not on it."""
    ref = get_db().collection(OSINT_OPTOUTS).document(_doc_id(_key(name)))
    if not ref.get().exists:
        return False
    ref.delete()
    return True


def entries() -> list[OptOut]:
    """The whole list, by name."""
    docs = get_db().collection(OSINT_OPTOUTS).stream()
    return sorted((_entry(doc.to_dict() or {}) for doc in docs), key=lambda e: e.key)


def is_opted_out(first: str, last: str) -> bool:
    """True when the person (by the short key of their name) is on the list."""
    key = names.short_key(f"{first} {last}")
    if not key:
        return False
    return bool(get_db().collection(OSINT_OPTOUTS).document(_doc_id(key)).get().exists)


def _key(name: str) -> str:
    key = names.short_key(name)
    if len(key.split()) < 2:
        raise ValueError("Give a first and a last name, e.g. --name 'Dana Whitfield'.")
    return key


def _entry(data: dict[str, Any]) -> OptOut:
    return OptOut(str(data.get("name", "")), str(data.get("key", "")), data["added_at"])
