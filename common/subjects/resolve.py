"""Who a request is about: one answer for every door (decision 0058).

``resolve(name)`` tells an organisation from a person, and returns the canonical person a name
names, if any, from evidence the service holds -- never from what the caller says the name is:

Organisation, in this order:
1. the door's records hold an organisation of this name (``Evidence.organisation``: the
   organizations table), or the curated company list does (``data/text/companies.toml``);
Person:
2. the opt-out list holds the name (``optout.is_opted_out``, with initials and look-alike
   letters read through);
3. a title or honorific opens it ("Dr Whitfield", "Senator Jensen"), or an initial stands
   for the first name ("D. Whitfield");
4. a given name opens it ("Dana Whitfield", "Dana Whitfield & Co") and no organisation word
   ("Foods", "Council") follows; or the public-figures table holds it (``Evidence.person``);
Organisation again:
5. an organisation word ("Harlow Foods"), or a domain given with it;
Person again:
6. two or three words opening with a given name of another country's list
   (``world_given_names``: "Rohan Bhatt"), when no domain says it is a firm's;
Neither:
7. a single word once legal forms and connectors ("Ltd", "& Co", "and") are taken off, which
   could be anyone's surname ("Whitfield", "Whitfield &"): ``kind == "unknown"``;
8. anything else (two or more words with no evidence either way) is taken as an
   organisation, as before.

A name that resolves to a person is served only by the person rules, whatever the door: the
opt-out list (403 ``subject_opted_out``), the per-person daily limit counted on the canonical
person, namesakes by evidence, and the audit log. The company door refuses a person or an
unknown single word (422 ``not_an_organization``); keyword doors refuse opted-out people.
No I/O here but the opt-out list's query (and what the caller's ``Evidence`` reads).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from common.language import names

Kind = Literal["organisation", "person", "unknown"]

# Words that join or end a firm's name without saying what it is: "Whitfield & Co",
# "Whitfield and", "Whitfield + Partners" are still only "Whitfield" (folded: "&" is "and").
_CONNECTORS = frozenset(["and", "co", "cos", "plus", "the"])
_INITIAL = re.compile(r"^\s*[A-Za-z]\s*\.?\s+\S")


@dataclass(frozen=True)
class Evidence:
    """What a door's records say of a name: the organisation record's name, if one matches,
    and whether the public-figures table holds a person of this name."""

    organisation: str | None = None
    person: bool = False


NONE = Evidence()


@dataclass(frozen=True)
class Resolved:
    kind: Kind
    name: str  # as given, whitespace collapsed
    person: tuple[str, ...] = ()  # the canonical person it names (names.canonical)
    organisation: str | None = None  # the organisation's name in the records or the list
    evidence: str = ""  # which rule decided (for logs, tests and the decision record)
    opted_out: bool = False

    @property
    def is_person(self) -> bool:
        return self.kind == "person"


def core(name: str) -> str:
    """The folded name without a leading "the", legal forms and connectors at its end:
    "Whitfield & Co Ltd" -> "whitfield"."""
    words = names.company_core(name).split()
    while len(words) > 1 and words[-1] in _CONNECTORS | names.LEGAL_FORMS:
        words.pop()
    return " ".join(words)


def resolve(
    name: str,
    *,
    domain: str | None = None,
    records: Callable[[str], Evidence] | None = None,
    check_opt_out: bool = True,
) -> Resolved:
    """Who ``name`` is (module docstring). ``records`` reads the door's tables (not called
    when the curated list or the name's shape decides first)."""
    from common.language import gazetteer
    from common.language.confusables import latin
    from common.privacy.rules import given_names, organisation_words, world_given_names
    from common.subjects import optout

    shown = " ".join(latin(name).split())
    folded = core(shown)
    words = folded.split()
    if not words:
        return Resolved("unknown", shown, evidence="empty")
    evidence = records(shown) if records is not None else NONE
    if evidence.organisation:
        return Resolved(
            "organisation", shown, organisation=evidence.organisation, evidence="records"
        )
    listed = gazetteer.exact(shown) or gazetteer.exact(folded)
    if listed:
        return Resolved("organisation", shown, organisation=listed, evidence="company list")
    person = names.canonical(folded)
    if check_opt_out and len(person) >= 2 and optout.is_opted_out(folded):
        return Resolved("person", shown, person, evidence="opt-out list", opted_out=True)
    organisation_word = any(w in organisation_words() for w in words)
    first = shown.split()[0].rstrip(".,").lower()
    titled = first in _titles() and len(words) >= 2
    initial = _INITIAL.match(shown) is not None and len(words) >= 2 and not organisation_word
    given = (
        words[0] in given_names()
        and len(words) <= 4
        and not organisation_word
        and not any(w.isdigit() for w in words)
    )
    if titled or initial or given or evidence.person:
        reason = (
            "title" if titled else "initial" if initial else "given name" if given else "records"
        )
        if titled:
            person = names.canonical(" ".join(folded.split()[1:]))
        return Resolved("person", shown, person, evidence=reason)
    if organisation_word:
        return Resolved("organisation", shown, evidence="organisation word")
    if domain and names.domain_label(domain):
        return Resolved("organisation", shown, evidence="domain")
    if 2 <= len(words) <= 3 and words[0] in world_given_names():
        return Resolved("person", shown, person, evidence="given name elsewhere")
    if len(words) == 1:
        return Resolved("unknown", shown, evidence="single word")
    return Resolved("organisation", shown, evidence="several words")


@cache
def _titles() -> frozenset[str]:
    """Honorifics and single-word titles of office that open a person's name."""
    from common.privacy.rules import rules

    honorifics = {"mr", "mrs", "ms", "mx", "miss", "dr", "sir", "dame", "prof", "professor"}
    return frozenset(honorifics | {t for t in rules().office_titles if " " not in t})
