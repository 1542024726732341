"""The screen itself: a sentence's verdict, a text's kept sentences, a stream's kept sentences.

A sentence is dropped (whole) when, read through its obfuscations (``normalise``):
1. a structured identifier's pattern matches (an email address, a phone number, a numbered
   street address, a postcode, a plate), whoever it belongs to;
2. when the sentence refers to a person (``people``), a person-bound pattern matches: plain
   ones ("his home address", "maternity leave"), ``{person}`` ones ("{person} lives in"), or
   near-person terms within the window of a reference ("pregnant" near "she") -- unless the
   words matched belong to an animal ("pregnant sows", "a 14-year-old horse") or a proper name
   ("Gay Street", "Family Court");
3. or, when it refers to a person and no pattern matched, the classifier finds it personal.

Exceptions, decided by the service's records and the sentence, never by what the caller asked:
a private-persons-only category (party or union membership) is kept when every person the
sentence names holds public office (a title next to the name, or ``Known.public_office``); a
handle or account URL is an official account when its account part is a known organisation's
(``Known.organisations``) or the sentence says it is an organisation's ("its official X
account").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import NamedTuple

from common.language.sentences import split
from common.privacy import classifier, people
from common.privacy.normalise import clean, deobfuscated, for_matching, visible
from common.privacy.rules import (
    Compiled,
    animal_words,
    compiled,
    expand,
    organisation_words,
    rules,
    world_given_names,
)

_ACCOUNT = re.compile(r"@([A-Za-z0-9_.]+)|\.(?:com|app|net|social)/([^\s/?#,;)'\"]+)")


@dataclass(frozen=True)
class Known:
    """What the service's records say about the people and organisations a text may name.

    ``names``: lower-case words of people's names the records hold (a surname at the start
    of a sentence, or written in capitals or lower case, then counts as a person).
    ``opted_out``: the people on the opt-out list (``common.subjects.optout``): a sentence
    that names one of them is dropped ("opted_out"), and so is the sentence after it when it
    names her by surname alone. ``public_office``: lower-case full names of people
    who hold public office. ``organisations``: organisations' names folded to letters and
    digits ("harlowfoods"), whose handles are official accounts. Every field only ever makes
    the screen stricter or exempts what the records vouch for; none may come from a caller."""

    names: frozenset[str] = frozenset()
    public_office: frozenset[str] = frozenset()
    organisations: frozenset[str] = frozenset()
    opted_out: tuple[tuple[str, ...], ...] = ()  # canonical names on the opt-out list


NOBODY = Known()


@dataclass
class Screened:
    text: str
    dropped: Counter[str] = field(default_factory=Counter)


def warm() -> None:
    """Load the screen's patterns, name lists and classifier (``common.http.warmup``): the
    first screen of a process compiles them, a few seconds."""
    screen_many(
        ["Dana Whitfield, the chief executive, announced the pledge.", "She is unwell."],
        in_text=True,
    )


def screen(sentence: str, known: Known = NOBODY) -> str | None:
    """The category of personal data ``sentence`` carries, or None when it may be shown (as
    ``clean`` returns it)."""
    return screen_many([sentence], known)[0]


def screen_many(
    sentences: Sequence[str],
    known: Known = NOBODY,
    *,
    in_text: bool = False,
    about_person: bool = False,
) -> list[str | None]:
    """``screen`` of each sentence, with one classifier batch for all of them.

    ``in_text``: the sentences are consecutive sentences of one text, so a sentence that
    follows one referring to a person is read as about that person even when it names no one
    ("Okafor missed the AGM. Chemotherapy starts next week."): a window of two sentences.
    ``about_person``: every sentence is about a person (the claims of a person's profile)."""
    verdicts: list[str | None] = []
    ask: list[int] = []
    texts: list[str] = []
    offices: list[bool] = []
    previous = False
    previous_office = False  # the person the previous sentence was about holds public office
    for index, sentence in enumerate(sentences):
        text = clean(sentence)
        if known.opted_out and opted_out_named(text, known.opted_out):
            verdicts.append("opted_out")
            previous, previous_office = True, False
            continue
        # A sentence whose subject is an animal ("The sows there are pregnant...") is about
        # the animal, whoever the sentence before it named.
        carried = in_text and previous and people.animal_subject(text) is None
        context = about_person or carried
        office = _public_office_only(text, known, carried and previous_office)
        verdict, refers = _by_rules(text, known, context, office)
        if refers:
            previous, previous_office = True, office
        else:
            previous = False
        verdicts.append(verdict)
        if verdict is None and (refers or context):
            ask.append(index)
            texts.append(text)
            offices.append(office)
    if ask:
        shown = [shown_to_classifier(text, known) for text in texts]
        verdicts_asked = classifier.classify(shown)
        for index, office, text, (label, _) in zip(
            ask, offices, texts, verdicts_asked, strict=True
        ):
            if label is None or (label == "political_union" and office):
                continue
            if label in _judged_an_organisations(text, known):
                continue  # the patterns found those words and judged them the organisation's
            verdicts[index] = label
    return verdicts


def _judged_an_organisations(text: str, known: Known) -> frozenset[str]:
    """The labels whose words the patterns found in ``text`` and judged an organisation's:
    its channel ("the press line, 0800 ..."), its official account ("follow us on
    Instagram @harlowfoods"), its age ("the 12-year-old company") or its history ("founded
    by his grandfather in 1931"). The classifier, which reads the same words, is not asked
    to judge them again."""
    matched = for_matching(text)
    found = set()
    for category in compiled():
        if not category.judges_organisations:
            continue
        near = (category.near,) if category.near is not None else ()
        for pattern in (*category.patterns, *category.anchored, *near):
            plain = pattern in category.patterns
            if any(
                _an_organisations(category, matched, match, known, accounts=plain)
                for match in pattern.finditer(matched)
            ):
                found.add(category.label)
    return frozenset(found)


def opted_out_named(text: str, people_listed: Sequence[tuple[str, ...]]) -> bool:
    """The text names someone on the opt-out list: by full name or initial and last name,
    or by last name alone (a sentence about "Whitfield" may be about her)."""
    from common.language.names import contains, fold, names_listed

    forms = {fold(text), fold(deobfuscated(for_matching(text)))}
    return any(
        names_listed(folded, person) or contains(folded, person[-1])
        for folded in forms
        for person in people_listed
    )


def _by_rules(
    sentence: str, known: Known, context: bool = False, office: bool | None = None
) -> tuple[str | None, bool]:
    """(category by the patterns or None, whether the sentence refers to a person), for a raw
    or an already cleaned sentence (cleaning is idempotent). ``context``: the sentence before
    it referred to a person. ``office``: the people it is about hold public office only
    (``_public_office_only``; worked out here when not given). Obfuscated words ("c4nc3r",
    "p.r.e.g.n.a.n.t") are read as written first, then as what they spell
    (``deobfuscated``)."""
    text = clean(sentence)
    matched = for_matching(text)
    if office is None:
        office = _public_office_only(text, known)
    verdict, refers = _by_rules_on(text, matched, known, context, office)
    if verdict is None:
        plain = deobfuscated(matched)
        if plain != matched:
            again, refers_again = _by_rules_on(text, plain, known, context, office)
            return again, refers or refers_again
    return verdict, refers


def _by_rules_on(
    text: str, matched: str, known: Known, context: bool, office_only: bool
) -> tuple[str | None, bool]:
    refs = people.references(matched, known.names)
    if context and not refs:
        refs = [people.Reference(0, 0, "", "context")]
    for category in compiled():
        if category.private_persons_only and office_only:
            continue
        if _matches(category, matched, refs, known):
            return category.key, bool(refs)
    return None, bool(refs)


def _matches(category: Compiled, text: str, refs: list[people.Reference], known: Known) -> bool:
    if any(pattern.search(text) for pattern in category.unless):
        return False
    for pattern in category.patterns if refs or not category.person_bound else ():
        for match in pattern.finditer(text):
            if _an_organisations(category, text, match, known):
                continue
            if category.person_bound and _about_something_else(text, match):
                continue
            return True
    for pattern in category.anchored:
        for match in pattern.finditer(text):
            if _an_organisations(category, text, match, known, accounts=False):
                continue
            if _anchored_person(match, refs):
                return True
    if category.near is not None and refs:
        window = rules().window
        spans = [
            m.span()
            for m in category.near.finditer(text)
            if not _about_something_else(text, m)
            and not _an_organisations(category, text, m, known, accounts=False)
        ]
        return any(
            max(0, max(ts, ref.start) - min(te, ref.end)) <= window
            for ts, te in spans
            for ref in refs
        )
    return False


def _an_organisations(
    category: Compiled, text: str, match: re.Match[str], known: Known, accounts: bool = True
) -> bool:
    """The words a category's pattern matched are an organisation's, not a person's: its
    official account (``official_accounts``), its channel (``organisation_channels``), its
    age or its history (``_of_the_business``). ``_matches`` passes them over, and the
    classifier is not asked to judge them again (``_judged_an_organisations``). An account
    is judged by the plain patterns only (``accounts``): a pattern anchored on a person
    ("Lidia Mas tiene un canal de YouTube") is that person's, whatever the words before."""
    if (
        accounts
        and category.official_accounts
        and (_official(match.group(0), known) or _organisations_account(text, match.start()))
    ):
        return True
    if category.organisation_channels and _organisations_channel(text, match):
        return True
    return _of_the_business(category, text, match)


def _anchored_person(match: re.Match[str], refs: list[people.Reference]) -> bool:
    """The ``{person}`` of a person-bound pattern is a reference ``people`` found (not "Hens"
    opening "Hens live in cages", nor "Managing" in "Managing partner Oskar Lindgren")."""
    start, end = match.span("person")
    return any(ref.start < end and start < ref.end for ref in refs)


def _about_something_else(text: str, match: re.Match[str]) -> bool:
    """The words matched belong to an animal ("a 14-year-old horse", "pregnant gilts", "the
    giraffe is pregnant") or to a proper name ("Gay Street", "Family Court", "Home
    Office"): not a person's data."""
    following = text[match.end() : match.end() + 40]
    if any(word in animal_words() for word in re.findall(r"[a-z]+", following.lower())[:2]):
        return True
    subject = _SUBJECT_BEFORE.search(text[max(0, match.start() - 50) : match.start()])
    if subject is not None and subject.group(1).lower() in animal_words():
        return True
    named = re.match(r"\s+([A-Z][a-z]+)", following)
    return (
        match.group(0)[:1].isupper()
        and named is not None
        and named.group(1).lower() in organisation_words()
    )


def _of_the_business(category: Compiled, text: str, match: re.Match[str]) -> bool:
    """The words matched are said of an organisation (``said_of_organisations``: its age) or
    of its history (``business_history``: "founded by his grandfather in 1931", "three
    generations of the family have run the mill"), not of a person's private life."""
    if category.said_of_organisations and _said_of_an_organisation(text, match):
        return True
    return category.business_history and _business_history(text, match)


def _business_history(text: str, match: re.Match[str]) -> bool:
    """A founder's lineage in the history of a business: the words matched name kin of
    descent (not a spouse), the sentence tells a founding or a family's ownership
    (``{founding}``) and names an organisation."""
    if not _term("lineage").search(match.group(0)):
        return False
    if _term("founding").search(text) is None:
        return False
    nouns = rules().organisation_nouns | organisation_words()
    words = re.findall(r"[\w-]+", text.lower())
    return "&" in text or any(word in nouns for word in words)  # "Whitlow & Sons"


@cache
def _term(name: str) -> re.Pattern[str]:
    """A named alternation of screen.toml's ``[terms]``, compiled on its own."""
    return re.compile(expand("{" + name + "}"), re.IGNORECASE)


def _said_of_an_organisation(text: str, match: re.Match[str]) -> bool:
    """An organisation's age: an organisation noun right after the match, maybe after a name
    or "family" ("50-YEAR-OLD MEHTA DAIRIES", "a 150-year-old family firm"), ending it, or as
    the subject right before it ("the association turns 60", "la empacadora cumple 70 años").
    A verb first is a person's ("Der 52-Jährige leitet den Betrieb")."""
    nouns = rules().organisation_nouns
    # an age that describes a noun ("a 12-year-old company"), not a date ("born in 1958,
    # will oversee abattoir inspections")
    adjectival = _term("adjectival_age").search(text[match.start() : match.end() + 12])
    following = _NOUN_AFTER.match(text, match.end()) if adjectival is not None else None
    if following is not None and following.group(1).lower().strip("-") in nouns:
        head = re.match(r"\s+([\w-]+)", text[following.end() :])
        if head is None or head.group(1).lower() not in rules().person_nouns:
            return True  # but "a 54-year-old company director", "a dairy farmer"
    if re.search(r"\b(?:its|their)\s+$", text[max(0, match.start() - 10) : match.start()]):
        return True  # "celebrates its 25th birthday"
    found = re.findall(r"\w+", match.group(0).lower())
    if found and found[-1] in nouns:
        return True
    before = text[max(0, match.start() - 60) : match.start()]
    subject = _organisation_before().search(before)
    if subject is None or subject.group(1).lower() not in nouns:
        return False
    # the subject, not the object of a preposition ("Dot at the sanctuary turned 90")
    preceding = re.findall(r"[\w']+", before[: subject.start()].lower())[-1:]
    return not preceding or not _term("preposition").fullmatch(preceding[0])


# After an age: the noun it describes, maybe after "the", a name, "family" or one other
# word ("the auction mart", "MEHTA DAIRIES", "feed plant"), not a verb and its object.
_NOUN_AFTER = re.compile(
    r"(?:-?\s*years?[\s-]old\b)?[\s,]*(?:(?:the|a|an|its|this|that|our|their)\s+)?"
    r"(?:(?:[A-Z][\w'\u2019-]*|family|familial|old|new)\s+){0,2}(?:[a-z]+\s+)??([\w-]+)"
    r"(?![\w'\u2019-])"  # not "Whitfield, 54, the company's founder"
)


# Before an age: its organisation subject after a determiner ("The abattoir, now 72", "the
# co-op's like 80", "the association turns 60"), not "who built Ogun's biggest hatchery,".
@cache
def _organisation_before() -> re.Pattern[str]:
    return re.compile(
        r"\b(?:the|its|their|this|our|la|le|el|die|der|das|l['\u2019])\s+(?:[\w-]+\s+){0,2}?"
        r"([\w-]+?)(?:['\u2019]s)?,?\s+(?:" + expand("{age_linking}") + r"\s+){0,4}$",
        re.IGNORECASE,
    )


def _organisations_channel(text: str, match: re.Match[str]) -> bool:
    """An organisation's email, number or address, not a person's (``rules.Channels``): a role
    mailbox, a free-call number (``free_numbers``), or a number or address with a cue such as
    "the press line" or "head office" within ``reach`` characters and no person's name just
    before it; never in a sentence with a word of a person's own channel."""
    channels = rules().channels
    if _a_persons_channel(text):
        return False
    found = match.group(0)
    if not re.search(r"[\d@]", found):
        return False  # "ring him on", "his mobile number": a person's line, no number given
    if "@" in found:  # a mailbox is an organisation's by its name alone: press@, not bea@
        box = re.split(r"[._+-]", found.split("@")[0].strip().lower())[0]
        return box in channels.mailboxes
    number = re.sub(r"\D", "", found)
    if number.startswith(channels.free_numbers):
        return True  # a free-call number is an organisation's ("0800 917 4420")
    start, end = match.span()
    cues = _channel_patterns().cues
    around = text[max(0, start - channels.reach) : end + channels.reach // 2]
    if not any(cue.search(around) for cue in cues):
        return False
    # a number given right after a person's name is theirs ("call Naledi Sithole on ..."),
    # unless a cue stands between ("ANWAR SIDDIQUI: COMPANY HELPLINE 0345 ...") or the name
    # is the business's ("la poissonnerie de Christian Le Gall, 12 quai Carnot")
    given = world_given_names()
    return not any(
        name.text.split()[0].lower() in given  # a German noun ("Sitz") names no one
        and 0 <= start - name.end <= 30
        and not any(cue.search(text[name.end : end]) for cue in cues)
        and not _a_business_name(text, name.start, name.end)
        for name in _names_in(text)
    )


def _a_business_name(text: str, start: int, end: int) -> bool:
    """The name from ``start`` to ``end`` names a business: after an organisation noun or a
    verb of running it (screen.toml's ``name_of`` and ``owned_by``: "la poissonnerie de
    Christian Le Gall", "die Metzgerei Stoll", "the farm run by Tom Hadley"), or as its
    owner ("Dana Whitfield's shop")."""
    nouns = rules().organisation_nouns
    possessive = text[end - 2 : end] in ("'s", "\u2019s")  # the name may hold its "'s"
    owner = _OWNERS.match(text, end - 2 if possessive else end)
    if owner is not None and any((w or "").lower() in nouns for w in owner.groups()):
        return True
    found = _owned_by().search(text[max(0, start - 60) : start])
    return found is not None and (found.group(1) is None or found.group(1).lower() in nouns)


# After a name: its business ("'s shop", "'s family dairy").
_OWNERS = re.compile(r"['\u2019]s\s+([\w-]+)(?:\s+([\w-]+))?")


@cache
def _owned_by() -> re.Pattern[str]:
    return re.compile(
        r"(?:\b([\w-]+)\s+(?:(?:"
        + expand("{name_of}")
        + r")\s*)?|\b(?:"
        + expand("{owned_by}")
        + r"))\s*$",
        re.IGNORECASE,
    )


@lru_cache(maxsize=256)
def _a_persons_channel(text: str) -> bool:
    """The sentence has a word of a person's own channel (``Channels.personal``): once per
    sentence, however many numbers and handles it holds."""
    return any(pattern.search(text) for pattern in _channel_patterns().personal)


@lru_cache(maxsize=256)
def _names_in(text: str) -> tuple[people.Reference, ...]:
    """``people.every_name`` of a sentence, once for all the numbers in it (a long feed item
    may give hundreds). Immutable, so threads may share it."""
    return tuple(people.every_name(text))


class _ChannelPatterns(NamedTuple):
    """``rules.Channels``' patterns, compiled."""

    cues: tuple[re.Pattern[str], ...]
    personal: tuple[re.Pattern[str], ...]
    accounts: tuple[re.Pattern[str], ...]


@cache
def _channel_patterns() -> _ChannelPatterns:
    channels = rules().channels

    def compiled_all(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(expand(p), re.IGNORECASE) for p in patterns)

    return _ChannelPatterns(
        compiled_all(channels.cues),
        compiled_all(channels.personal),
        compiled_all(channels.accounts),
    )


# The subject right before the words matched, joined to them by a verb of being: "the giraffe
# is pregnant", "the sow was later diagnosed".
_SUBJECT_BEFORE = re.compile(
    r"\b([a-z]+)\s+(?:(?:is|was|are|were|has|had|have|been|being|now|also|still|currently|"
    r"recently|later|not|confirmed|found|thought|believed|to\s+be|heavily|very|visibly|clearly|"
    r"obviously|already|probably|likely)\s+){0,3}$",
    re.IGNORECASE,
)


def _public_office_only(text: str, known: Known, carried: bool = False) -> bool:
    """Every person the sentence names holds public office (by a title next to their name or
    by the records), and there is at least one. Names inside an office holder's apposition
    (", the Plaid Cymru member for the ward,") are the office's, not other people. A sentence
    that names nobody and refers to people only by a title of office ("The Lok Sabha member
    raised...") is about an office holder too, and so is one that names nobody after a
    sentence about an office holder (``carried``: "Senator Jensen introduced the ban. She
    voted for it again.")."""
    named = people.every_name(text, known.names)
    if not named:
        return carried or people.titles_only(text)
    offices = [r for r in named if r.kind == "office" or r.text.lower() in known.public_office]
    covered = [span for r in offices if (span := people.apposition(text, r.end)) is not None]
    others = [
        r for r in named if r not in offices and not any(a <= r.start < b for a, b in covered)
    ]
    return bool(offices) and not others


def _organisations_account(text: str, start: int) -> bool:
    """The account is described as an organisation's ("its official TikTok account", "the
    company's X account, @GreenfieldDairy", "la cuenta oficial de la marca"):
    ``rules.Channels.accounts`` in the 60 characters before it, in a sentence with no word of
    a person's own channel."""
    if _a_persons_channel(text):
        return False  # "the official vet ... writes a personal blog"
    before = text[max(0, start - 60) : start]
    return any(pattern.search(before) for pattern in _channel_patterns().accounts)


_HANDLE_OR_URL = re.compile(r"(?<![\w.@/])@[A-Za-z0-9_.]+|\b[\w.-]+\.(?:com|app|net|social)/\S+")


def shown_to_classifier(text: str, known: Known) -> str:
    """The text the classifier reads: what the patterns have judged an organisation's is left
    out, so its shape is not read as personal: an official account is just "its account",
    and an organisation's mailbox, number or address (``_organisations_channel``) is gone."""
    text = _HANDLE_OR_URL.sub(
        lambda m: (
            "its account"
            if _official(m.group(0), known) or _organisations_account(text, m.start())
            else m.group(0)
        ),
        text,
    )
    kept, at = [], 0
    for start, end in _channel_spans(text):
        if start >= at:
            kept.append(text[at:start])
            at = end
        else:
            at = max(at, end)
    return " ".join("".join([*kept, text[at:]]).split())


def _channel_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` gives an organisation's mailbox, number or address, in order."""
    return sorted(
        match.span()
        for category in compiled()
        if category.organisation_channels
        for pattern in category.patterns
        for match in pattern.finditer(text)
        if _organisations_channel(text, match)
    )


def _official(found: str, known: Known) -> bool:
    """A handle or account URL whose account part is a known organisation's name."""
    if not known.organisations:
        return False
    match = _ACCOUNT.search(found)
    account = (match.group(1) or match.group(2)) if match else ""
    compact = re.sub(r"[^a-z0-9]", "", account.lower())
    return bool(compact) and any(
        len(org) >= 4 and (compact == org or compact.startswith(org) or org.startswith(compact))
        for org in known.organisations
        if len(compact) >= 4
    )


# --- texts and streams ---------------------------------------------------------------------------


def screen_text(text: str, known: Known = NOBODY) -> Screened:
    """``text`` without its sentences that carry personal data, line structure kept (a line
    left empty is removed). Each kept sentence is shown as written, its invisible characters
    removed (``visible``)."""
    lines = text.split("\n")
    pieces = [(i, _line_sentences(line)) for i, line in enumerate(lines)]
    flat = [s for _, found in pieces for _, s in found]
    verdicts = iter(screen_many(flat, known, in_text=True))
    out: list[str] = []
    dropped: Counter[str] = Counter()
    for index, found in pieces:
        if not found:
            out.append(lines[index])
            continue
        kept = []
        for prefix, sentence in found:
            verdict = next(verdicts)
            if verdict is None:
                kept.append(prefix + visible(sentence))
            else:
                dropped[verdict] += 1
        if kept:
            out.append(" ".join(kept))
    return Screened("\n".join(out), dropped)


_BULLET = re.compile(r"^(\s*(?:[-*\u2022]|\d+[.)]|#{1,6})\s+)")


def _line_sentences(line: str) -> list[tuple[str, str]]:
    """(prefix, sentence) of a line: a list bullet or heading mark is kept with the first."""
    if not line.strip():
        return []
    match = _BULLET.match(line)
    prefix = match.group(1) if match else ""
    body = line[len(prefix) :]
    found = split(body)
    return [(prefix if i == 0 else "", s) for i, s in enumerate(found)]


_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]?\s+|\n")


def screen_stream(
    pieces: Iterable[str],
    known: Known = NOBODY,
    on_drop: Callable[[str], None] | None = None,
) -> Iterator[str]:
    """The pieces of a streamed text (an LLM's tokens) with their personal sentences left
    out: text is held back until a sentence ends, then screened and passed on."""
    buffer = ""
    for piece in pieces:
        buffer += piece
        ends = [m.end() for m in _END.finditer(buffer)]
        if not ends:
            continue
        ready, buffer = buffer[: ends[-1]], buffer[ends[-1] :]
        yield from _screened_chunk(ready, known, on_drop)
    if buffer:
        yield from _screened_chunk(buffer, known, on_drop)


def _screened_chunk(
    chunk: str, known: Known, on_drop: Callable[[str], None] | None
) -> Iterator[str]:
    trailing = chunk[len(chunk.rstrip()) :]
    result = screen_text(chunk.rstrip(), known)
    if on_drop is not None:
        for category, count in result.dropped.items():
            for _ in range(count):
                on_drop(category)
    if result.text.strip():
        yield result.text + (trailing or "")
    elif "\n" in trailing:
        yield "\n"
