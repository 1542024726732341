"""The opt-out list: people who asked not to be profiled. Operators keep it with
``python -m admin osint-optout add|remove|list|reindex --name "First Last"``; a profile of
someone on it is refused with 403 ``subject_opted_out`` before anything is searched, on every
door: the person profile, the company profile (a company name that is the person's name), the
assistant, and research and tracking keywords; research items, digests, drafts, answers,
summaries and profiles leave out what names them (decision 0058).

An entry is keyed by the canonical form of the name (``names.canonical``: case, accents and
apostrophes folded, hyphens and spaces alike, every token kept) and stores its tokens. A request
matches an entry when it names the same person with extra or reordered tokens, or with part of
the name left out (``names.same_person``): "Dana Whitfield-Smith" on the list refuses "dana
whitfield-smith", "Dana Whitfield Smith", "Dana J. Whitfield-Smith", "Dana Whitfield-Smith
Said", "Dána Whitfield-Smith" and "Dana Whitfield". Namesakes are refused too (the service
cannot tell them apart by name alone, and refusing a profile harms no one). Each entry keeps the
name as the operator typed it and when it was added: an operator answering "am I on your list?"
or removing someone must be able to read it, and a hash of a name would not protect it (names
are easy to guess) while making the list unreadable. Decisions 0029 and 0037.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from common.adapters.firestore import OSINT, OSINT_OPTOUTS, collection, get_db, locations
from common.config import get_settings
from common.errors import SubjectOptedOut
from common.language import names
from common.privacy import NOBODY, Known

MAX_CANDIDATES = 1000  # entries sharing a token with a request, read to compare


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
    tokens = _tokens(name)
    key = " ".join(tokens)
    for place in locations(OSINT_OPTOUTS):
        snapshot = place.document(_doc_id(key)).get()
        if snapshot.exists:
            return _entry(snapshot.to_dict() or {}), False
    ref = collection(OSINT_OPTOUTS).document(_doc_id(key))
    entry = OptOut(" ".join(name.split()), key, datetime.now(UTC))
    ref.set({"name": entry.name, "key": key, "tokens": list(tokens), "added_at": entry.added_at})
    forget()
    return entry, True


def remove(name: str) -> bool:
    """Take a person off the list, wherever it is kept (``locations``: a removal before an
    upgrade's move must not come back with it); False when they were not on it."""
    doc_id = _doc_id(" ".join(_tokens(name)))
    found = False
    for place in locations(OSINT_OPTOUTS):
        ref = place.document(doc_id)
        if ref.get().exists:
            ref.delete()
            found = True
    forget()
    return found


def entries() -> list[OptOut]:
    """The whole list, by name."""
    found: dict[str, OptOut] = {}
    for place in reversed(locations(OSINT_OPTOUTS)):  # its own database's entry wins
        for doc in place.stream():
            found[doc.id] = _entry(doc.to_dict() or {})
    return sorted(found.values(), key=lambda e: e.key)


def is_opted_out(name: str) -> bool:
    """True when a person of this name (``names.same_person``) is on the list: one query for
    the entries sharing a token with the name, compared in memory."""
    from common.adapters.firestore import field_filter

    asked = names.canonical(name)
    if len(asked) < 2:
        return False
    sharing = field_filter("tokens", "array_contains_any", sorted(set(asked)))
    for place in locations(OSINT_OPTOUTS):
        for doc in place.where(filter=sharing).limit(MAX_CANDIDATES).stream():
            listed = tuple((doc.to_dict() or {}).get("tokens") or ())
            if names.same_person(asked, listed):
                return True
    return False


def reindex() -> int:
    """Rewrite entries made before names were canonical (keyed by first and last word, without
    tokens) under their canonical key; returns how many were rewritten."""
    db = get_db(OSINT)
    moved = 0
    for doc in db.collection(OSINT_OPTOUTS).stream():
        data = doc.to_dict() or {}
        tokens = names.canonical(str(data.get("name") or ""))
        key = " ".join(tokens)
        if data.get("tokens") == list(tokens) and doc.id == _doc_id(key):
            continue
        batch = db.batch()
        batch.set(
            db.collection(OSINT_OPTOUTS).document(_doc_id(key)),
            {**data, "key": key, "tokens": list(tokens)},
        )
        if doc.id != _doc_id(key):
            batch.delete(doc.reference)
        batch.commit()
        moved += 1
    return moved


def _tokens(name: str) -> tuple[str, ...]:
    tokens = names.canonical(name)
    if len(tokens) < 2:
        raise ValueError("Give a first and a last name, e.g. --name 'Dana Whitfield'.")
    return tokens


def _entry(data: dict[str, Any]) -> OptOut:
    return OptOut(str(data.get("name", "")), str(data.get("key", "")), data["added_at"])


# --- the people on the list named in a text --------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """The whole list in memory (``listed``): the screen finds the people on it a text names
    (``common.privacy.screen.opted_out_named``), a keyword door their last names."""

    people: tuple[tuple[str, ...], ...]
    by_last: dict[str, tuple[tuple[str, ...], ...]]


_cache: tuple[float, Listed] | None = None
_cache_lock = threading.Lock()


def listed() -> Listed:
    """The list, read whole at most every OSINT_OPTOUT_CACHE_SECONDS per instance."""
    global _cache
    ttl = get_settings().osint_optout_cache_seconds
    now = time.monotonic()
    with _cache_lock:
        if _cache is not None and now - _cache[0] < ttl:
            return _cache[1]
    people = tuple(
        tuple((doc.to_dict() or {}).get("tokens") or ())
        for place in locations(OSINT_OPTOUTS)
        for doc in place.select(["tokens"]).stream()
    )
    people = tuple(p for p in people if len(p) >= 2)
    by_last: dict[str, list[tuple[str, ...]]] = {}
    for person in people:
        by_last.setdefault(person[-1], []).append(person)
    index = Listed(people, {k: tuple(v) for k, v in by_last.items()})
    with _cache_lock:
        _cache = (now, index)
    return index


def forget() -> None:
    """Drop the list held in memory (after a change made in this process, and in tests)."""
    global _cache
    with _cache_lock:
        _cache = None


def screen_known(base: Known = NOBODY) -> Known:
    """``base`` with the people on the list (``listed``), for the personal-data screen: every
    door that shows text from outside the service screens with it."""
    people = listed().people
    return replace(base, opted_out=people) if people else base


def names_someone(value: str) -> bool:
    """``value`` (a keyword, a name) names a person on the list: by name (``is_opted_out``:
    initials and look-alike letters read through) or by last name alone."""
    tokens = names.canonical(value)
    by_last = listed().by_last
    return any(t in by_last for t in tokens) or (len(tokens) >= 2 and is_opted_out(value))


def without_named(values: list[str]) -> list[str]:
    """``values`` without those that name a person on the list (a subscription made before she
    was listed stops naming her: its runs leave the keyword out)."""
    return [value for value in values if not names_someone(value)]


def refuse_named(values: list[str], what: str) -> None:
    """SubjectOptedOut (403, not billed) when one of ``values`` names a person on the list."""
    if any(names_someone(value) for value in values):
        raise SubjectOptedOut(
            f"One of the {what} names a person who has asked not to be profiled or tracked "
            "by this service; the request was not run and is not billed."
        )
