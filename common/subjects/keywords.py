"""The person rules at the keyword doors (decision 0058): a research or tracking keyword that
resolves to a person ("Dana Whitfield", "Dr Okafor", "D. Whitfield") is a search about her, so
it takes a place in her day (``limits``, counted on the canonical person whatever the door and
spelling) and is written to the audit log, like a profile. Opted-out people are refused before
this (``optout.refuse_named``).

Research takes the places when the request is admitted (429 past the limit, nothing searched,
not billed). A tracking run takes them when it runs: a keyword whose person has no place left
today is left out of that run, and the audit log says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from common.errors import SubjectRateLimited
from common.language import names
from common.subjects import audit, limits
from common.subjects.resolve import resolve


@dataclass(frozen=True)
class Person:
    keyword: str
    key: str  # the canonical name: the audit log's subject_key


def people(keywords: Iterable[str]) -> list[Person]:
    """The keywords that resolve to a person (no record or opt-out read: the opt-out list is
    checked apart, and a keyword is never an organisation's record)."""
    found = []
    for keyword in keywords:
        resolved = resolve(keyword, check_opt_out=False)
        if resolved.is_person and resolved.person:
            found.append(Person(keyword, " ".join(resolved.person)))
    return found


def admit(
    keywords: Iterable[str], *, consumer_id: str, request_id: str, door: str, channel: str
) -> list[str]:
    """Take a place in the day of each person the keywords name, and record each in the audit
    log. Returns the keywords whose person has no place left today. ``door``: "research"
    (all or nothing: past the limit, the places taken are given back and SubjectRateLimited is
    raised) or "tracking" (the others are still served)."""
    found = people(keywords)
    taken: list[limits.Reservation] = []
    refused: list[str] = []
    error: SubjectRateLimited | None = None
    for person in found:
        try:
            taken.append(limits.admit(person.key))
        except SubjectRateLimited as exc:
            refused.append(person.keyword)
            error = exc
    if error is not None and door == "research":
        for reservation in taken:
            reservation.release()
    for person in found:
        outcome = "refused_rate_limited" if person.keyword in refused else "completed"
        if door == "research" and error is not None and outcome == "completed":
            continue  # the request was refused: only the person past her limit is recorded
        audit.start(
            consumer_id=consumer_id,
            profile=door,
            subject={"keyword": person.keyword},
            subject_key=names.canonical_key(person.key),
            goal=None,
            channel=channel,
            request_id=request_id,
            outcome=outcome,
        )
    if error is not None and door == "research":
        raise error
    return refused
