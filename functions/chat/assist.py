"""The assistant at work: a chat message answered with the service's own capabilities.

CREATE_CONTENT gets the draft itself (``functions.content``); GENERAL_CHAT and LEGAL_HELP get
the knowledge passages that answer them, as sentences with their sources (LEGAL_HELP within
the jurisdiction's notes when one is named); INVESTIGATE_COMPANY and RESEARCH_INDIVIDUAL get
the matching records of the search tables (a person only in their public role); TRACK_ISSUES
gets the exact subscription to create. An answer that did none of this (a greeting, a request
with nothing to go on, a topic the knowledge base does not cover) has ``helped`` False and is
not billed. What it quotes (knowledge sentences, record lines, profile findings) has passed the
personal-data screen (``common.privacy``, decision 0037); the words around the work are data
(data/offline/assistant.toml).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Annotated, Any

from common import privacy
from common.datafiles import Content, Line, LowerWords, Pattern, Prose, Template, load
from common.errors import (
    DraftDoesNotFit,
    InvalidRequest,
    NotAnOrganization,
    NotCovered,
    SubjectOptedOut,
)
from common.language import clip, gazetteer
from common.language.message import Message, annotate
from common.language.sentences import split
from common.offline import companies
from common.search import retrieval
from functions.content import compose
from functions.content import service as content
from functions.content.texts import drafts
from functions.knowledge import service as knowledge

KNOWLEDGE_PASSAGES = 6
FOCUS_WEIGHT = 2.0  # the passages found for what a message asks, against its whole text's
FOCUS_PASSAGES = 8  # two searches' passages: what is asked may share no word with the answer
FOCUS_TERMS = 2  # what is asked needs this many search terms to be looked up on its own
QUESTION_CHARS = 500  # what POST /v1/knowledge/search takes
ANSWER_FACTS = 4
# A sentence is quoted in an answer when the relevance judge gives it at least this probability
# of answering the question, alone or with its run (calibrated, whatever the embedder; decision
# 0067). Chosen on bench/relevance.py's dev set, the lowest at which no off-topic message is
# answered and billed: at 0.45 answers are billed for 0.811 of the questions the guides answer,
# off-topic 0 of 26; at 0.4, 0.865 and 2 of 26.
SENTENCE_MIN = 0.45
COUNTED_WITHIN = 3  # a count's figure stands this many words or fewer before what it counts
_WORD = re.compile(r"[a-z][\w'-]*")
RECORDS = 8
FINDINGS = 5
FINDING_CHARS = 300

Source = tuple[str, str | None]  # (title, url)
_CLAUSE = re.compile(r"(?<=[.?!])\s+|\s+[-\u2013\u2014]+\s+")


class AnswerShape(Content):
    """A kind of answer: the questions that ask for it and the sentences that give it."""

    name: Line
    asks: Pattern
    holds: Pattern
    required: bool = False  # asked for a figure: answered with one or not at all
    # the figure counts what the question asks how many of: ``asks`` captures it (``counted``,
    # a word or two), and when those name animals a figure of ``holds`` answers only when the
    # next ``COUNTED_WITHIN`` words name animals too ("1.4 million people" is not how many
    # hens; other things are counted under other names: shareholders as members)
    counts: bool = False


class Texts(Content):
    draft: Annotated[Prose, Template("kind", "where")]
    draft_other_platform: Annotated[Line, Template("asked", "used")]
    draft_needs_topic: Annotated[Prose, Template("kind")]
    not_covered: Annotated[Prose, Template("topic")]
    draft_does_not_fit: Annotated[Prose, Template("topic", "kind", "where")]
    knowledge_intro: Line
    knowledge_none: Prose
    figure_none: Prose
    private_declined: Prose
    private_asks: Pattern
    first_person: Pattern
    protest_at: Pattern
    work_contact: Pattern
    person_roles: Pattern
    animal_before: Pattern
    writer_is: Pattern
    asks_for_action: Pattern
    legal_intro: Annotated[Line, Template("where")]
    legal_none: Annotated[Prose, Template("where")]
    legal_next: Prose
    disclaimer: Prose
    findings_intro: Annotated[Line, Template("subject")]
    profile_intro: Annotated[Line, Template("subject")]
    findings_none: Annotated[Line, Template("subject")]
    company_next: Line
    person_next: Line
    person_scope: Prose
    person_needs_name: Line
    company_needs_name: Line
    opted_out: Annotated[Line, Template()]  # never the name: it would echo who opted out
    not_an_organization: Annotated[Prose, Template("subject")]
    track_proposal: Prose
    track_needs_topics: Prose
    sources_heading: Line
    small_talk: LowerWords
    question_openers: LowerWords
    titles: LowerWords
    answer_shape: tuple[AnswerShape, ...]


@cache
def texts() -> Texts:
    return load("offline/assistant.toml", Texts)


@dataclass
class Answer:
    text: str
    sources: list[Source] = field(default_factory=list)
    helped: bool = True
    citations: list[compose.Citation] = field(default_factory=list)  # one per fact quoted
    refused: bool = False  # the rules refused the subject (opted out): no other route answers
    asks_for_topic: bool = False  # a draft with nothing to draft about: the message named none


# -- CREATE_CONTENT -------------------------------------------------------------------------------


def draft(info: dict[str, Any]) -> Answer:
    """The draft the message asks for, with its sources."""
    rules = drafts()
    asked_type = info.get("contentType") or "social_post"
    content_type = rules.from_chat_types.get(asked_type, asked_type)
    if content_type not in rules.default_platform:
        content_type = "social_post"
    kind = asked_type.replace("_", " ") if asked_type != "social_post" else "post"
    asked = info.get("platform")
    platform = rules.from_chat_platforms.get(asked, asked) if asked else None
    note = ""
    if platform not in rules.platform or content_type not in rules.platform[platform].content_types:
        used = rules.default_platform[content_type]
        if asked and platform != used:
            note = texts().draft_other_platform.format(asked=_label(asked), used=_label(used))
        platform = used
    topic = info.get("topic")
    if not topic:
        return Answer(
            texts().draft_needs_topic.format(kind=kind), helped=False, asks_for_topic=True
        )
    topic = clip(topic, 500)
    spec = compose.Spec(
        topic=topic,
        content_type=content_type,
        platform=platform,
        subject=content.subject(topic, None),  # the facts' subject: the names addressed left out
    )
    where = f" for {_label(platform)}" if platform not in ("email", "web") else ""
    try:
        generated = content.generate(spec)
    except DraftDoesNotFit:
        unfit = texts().draft_does_not_fit
        return Answer(unfit.format(topic=topic, kind=kind, where=where), helped=False)
    except NotCovered:
        return Answer(texts().not_covered.format(topic=topic), helped=False)
    head = texts().draft.format(kind=kind, where=where)
    parts = [head + (f" {note}" if note else ""), generated.content]
    cited = generated.citations
    if platform in ("email", "web"):  # long forms end with their own list of sources
        return Answer("\n\n".join(parts), generated.sources, citations=cited)
    return Answer(_with_sources(parts, generated.sources), generated.sources, citations=cited)


def _label(platform: str) -> str:
    return {"x": "X", "linkedin": "LinkedIn"}.get(platform, platform.title())


# -- GENERAL_CHAT and LEGAL_HELP ------------------------------------------------------------------


def from_knowledge(
    question: str,
    tags: list[str] | None = None,
    admits: Callable[[str | None], bool] | None = None,
    prefer: str | None = None,
    names_place: Callable[[str], bool] | None = None,
) -> tuple[list[compose.Citation], list[Source]]:
    """The sentences of the knowledge passages that answer the question, each with the source
    that holds it, and their documents; nothing when no passage shares a word with it.
    ``admits`` (a document's URL -> bool) leaves out documents that may not be quoted here
    (another jurisdiction's law); sentences naming ``prefer`` (the place), or that
    ``names_place`` finds naming it, come first. A message whose question follows its context
    ("We wrote to them in March and they ignored us. How do we step up the pressure?") is
    looked up for the question first and for the whole message second (``asked``): the
    context's words (eggs, March) otherwise outweigh what is asked (escalation)."""
    focus = asked(question)
    shape = answer_shape(focus or question)
    # every candidate passage: the judge gates the sentences quoted (``answering``)
    hits = knowledge.search(clip(question, QUESTION_CHARS), KNOWLEDGE_PASSAGES, tags, floor=0.0)
    if focus:
        first = knowledge.search(clip(focus, QUESTION_CHARS), KNOWLEDGE_PASSAGES, tags, floor=0.0)
        hits = [
            hit
            for hit, _ in retrieval.fuse(
                [first, hits], _passage_key, FOCUS_PASSAGES, weights=[FOCUS_WEIGHT, 1.0]
            )
        ]
    passages = [compose.Passage.of(h) for h in hits if admits is None or admits(h.get("url"))]
    found = compose.facts(
        question,
        passages,
        require_overlap=True,
        prefer=prefer,
        names_place=names_place,
        focus=focus,
        shape=_compiled(shape.holds) if shape else None,
    )
    found = answering(focus or question, found, shape)
    from common.subjects import optout

    # decisions 0037 and 0058: personal data, and the people on the opt-out list
    verdicts = privacy.screen_many([f.text for f in found], optout.screen_known())
    found = [f for f, verdict in zip(found, verdicts, strict=True) if verdict is None]
    # in reading order: a passage's sentences as it gives them ("A typical ladder starts
    # with..." before "If there is no progress, the next rungs are..."), the best passage
    # first, after the sentences naming the place asked about
    found = sorted(found[:ANSWER_FACTS], key=lambda f: (not f.placed, f.passage, f.position))
    cited = ((passages[f.passage].title, passages[f.passage].url) for f in found)
    return compose.cite(found, passages), list(dict.fromkeys(cited))


def answering(
    question: str, found: list[compose.Fact], shape: AnswerShape | None
) -> list[compose.Fact]:
    """The sentences the relevance judge says answer the question (``SENTENCE_MIN``), read
    alone or with the found sentences next to them in their passage (a run: "A typical ladder
    starts with..." and "If there is no progress, the next rungs are..." answer together what
    neither answers alone); when the question asks for a figure (a ``required`` shape: "how
    many", "how long"), only those that give one."""
    from common.search import relevance

    if shape is not None and shape.required:
        holds = _compiled(shape.holds)
        animals = _counts_animals(question, shape)
        found = [f for f in found if _gives(f.text.lower(), holds, animals)]
    runs = _runs(found)
    joined = [run for run in runs if len(run) > 1]
    scores = relevance.relevance(  # the judge this threshold was chosen with (decision 0067)
        question,
        [f.text for f in found] + [" ".join(found[i].text for i in r) for r in joined],
        judges=relevance.first_judge(),
    )
    kept = {i for i, score in enumerate(scores[: len(found)]) if score >= SENTENCE_MIN}
    for run, score in zip(joined, scores[len(found) :], strict=True):
        if score >= SENTENCE_MIN:
            kept.update(run)
    return [f for i, f in enumerate(found) if i in kept]


def _counts_animals(question: str, shape: AnswerShape) -> bool:
    """Whether a question of a ``counts`` shape asks how many of an animal (``common.language
    .species``: "how many hens", "how many sows")."""
    if not shape.counts:
        return False
    from common.language import species

    match = re.search(shape.asks, question.lower())
    asked_of = match.groupdict().get("counted") if match else None
    return bool(asked_of and species.named(asked_of))


def _gives(sentence: str, holds: re.Pattern[str], animals: bool) -> bool:
    """Whether a sentence (lower case) holds a figure of the shape; when the question counts
    animals (``animals``), one followed within ``COUNTED_WITHIN`` words by words naming an
    animal."""
    from common.language import species

    for figure in holds.finditer(sentence):
        following = _WORD.findall(sentence, figure.end())[:COUNTED_WITHIN]
        if not animals or species.named(" ".join(following)):
            return True
    return False


def _runs(found: list[compose.Fact]) -> list[list[int]]:
    """The indexes of ``found`` grouped in runs: sentences of one passage at consecutive
    positions, in reading order."""
    order = sorted(range(len(found)), key=lambda i: (found[i].passage, found[i].position))
    runs: list[list[int]] = []
    for i in order:
        last = runs[-1][-1] if runs else None
        if (
            last is not None
            and found[last].passage == found[i].passage
            and found[i].position == found[last].position + 1
        ):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def asks_private(message: str | Message) -> bool:
    """The message asks for a person's private details (where they live or will be, their
    personal contact details, family, health): by the rule (``private_signals``), or else, for
    a message that names a person or a private detail (one of the rule's halves), by the
    classifier of such requests (``functions.chat.private``), which reads the message, its
    names masked, and the halves. A message naming neither asks of no one."""
    from functions.chat import private

    annotated = annotate(message)
    found = private_signals(annotated)
    if found.rule or not (found.person or found.detail):  # asks of no one, for nothing private
        return found.rule
    chance = private.probability(
        private.masked(annotated.text, found.names), found.person, found.detail
    )
    return chance >= private.model().threshold


@dataclass(frozen=True)
class PrivateSignals:
    """What the rule reads of a message: the spans of the names it holds (people's in any
    case, and what the company scan takes for a name: the classifier masks them), whether it
    names a person (by name, in any case, or role), whether it names a private detail, and
    whether it names one outside a person's name (the rule)."""

    names: tuple[tuple[int, int], ...]
    person: bool
    detail: bool
    rule: bool


def private_signals(message: str | Message) -> PrivateSignals:
    """The rule's halves and the rule: whether the message names a person (a name of two or
    more words in any case, a title and a name, or a role: "the Crestline Eggs MD"; not the
    writer: "I'm the founder"), whether it names a private detail (``private_asks``) that is
    neither the writer's own ("my address": ``first_person``) nor an animal's ("broiler
    chickens live") nor the home where a protest would be (``protest_at``) nor a workplace's
    (``work_contact``: "her work address"), and whether it names one outside a person's
    name."""
    from common.privacy.people import references

    annotated = annotate(message)
    lowered = annotated.lowered
    names = [
        (r.start, r.end)
        for r in references(annotated)
        if r.kind == "office" or (r.kind == "name" and len(r.text.split()) >= 2)
    ]
    roles = [
        m.span()
        for m in re.finditer(texts().person_roles, lowered)
        if not re.search(texts().writer_is, lowered[: m.start()])
    ]
    persons = names + roles  # a detail inside a name is part of it ("Auction House")
    details = [
        d
        for d in re.finditer(texts().private_asks, lowered)
        if not re.search(texts().first_person, lowered[: d.start()])
        and not re.search(texts().animal_before, lowered[: d.start()])
        and not re.search(texts().protest_at, lowered[: d.end()])
        and not re.search(texts().work_contact, lowered[: d.end()])
    ]
    outside = any(
        not any(start <= d.start() and d.end() <= end for start, end in persons) for d in details
    )
    masked = sorted({*companies.named_spans(annotated), *names})  # both read once per message
    return PrivateSignals(tuple(masked), bool(persons), bool(details), bool(persons) and outside)


def _passage_key(hit: dict[str, Any]) -> tuple[str, str]:
    return hit["title"], hit["passage"]


def asked(message: str) -> str | None:
    """The clauses of a message that ask, when it also gives context: those ending in "?" or
    opening with a question word (data/offline/assistant.toml ``question_openers``), split at
    sentence ends and at a dash between words ("Senator Jensen - which bills has she
    signed?"). None when every clause asks, none does, or what is asked has fewer than two
    search terms of its own ("Is that right??": the context is the question)."""
    from common.language.index import terms

    clauses = [c.strip() for c in _CLAUSE.split(message) if c and c.strip()]
    openers = texts().question_openers
    asking = [
        c for c in clauses if c.endswith("?") or c.split()[0].lower().strip("\"'(") in openers
    ]
    if not asking or len(asking) == len(clauses):
        return None
    focus = " ".join(asking)
    return focus if len(terms(focus)) >= FOCUS_TERMS else None


def answer_shape(asking: str) -> AnswerShape | None:
    """What a sentence answering the question holds, when the question asks for a kind of
    answer (data/offline/assistant.toml ``answer_shape``: "how long" a duration, "how many"
    a quantity, "when" a date); the first kind asked for."""
    lowered = asking.lower()
    for shape in texts().answer_shape:
        if re.search(shape.asks, lowered):
            return shape
    return None


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def small_talk(message: str | Message) -> bool:
    """The message asks for no work: each of its search terms (stop words dropped, stemmed) is
    a small-talk word's ("Hi there! How are you today?", "Thanks!")."""
    return set(annotate(message).terms) <= _small_talk_terms()


@cache
def _small_talk_terms() -> frozenset[str]:
    from common.language.index import terms

    return frozenset(terms(" ".join(texts().small_talk)))


def general(message: str | Message, name: str | None = None) -> Answer:
    """An answer from the knowledge base's sentences that the judge says answer the message;
    with none, an answer that says so plainly and what the assistant can do (not ``helped``:
    not billed). ``name``: a company the message names, whose words are not what it asks
    about (a guide's "provisions" of a law are not "Quillmarsh Provisions")."""
    annotated = annotate(message)
    if not name and re.search(texts().asks_for_action, annotated.lowered):
        from common.offline.companies import company_name

        name = company_name(annotated)  # the target of the writer's next step, not the topic
    question = annotated.text
    if name:
        question = re.sub(re.escape(name), " ", question, flags=re.IGNORECASE)
    facts, sources = from_knowledge(question)
    if not facts:
        shape = answer_shape(asked(question) or question)
        none = texts().figure_none if shape and shape.required else texts().knowledge_none
        return Answer(none, helped=False)
    parts = [texts().knowledge_intro, _bullets([f.text for f in facts])]
    return Answer(_with_sources(parts, sources), sources, citations=facts)


def legal(message: str | Message, info: dict[str, Any], available: Collection[str]) -> Answer:
    """Knowledge notes for the question, within the jurisdiction's when one is named."""
    from functions.legal.jurisdictions import mentioned_in, named_in_sentence, tags_for

    message = annotate(message).text
    named = info.get("jurisdiction")
    place = tags_for(named) if named else mentioned_in(message)
    where = f" for {place.name}" if place else ""
    facts: list[compose.Citation] = []
    sources: list[Source] = []
    follow = [texts().legal_next] if "POST /v1/legal/guidance" in available else []
    if named and place is None:  # a place the service does not know: said, free (0068)
        where = f" for {clip(named, 100)}"
        parts = [texts().legal_none.format(where=where), *follow, texts().disclaimer]
        return Answer("\n\n".join(parts), helped=False)
    if place is None:
        facts, sources = from_knowledge(message, ["legal"])
    elif place.tags:  # a place the knowledge base has no notes on gets none of another's
        chain = set(place.chain)
        facts, sources = from_knowledge(
            message,
            list(place.tags),
            place.admits,
            prefer=f"{place.name} {place.named}",
            names_place=lambda sentence: bool(chain & set(named_in_sentence(sentence))),
        )
    if not facts:
        parts = [texts().legal_none.format(where=where), *follow, texts().disclaimer]
        return Answer("\n\n".join(parts), helped=False)
    intro = texts().legal_intro.format(where=where)
    parts = [intro, _bullets([f.text for f in facts]), *follow, texts().disclaimer]
    return Answer(_with_sources(parts, sources), sources, citations=facts)


# -- INVESTIGATE_COMPANY and RESEARCH_INDIVIDUAL --------------------------------------------------


def company(info: dict[str, Any], available: Collection[str], consumer_id: str) -> Answer:
    """The company profile's first findings (``functions.osint``: campaigns, commitments,
    actions and news, under the OSINT rules and audit), each with its source; the records of
    the search tables that name the company when the profile cannot be built."""
    from functions.osint.service import company_summary

    name = info.get("companyName")
    if not name:
        return Answer(texts().company_needs_name, helped=False)
    follow = [texts().company_next] if "POST /v1/osint/company-profile" in available else []
    try:
        summary = company_summary(name, consumer_id)
    except InvalidRequest:
        return Answer(texts().company_needs_name, helped=False)
    except SubjectOptedOut:
        return Answer(texts().opted_out, helped=False, refused=True)
    except NotAnOrganization:
        return Answer(texts().not_an_organization.format(subject=name), helped=False)
    if summary.complete and summary.findings:
        points = [line[2:] for line in summary.text.splitlines() if line.startswith("- ")]
        sources: list[Source] = [(s["title"], s["url"]) for s in summary.sources]
        parts = [texts().profile_intro.format(subject=name), _bullets(points), *follow]
        cited = [compose.Citation(*point) for point in summary.points]
        return Answer(_with_sources(parts, sources), sources, citations=cited)
    query = " ".join(filter(None, [name, info.get("focus")]))
    records = _records(["campaigns", "actions", "organizations"], query)
    return _findings(name, [r for r in records if _names(r["record"], name)], follow)


def person(info: dict[str, Any], available: Collection[str], message: str | Message = "") -> Answer:
    """The public figure's record: their public role only, and only when the name (and the
    employer, when given) match, so a namesake is never presented as the person. Names match
    without their titles ("Professor Owen Marsh" is "Prof. Owen Marsh"); a record whose
    whole name the message holds matches too ("Meeting Ingrid Solberg in Oslo" was read as
    the name "Meeting Ingrid Solberg")."""
    from common.subjects import optout

    name = info.get("personName")
    if not name:
        return Answer(texts().person_needs_name, helped=False)
    if optout.is_opted_out(name):
        return Answer(texts().opted_out, helped=False, refused=True)
    employer = info.get("companyName")
    records = _records(["public_figures"], " ".join(filter(None, [name, employer])))
    wanted = f" {annotate(message).read(_folded)} "
    named = [
        r
        for r in records
        if (
            _untitled(r["record"].get("name", "")) == _untitled(name)
            or _whole_name_in(r["record"].get("name", ""), wanted)
        )
        and (not employer or _names({"o": r["record"].get("organization", "")}, employer))
    ]
    if any(optout.is_opted_out(r["record"].get("name", "")) for r in named):
        return Answer(texts().opted_out, helped=False, refused=True)
    follow = [texts().person_next] if "POST /v1/osint/personal-profile" in available else []
    answer = _findings(name, named, [*follow, texts().person_scope])
    return answer


def public_figure_named(message: str | Message) -> str | None:
    """The name of a person the public-figures table holds, when the message names them in
    full, in any case ("What is Carla Jensen's position on cage-free eggs?", "who is priya
    raman?"): a question about them is answered with their record, not with knowledge
    passages about something else. One words-only search of that table."""
    return _named_in(message, "public_figures")


def by_title(name: str) -> bool:
    """A person named by a title and one more word ("Dr Fairbanks", "Senator Jensen")."""
    words = name.lower().replace(".", " ").split()
    return len(words) == 2 and words[0] in texts().titles


def not_a_person(name: str | None) -> bool:
    """A name the intent engine took for a person's that is an institution's ("Supreme
    Court", "European Commission"): its last word is an organisation's
    (``data/text/organisations.toml``)."""
    from common.language.organisations import kind_of

    return bool(name) and kind_of(str(name).title()) is not None


def _named_in(message: str | Message, table: str) -> str | None:
    """The ``name`` of a record of ``table`` that the message names in full (two words or
    more, any case, possessive or not), or, for a person, by a title and their last name
    when no other record found has that last name ("Senator Jensen", "dr fairbanks")."""
    annotated = annotate(message)
    wanted = f" {annotated.read(_folded)} "  # "Jensen's" folds to "jensen s": the name stands
    found = _records([table], clip(annotated.text, 500), "text")
    names = [str(hit["record"].get("name") or "") for hit in found]
    for name in names:
        if len(name.split()) >= 2 and f" {_fold(name)} " in wanted:
            return name
    if table != "public_figures":
        return None
    people = [(name, _fold(name).split()[-1]) for name in names if _fold(name)]
    surnames = [surname for _, surname in people]
    for name, surname in people:
        if surnames.count(surname) == 1 and any(
            f" {title} {surname} " in wanted for title in texts().titles
        ):  # "Dr. Fairbanks" folds to "dr fairbanks"
            return name
    return None


def company_in_tables(message: str | Message) -> str | None:
    """The company the message names, knowing the names the tables hold (issue 29): the
    organizations' names and the campaigns' and actions' targets found by one words-only
    search of the three tables ("what is mercado verde doing on eggs" -> "Mercado Verde",
    which the rules miss in lower case), with the curated list and the rules
    (``companies.company_name``). None when that search finds no record."""
    annotated = annotate(message)
    query = clip(annotated.text, 500)
    found = _records(["organizations", "campaigns", "actions"], query, "text")
    field_of = {"organizations": "name", "campaigns": "target", "actions": "target"}
    names = {str(hit["record"].get(field_of[hit["table"]]) or "") for hit in found} - {""}
    if not names:
        return None
    known = gazetteer.index_of(sorted(names))
    named = companies.company_name(annotated, known)
    if named is None:
        return None
    return known.get(gazetteer.fold(named), (named, False))[0]  # the tables' spelling


def organization_named(message: str | Message) -> str | None:
    """The name of an organisation the organizations table holds, when the message names it
    in full ("What does Hen Liberty Project work on?"): the question is answered with its
    record and the campaigns that name it. One words-only search of that table."""
    return _named_in(message, "organizations")


def organization(name: str, available: Collection[str]) -> Answer:
    """An organisation's record, then the campaigns and actions that name it."""
    records = _records(["organizations", "campaigns", "actions"], name)
    named = [r for r in records if _names(r["record"], name)]
    named.sort(key=lambda r: r["table"] != "organizations")  # its own record first
    follow = [texts().company_next] if "POST /v1/osint/company-profile" in available else []
    return _findings(name, named, follow)


def _records(tables: list[str], query: str, search_type: str = "hybrid") -> list[dict[str, Any]]:
    from functions.search import service as search

    return search.search([search.table(t) for t in tables], query, search_type, RECORDS)


def _findings(subject: str, found: list[dict[str, Any]], follow: list[str]) -> Answer:
    if not found:
        return Answer(
            "\n\n".join([texts().findings_none.format(subject=subject), *follow]), helped=False
        )
    from common.subjects import optout

    opted_out = optout.screen_known().opted_out

    def known(hit: dict[str, Any]) -> privacy.Known:
        return replace(_vouched(hit), opted_out=opted_out)

    lines, sources, cited = [], [], []
    for hit in found[:FINDINGS]:
        title, line = _finding(hit["table"], hit["record"])
        if privacy.screen(line, known(hit)) is not None:  # says too much (decisions 0037, 0058)
            continue
        url = hit["record"].get("url") or hit["record"].get("website")
        lines.append(line)
        sources.append((title, url))
        cited.append(compose.Citation(line, url, title))
    if not lines:
        return Answer(
            "\n\n".join([texts().findings_none.format(subject=subject), *follow]), helped=False
        )
    parts = [texts().findings_intro.format(subject=subject), _bullets(lines), *follow]
    return Answer(_with_sources(parts, sources), sources, citations=cited)


def _vouched(hit: dict[str, Any]) -> privacy.Known:
    """What a public-figures record vouches for: its person holds the public office its role
    names (a senator's membership of the Senate is their office, not their private politics)."""
    from functions.osint.guardrails import holds_public_office

    record = hit["record"]
    if hit["table"] != "public_figures" or not holds_public_office(record.get("role")):
        return privacy.NOBODY
    return privacy.Known(public_office=frozenset([str(record.get("name", "")).lower()]))


def _finding(table: str, record: dict[str, Any]) -> tuple[str, str]:
    """(title, one line) of a record: what it is, its status or date, its first sentence."""
    if table == "public_figures":
        title = record["name"]
        role = ", ".join(filter(None, [record.get("role"), record.get("organization")]))
        text = f"{title} ({role}): {record.get('summary', '')}"  # all of it: role and record
    else:
        title = record.get("title") or record.get("name") or ""
        facts = [record.get("status"), record.get("start_date") or record.get("date")]
        detail = ", ".join(str(f) for f in facts if f)
        about = _first_sentence(record.get("description", ""))
        text = f"{title}" + (f" ({detail})" if detail else "") + (f": {about}" if about else "")
    return title, clip(text, FINDING_CHARS)


def _first_sentence(text: str) -> str:
    found = split(text)
    return found[0] if found else text


def _fold(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _folded(message: Message) -> str:
    """The message folded as names are compared (a reading: the person and the tables'
    lookups share it)."""
    return _fold(message.text)


def _whole_name_in(name: str, folded_message: str) -> bool:
    """A name of two words or more (titles aside) stands in the folded message."""
    untitled = _untitled(name)
    return len(untitled.split()) >= 2 and f" {untitled} " in folded_message


def _untitled(name: str) -> str:
    """A person's name folded, without the titles before it ("Dr. Naomi Fairbanks" is
    "naomi fairbanks"); a name that is only a title and a word keeps the word."""
    words = _fold(name).split()
    while len(words) > 1 and words[0] in texts().titles:
        words.pop(0)
    return " ".join(words)


def _names(record: dict[str, Any], name: str) -> bool:
    """Whether the record's text names the company (its words in order; "Ltd" and the like
    may follow)."""
    wanted = _fold(name)
    text = " ".join(_fold(str(v)) for v in record.values() if isinstance(v, str))
    return bool(wanted) and re.search(rf"\b{re.escape(wanted)}\b", text) is not None


# -- TRACK_ISSUES ---------------------------------------------------------------------------------


def track(info: dict[str, Any]) -> Answer:
    """The exact body of the subscription the message asks for; never one that tracks a
    person on the opt-out list (decision 0058)."""
    from common.subjects import optout

    topics, asked = info.get("topics") or [], info.get("keywords") or []
    keywords = optout.without_named(asked)
    if keywords != asked and not topics and not keywords:
        return Answer(texts().opted_out, helped=False, refused=True)
    if not topics and not keywords:
        return Answer(texts().track_needs_topics, helped=False)
    body: dict[str, Any] = {}
    if topics:
        body["topics"] = topics
    if keywords:
        body["custom_keywords"] = keywords
    body["frequency"] = info.get("frequency", "daily")
    shown = json.dumps(body, ensure_ascii=False)
    return Answer(f"{texts().track_proposal}\n\n{shown}")


# -- shared ---------------------------------------------------------------------------------------


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _with_sources(parts: list[str], sources: list[Source]) -> str:
    cited = [f"- {title}" + (f": {url}" if url else "") for title, url in sources]
    if cited:
        parts = [*parts, texts().sources_heading + "\n" + "\n".join(cited)]
    return "\n\n".join(parts)
