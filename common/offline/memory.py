"""Memory extraction: the user's organisation, role, cause areas, research topics and
preferences. Never emails, phone numbers, street addresses or anybody's name.

Only closed forms are stored, whichever engine extracted them (``normalize``): cause areas and
topics from the topic catalog, companies only when their name carries a company suffix
("Harlow Foods"), preferences from a fixed vocabulary ("tone: friendly"), a role only when it
is made of lower-case role words, an organisation only when it looks like one. Free text, where
a name could hide, is dropped."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from common.catalog.topics import is_topic
from common.datafiles import Content, LowerWords, Words, load
from common.language import organisations, places
from common.offline.entities import topics_in
from common.privacy.rules import given_names

# Where a user says where they work, however they word it; the organisation is read from what
# follows (``_organisation``). Case is ignored: people type "i work for open cages uk".
_WORKPLACE = re.compile(
    r"\b(?:i\s+(?:work|volunteer|campaign|intern)(?:\s+[a-z-]+){0,3}?\s+(?:at|for|with)|"
    r"i\s+(?:lead|run|manage|coordinate|head|do)\s+(?!(?:a|an|the|my|our)\b)[\w&-]+(?:\s+[\w&-]+){0,2}?\s+(?:at|for)|"
    r"i(?:'m|\s+am)\s+(?:with|from|at|part\s+of|on\s+the\s+team\s+at)|"
    r"i\s+represent|(?:our|my)\s+(?:organi[sz]ation|org|group|charity|nonprofit|non-profit|"
    r"ngo|team|sanctuary)(?:\s+is\s+called|\s+is|,)?|we(?:'re|\s+are)|"
    # "working at X as ...", "our team at X", "we at X", "on behalf of X", "we started X",
    # "Sofia from X" (decision 0092)
    r"working\s+(?:at|for|with)|(?:our|the)\s+team\s+at|we\s+at|on\s+behalf\s+of|"
    r"(?:started|founded|co-founded|set\s+up)|"
    r"(?<![\w'-])(?!(?:greetings|hello|hi|hey|regards|cheers|love|writing|news)\b)"
    r"(?-i:[A-Z])[\w'-]+\s+from)\s+"
    r"(?P<rest>[^.,;:!?()\n]{2,80})",
    re.IGNORECASE,
)
_CONNECTOR = r"\s+(?:at|for|with|from|of)\s+(?P<rest>[^.,;:!?()\n]{2,80})"
# What may stand between "I'm" and the role they give: their name, a comma, an adverb (at most
# four of them: a bounded pattern, so no message can make the search slow).
_BEFORE_ROLE = (
    r"(?:[\s,]+(?:(?-i:[A-Z])[\w'-]*|[a-z][\w'-]*(?=,)|just|now|currently|also|"
    r"actually|the|a|an|our|one\s+of\s+the)){0,4}[\s,]+"
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
    name_stops: LowerWords
    role_not_names: LowerWords
    tones: LowerWords
    short_words: LowerWords
    detailed_words: LowerWords
    languages: Words
    cause_mentions: dict[str, tuple[str, ...]]
    doers: dict[str, str]
    functions: LowerWords
    kept_plural: LowerWords


@cache
def words() -> MemoryWords:
    return load("offline/memory.toml", MemoryWords)


def _alternatives(values: Iterable[str]) -> str:
    return "|".join(re.escape(v) for v in sorted(values, key=lambda v: (-len(v), v)))


@cache
def _introductions() -> tuple[re.Pattern[str], ...]:
    """A role and the organisation after it, said of oneself: "I'm Sam, policy officer at
    Finwatch Collective", "I work as a corporate campaigner for Fur Free Futures", "Jo here,
    campaigns lead at Hen Harbour", "head of investigations at X here"."""
    heads = _alternatives(words().role_words)
    role = (
        rf"(?P<role>(?:[a-z][\w&/-]*\s+){{0,3}}(?:{heads})"
        # "head of campaigns", "Director of Research"; not "chair of Friends" of "Friends of X"
        rf"(?:\s+of(?:\s+[a-z][\w&-]*){{1,3}}?(?!\s+of\b))?)"
    )
    name = r"(?-i:[A-Z])[\w'-]*"
    anchor = (
        r"(?:\bi(?:'m|m|\s+am)|\bi\s+work(?:ed)?\s+as|\bi(?:'ve|\s+have)\s+been|"
        rf"\bworking\s+as|\bi\s+(?:serve|act)\s+as|\bmy\s+name\s+is\s+{name}|"
        rf"(?<![\w'-]){name}\s+here|\bthis\s+is\s+{name})"  # a name from its start: linear
    )
    return (
        re.compile(rf"{anchor}{_BEFORE_ROLE}{role}{_CONNECTOR}", re.IGNORECASE),
        re.compile(
            rf"(?:^|[.!?]\s+|\n)(?:(?:hi|hello|hey|hiya)\b[\s,!.-]*)?(?:{name},\s+)?{role}"
            rf"{_CONNECTOR}",
            re.IGNORECASE,
        ),
        # "Senior policy adviser, Compassion in World Farming, here", "HSI wildlife trade
        # specialist here", "X is where I work as marine scientist", "X - I'm their head of
        # campaigns" (decision 0092)
        re.compile(
            rf"(?:^|[.!?]\s+|\n)(?:(?:hi|hello|hey|hiya)\b[\s,!.-]*)?{role},\s+"
            rf"(?P<rest>[^.,;:!?()\n]{{2,80}}),\s+here\b",
            re.IGNORECASE,
        ),
        re.compile(rf"(?:^|[.!?]\s+)(?P<rest>{_NAMED})\s+{role}\s+here\b", re.IGNORECASE),
        re.compile(
            rf"(?<![\w&'-])(?P<rest>{_NAMED})\s+is\s+where\s+i\s+(?:work|volunteer)\s+as\s+"
            rf"(?:an?\s+|the\s+)?"
            rf"{role}",
            re.IGNORECASE,
        ),
        re.compile(
            rf"^(?P<rest>{_NAMED})\s+[-\u2013\u2014:]\s+i(?:'m|\s+am)\s+(?:their|the|its)\s+{role}",
            re.IGNORECASE,
        ),
        # "As a student researcher at ...", "I work for X as an investigator"
        re.compile(
            rf"(?:\bi\b[^.!?\n]{{0,80}}?\bas|\bworking\b[^.!?\n]{{0,80}}?\bas|(?:^|[.!?]\s+|\n)as)"
            rf"\s+(?:(?:a|an|the|our)\s+)?{role}"
            rf"(?:{_CONNECTOR}|(?=[\s.,;!?]|$))",
            re.IGNORECASE,
        ),
        # a role and no organisation: "I'm a volunteer.", "I'm head of campaigns, and ..."
        re.compile(
            rf"{anchor}{_BEFORE_ROLE}{role}"
            rf"(?=\s*[.,;!?]|\s+(?:and|but|so|here|there|[a-z]+ing)\b|\s*$)",
            re.IGNORECASE,
        ),
    )


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
    """A role as a job title is written: up to three words before a role word, then perhaps
    "of" an area ("senior campaign manager", "head of investigations"), in lower case, with
    no given name in it ("assistant to maría garcía" is not a role)."""
    return (
        value == value.lower()
        and len(value) <= 60
        and _role_shape().fullmatch(value) is not None
        and not any(
            _folded(word) in given_names() - words().role_not_names for word in value.split()
        )
        and not contact_details(value)
    )


@cache
def _role_shape() -> re.Pattern[str]:
    heads = _alternatives(words().role_words)
    return re.compile(
        rf"(?:[a-z][\w&/-]*\s+){{0,3}}(?:{heads})(?:\s+of(?:\s+[a-z][\w&-]*){{1,3}})?"
    )


def _folded(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()


def _organisation(rest: str) -> str | None:
    """The organisation's name at the start of ``rest`` (what follows "at", "for", "with"):
    a capitalised run (connecting words such as "for", "of", "the" inside it), or, typed in
    lower case, the words before the first of ``name_stops`` (at most five)."""
    called = _CALLED.match(rest)  # "a small rescue called Paws Place"
    if called:
        rest = called.group(1)
    tokens = rest.split()
    if not tokens:
        return None
    if tokens[0].lower() in ("at", "for", "with") and len(tokens) > 1:  # "our team at X"
        tokens = tokens[1:]
    if tokens[0] == "the" and len(tokens) > 1:  # "at the Humane League": not "The Humane League"
        tokens = tokens[1:]
    taken: list[str] = []
    if tokens[0][:1].isupper() or tokens[0][:1].isdigit():
        for i, token in enumerate(tokens[:8]):
            if token.lower() in _PRONOUNS:
                break
            if token.lower() == "in" and places.named(" ".join(tokens[i + 1 : i + 3])):
                break  # "Paws Rescue in Leeds": where it is, not its name
            if (
                token[:1].isupper()
                or token[:1].isdigit()
                or token == "&"  # noqa: S105 - a word of a name, not a secret
                or (token.lower() in _INSIDE_NAMES and taken)
            ):
                taken.append(token)
            else:
                break
        while taken and taken[-1].lower() in _INSIDE_NAMES | {"&"}:
            taken.pop()
        if taken and taken[-1].lower() == "here":
            taken.pop()
    elif tokens[0].lower() not in ("a", "an"):  # "a dog and cat rescue" describes, names none
        stops = words().name_stops
        for token in tokens[:5]:
            if token.lower() in stops:
                break
            taken.append(token)
    name = re.sub(r"['\u2019]s?$", "", " ".join(taken)).strip(" -'")  # "the RSPCA's team"
    return name or None


# "of" and a lower-case area after a role, then the clause's end ("head of campaigns."):
# the role's own, not an organisation
_AREA = re.compile(r"\s+of\s+((?-i:[a-z])[\w&-]*(?:\s+(?-i:[a-z])[\w&-]*){0,2})\s*(?:[.,;!?]|$)")
# what describes an organisation before its name ("a small rescue called Paws Place")
_CALLED = re.compile(r"(?:an?|the|our|my)\s+(?:[\w-]+\s+){0,4}?(?:called|named)\s+(.+)", re.I)


@cache
def _doing() -> re.Pattern[str]:
    """A role said by its verb (``doers``, ``functions``): "I coordinate volunteers", "I head
    up campaigns" (issue 47, decision 0092)."""
    verbs = _alternatives([*words().doers, "head up", "head"])
    return re.compile(
        rf"\bi\s+({verbs})\s+(?:the\s+|our\s+)?({_alternatives(words().functions)})\b",
        re.IGNORECASE,
    )


def _role_by_verb(text: str) -> str | None:
    """The role a person gives by what they do, when it reads as a role (``role_like``)."""
    for match in _doing().finditer(text):
        verb, thing = match.group(1).lower().split()[0], match.group(2).lower()
        if verb == "head":
            role = f"head of {thing}"
        else:
            kept = thing in words().kept_plural or not thing.endswith("s")
            role = f"{thing if kept else thing[:-1]} {words().doers[verb]}"
        if role_like(role):
            return role
    return None


# A capitalised name as people write one ("Hong Kong Dolphin Guardians", "The Humane League UK"),
# at most eight words, joining words inside it
_NAMED = r"(?-i:[A-Z][\w&'-]*(?:\s+(?:(?:of|for|the|and|&)\s+)?[A-Z][\w&'-]*){0,7})"
# Words a role said in a sentence may open with that are not part of it ("as a", "i").
_ROLE_OPENING = re.compile(r"^(?:(?:as|a|an|the|our|my|their|its|i|i'm|im|we)\s+)+")
# Capitalised words that end an organisation's name: "at the University of Leeds I study".
_PRONOUNS = frozenset(
    {
        "i",
        "i'm",
        "im",
        "i've",
        "i'd",
        "i'll",
        "we",
        "we're",
        "we've",
        "our",
        "my",
        "me",
        "us",
        "you",
    }
)
_INSIDE_NAMES = frozenset({"for", "of", "the", "and", "on", "in", "de", "la", "du", "von"})


def _plausible_workplace(name: str) -> bool:
    """An organisation a user said they work for: one ``organization_like`` accepts, or a
    capitalised name that is not a person's (no title, not opening with a given name), or a
    lower-case name of two words or more ("i work at night" names no organisation)."""
    if organization_like(name):
        return True
    if any((places.called(key) or "").lower() == name.lower() for key in places.named(name)):
        return False  # a place ("Greetings from Nairobi")
    if _titles().match(name) or contact_details(name) or len(name) > 100:
        return False
    first = name.split()[0].lower()
    if first in given_names() or first in words().name_stops:
        return False
    return name[:1].isupper() or len(name.split()) >= 2


def introductions(text: str) -> tuple[str | None, str | None]:
    """(organisation, role) the user gave for themselves, the first of each found."""
    organization: str | None = None
    role: str | None = None
    for pattern in _introductions():
        for match in pattern.finditer(text):
            said = _ROLE_OPENING.sub("", re.sub(r"\s+", " ", match.group("role").lower()).strip())
            rest = match.groupdict().get("rest")
            area = _AREA.match(match.string[match.end("role") :])
            if area and "of" not in said.split():  # "head of campaigns. Our focus": its area
                said, rest = f"{said} of {area.group(1).lower()}", None
            if role is None and role_like(said):
                role = said
            name = _organisation(rest) if rest else None
            if organization is None and name and _plausible_workplace(name):
                organization = name
    for match in _WORKPLACE.finditer(text):
        name = _organisation(match.group("rest"))
        if organization is None and name and _plausible_workplace(name):
            organization = name
    return organization, role or _role_by_verb(text)


def causes_in(text: str, organization: str | None) -> list[str]:
    """The topics of what the user says they or their organisation work on: the statements
    (not questions) that speak in the first person, the organisation's own name left out."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if sentence.rstrip().endswith("?") or not _FIRST_PERSON.search(sentence):
            continue
        if organization:
            sentence = re.sub(re.escape(organization), " ", sentence, flags=re.IGNORECASE)
        said = _IDENTITY.sub(" ", _people_named(sentence))
        found += topics_in(said) + [t for t, pattern in _cause_mentions() if pattern.search(said)]
    return list(dict.fromkeys(found))


@cache
def _cause_mentions() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(topic id, its ``cause_mentions``, matched at the start of a word in any case)."""
    found = []
    for topic, phrases in words().cause_mentions.items():
        if not is_topic(topic):
            raise ValueError(f"data/offline/memory.toml cause_mentions: unknown topic {topic!r}")
        found.append((topic, re.compile(rf"\b(?:{_alternatives(phrases)})", re.IGNORECASE)))
    return tuple(found)


def _people_named(sentence: str) -> str:
    """The sentence without the people it names by a given name and a surname ("Peter Singer
    is my hero": no "pet")."""
    return _PERSON.sub(
        lambda m: " " if _folded(m.group(1)).lower() in given_names() else m.group(0), sentence
    )


_PERSON = re.compile(r"\b([A-Z][a-z'-]+)\s+[A-Z][a-z'-]+")
# what a person is or eats, not what they work on ("I'm vegan", "going vegan", "as a
# vegetarian"): no cause area (issue 47, decision 0092)
_IDENTITY = re.compile(
    r"\b(?:i'm|im|i\s+am|going|gone|went|as\s+a|being|became|become)\s+(?:a\s+|fully\s+)?"
    r"(?:vegan|vegetarian|veggie|plant-based)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|we|we're|our|my|me|us)\b", re.IGNORECASE)


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
        if isinstance(organization, str) and _plausible_workplace(organization.strip())
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
    text = text.replace("\u2019", "'")  # a typed apostrophe, however the keyboard wrote it
    research = [m.group(1) for m in _RESEARCH.finditer(text)]
    organization, role = introductions(text)
    return normalize(
        {
            "organization": organization,
            "role": role,
            "causeAreas": causes_in(text, organization),
            "researchTopics": [slug for r in research for slug in topics_in(r)]
            + [c for r in research for c in companies_in(r)],
            "preferences": preferences_in(text),
        }
    )
