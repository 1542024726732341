"""The offline content engine: drafts composed from knowledge-base passages. No I/O here.

Every factual sentence of a draft is a whole sentence of a retrieved passage, kept as written,
so a draft says nothing its sources do not say; what the engine adds is the frame
(data/content/drafts.toml: openings, calls to action, headings and [placeholders] for what
only the author knows). Facts are ranked by how many of the topic's terms they hold, whether
they carry a figure or a date, the passage's rank, and whether they stand on their own (a
sentence opening with "It" or "These" needs the one before it). Platform limits are met by
choosing facts that fit, never by cutting a sentence, unless no whole sentence fits a post
or a thread: then it quotes a sentence's main clause (decision 0079).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from types import MappingProxyType
from typing import Any, TypedDict

from common.catalog.topics import name_of
from common.language import citations, gazetteer, minilm, organisations, places
from common.language.index import terms
from common.language.names import fold
from common.language.sentences import split
from common.offline.entities import topics_in
from common.privacy.rules import given_names
from functions.content import roles, topicality
from functions.content.texts import (
    Committed,
    Drafts,
    Frame,
    advice,
    asked_rest,
    drafts,
    generic_terms,
    instruction_verbs,
    not_facts,
    related,
    trailing_clauses,
)

ADDRESSED = ("letter", "email", "petition")  # content types that ask their audience to act
# content types that call on an organisation whoever reads them (a petition's signers, a press
# release's journalists): the one the topic names when the audience names none
ON_BEHALF = ("petition", "press_release")
MIN_FACT_CHARS = 40
MAX_FACT_CHARS = 450
PER_DOCUMENT = 3  # most facts from one document, so a draft draws on several when it can
SHAPED = 4.0  # a sentence of the kind of answer asked for ("how long": a duration)
PREFERRED = 6.0  # a sentence naming the preferred place outranks any topic overlap short of 3
SIMILAR = 0.6  # share of terms above which a second sentence repeats the first
URL_WEIGHT = 23  # X counts every link as 23 characters
_URL = re.compile(r"https?://\S+")
_DIGIT = re.compile(r"\d")
# A draft quotes first the passages judged at least this share of the best of them (``near``).
# Chosen on the candidate facts of spent sets 25-27 (736 sentences of 141 requests, each
# labelled on or off the request's topic by helpers that read only the request and the
# sentence): drafts with no off-topic sentence 0.51, 0.38, 0.49 -> 0.83, 0.71, 0.79, each set
# alike; facts quoted 0.70, 0.65, 0.66 of the count. With a sentence floor, on set 28 written
# apart and read once: 28 -> 45 of 48 drafts with no off-topic sentence (decision 0084).
NEAR = 0.7
# ... and of their sentences those the topicality model (``topicality``: P(a reader calls the
# sentence on the draft's topic), on its own calibrated scale) gives at least this, while any
# does; else those it gives at least ``ON_TOPIC_LEAST``; else none: a draft with nothing on its
# topic is refused (422 ``topic_not_covered``). Chosen out of fold on the model's training pairs
# (spent sets 25-33, 2,935 candidates of 421 requests; ``devtools.train_topicality``), by
# ``service.COVERAGE_MIN``'s rule: the highest that refuses at most 1.5% of the requests (0.3:
# 5 of 421, 0.012; 0.4 refused 11, 0.026). Drafts whose facts are all on the topic 0.800 ->
# 0.882 (the relevance judge's 0.1 of decision 0084 gave 0.822), facts quoted 0.517 -> 0.468
# of those wanted (decision 0088).
ON_TOPIC = 0.8
ON_TOPIC_LEAST = 0.3
POINTS_BACK = 4.0  # the dependence of a sentence that opens with a word pointing back
_POINTERS = frozenset({"this", "these", "those", "it", "they", "them", "such"})
# a demonstrative among a sentence's first words ("Enforcement of these provisions") leaves it
# nothing of its own to point to; a second word that owns ("Among its recommendations") too
EARLY = 4
_DEMONSTRATIVES = frozenset({"this", "these", "those", "such"})
_OWNERS = frozenset({"its", "their"})
# a pronoun as the subject after an opening clause ("Done badly, it alienates the public"), not
# the "it" that stands for what follows ("In England, it is an offence to ...")
_INTRODUCED = re.compile(
    r"^[^,.;:]{1,40}, (?:they\b|it\b(?! (?:is|was|has|had|became|becomes|will|would|can|may|"
    r"remains|remained|seems|seemed)\b))",
    re.IGNORECASE,
)
_POINTED = re.compile(r"\b(this|these|those|such) ([A-Za-z]+)\b", re.IGNORECASE)
_NAMING = re.compile(r"[A-Z0-9]")  # a name or a date before the pointer says what it points to
# an instrument named by its kind alone, not by its name ("apply the Act to poultry")
_UNNAMED = re.compile(
    r"(?<!^)\bthe (?:Act|Directive|Regulation|Regulations|Code|Bill|Convention|Order|Statute)\b"
    r"(?! of| for| on| \(|\s+[A-Z0-9])"
)
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "our", "your", "their", "its", "my"}
)
LIMITED = ("social_post", "thread")  # the content types a platform's limit can leave empty
_PAIRED = (("\u201c", "\u201d"), ("[", "]"), ("(", ")"), ('"', '"'))  # closed in a cut head
ATTRIBUTED = 0.6  # share of a written sentence's terms one passage sentence must hold
MIN_ATTRIBUTED_TERMS = 4  # shorter sentences ("Act now.") are the writer's own


@dataclass(frozen=True)
class Passage:
    text: str
    title: str
    url: str | None
    section: str
    sources: tuple[citations.Source, ...] = ()  # the document's list of its sources
    score: float | None = None  # the relevance judge's, for the topic (``covering``)
    # for a document with footnotes (decision 0089): each marked sentence and its sources' URLs
    given: tuple[tuple[str, tuple[str, ...]], ...] | None = None

    @classmethod
    def of(cls, hit: dict[str, Any], text: str | None = None) -> Passage:
        """A knowledge search hit as a passage (``text`` in place of its own: screened)."""
        listed = tuple(
            citations.Source(s["title"], s["url"])
            for s in hit.get("sources") or ()
            if s.get("title") and s.get("url")
        )
        passage = hit["passage"] if text is None else text
        score = hit.get("score")
        given = (
            tuple(
                (str(p["sentence"]), tuple(str(u) for u in p.get("urls") or ()))
                for p in hit.get("provenance") or ()
            )
            if hit.get("footnoted")
            else None
        )
        return cls(passage, hit["title"], hit.get("url"), hit["section"], listed, score, given)

    def main_source(self) -> citations.Source | None:
        """The document's own source: its front matter's URL, titled as its list titles it."""
        if not self.url:
            return None
        named = next((s for s in self.sources if s.url == self.url), None)
        return named or citations.Source(self.title, self.url)


@dataclass(frozen=True)
class Citation:
    """One factual sentence and the source it comes from (decision 0042)."""

    text: str
    url: str | None
    title: str


@dataclass(frozen=True)
class Fact:
    text: str
    passage: int  # index into the passages
    score: float
    position: int = 0  # of the sentence in its passage
    leans: bool = False  # opens by pointing back ("It", "The Act"): needs the one before
    placed: bool = False  # names the place preferred (a legal question's jurisdiction)
    whole: str | None = None  # the sentence this is the main clause of (``main_clause``)
    doubtful: bool = False  # the roles model is not sure it is a fact: quoted after clear ones
    lesser: bool = False  # judged on the topic below ``ON_TOPIC``: quoted after those above
    unsure: bool = False  # its source is no sure one (``_sure``): quoted after sure ones


@dataclass(frozen=True)
class Spec:
    """What to draft: a validated request with its defaults applied."""

    topic: str
    content_type: str
    platform: str
    tone: str = "informative"
    audience: str | None = None
    length: str = "medium"
    cta: str | None = None
    committed: str | None = None  # the audience's company, when its records say it committed
    # the organisation the audience names (``organisation_of``), or the topic (``organisation_in``)
    organisation: str | None = None
    subject: str | None = None  # what the facts are about: the topic without the names addressed
    reply_by: date | None = None  # a letter's or an email's date for a reply
    ally: bool = False  # the organisation is one of the records' allies, not one to call on
    mention: str | None = None  # whom a post or a thread opens by calling out ("@Fjordlax")
    given: str | None = None  # the topic as the request gave it, when ``topic`` is its cut


@dataclass
class Draft:
    posts: list[str]
    content: str
    hashtags: list[str]
    facts: list[Fact] = field(default_factory=list)
    citations: list[Citation] | None = None  # ``cite``'s, when the draft already listed them


# -- counting ---------------------------------------------------------------------------------


def _weight(char: str) -> int:
    """X's weight of one code point (twitter-text v3: these ranges count 1, the rest 2)."""
    point = ord(char)
    light = point <= 4351 or 8192 <= point <= 8205 or 8208 <= point <= 8223 or 8242 <= point <= 8247
    return 1 if light else 2


def count(text: str, platform: str) -> int:
    """Characters of ``text`` as the platform counts them: X weighs links and wide characters
    as its own counter does; elsewhere, Unicode code points after NFC normalisation."""
    text = unicodedata.normalize("NFC", text)
    if platform != "x":
        return len(text)
    total, last = 0, 0
    for link in _URL.finditer(text):
        total += sum(_weight(c) for c in text[last : link.start()]) + URL_WEIGHT
        last = link.end()
    return total + sum(_weight(c) for c in text[last:])


# -- facts ------------------------------------------------------------------------------------


def _usable(sentence: str) -> bool:
    if not MIN_FACT_CHARS <= len(sentence) <= MAX_FACT_CHARS:
        return False
    if sentence[-1] not in ".!" or sentence.startswith(("-", "*", "#", "|")):
        return False
    if sentence.count('"') % 2 or sentence.count("(") != sentence.count(")"):
        return False
    return not not_facts().search(sentence.lower())


def _dependence(sentence: str, texts: Drafts, public: bool = False) -> float:
    """How much the sentence leans on the one before it: 4 when it opens with a word that
    points back ("It", "These"), 2 when such a word or a quotation comes early, else 0. For
    public copy (``public``), read without the question that gives an answer its context, 4
    also when a demonstrative comes among its first words ("Enforcement of these provisions";
    not "such as"), "its" or "their" is its second ("Among its recommendations"), a pronoun
    is the subject after an opening clause ("Done badly, it alienates"; not "it is"), a
    demonstrative points to a law that nothing before it names ("A court held this law"; not
    "Sweden banned cages in 1988, and this ban"), or a law is named by its kind alone ("apply
    the Act to poultry")."""
    words = re.findall(r"[A-Za-z']+", sentence[:60].lower())
    if sentence.startswith(('"', "'", "\u201c")) or (words and words[0] in texts.anaphora):
        return POINTS_BACK
    if len(words) > 2 and words[0] == "the" and words[1] in texts.dangling and _ends_name(sentence):
        return POINTS_BACK  # "The Act does not apply...": which Act?
    if public and _leans(sentence, words, texts):
        return POINTS_BACK
    return 2.0 if any(w in _POINTERS for w in words[1:]) else 0.0


def _leans(sentence: str, words: list[str], texts: Drafts) -> bool:
    """``_dependence``'s further readings for public copy."""
    if any(
        w in _DEMONSTRATIVES and not (w == "such" and nxt == "as")
        for w, nxt in itertools.pairwise([*words[: EARLY + 1], ""][: EARLY + 1])
    ):
        return True
    if (len(words) > 1 and words[1] in _OWNERS) or _INTRODUCED.match(sentence):
        return True
    for pointed in _POINTED.finditer(sentence):
        named_before = _NAMING.search(sentence[1 : pointed.start()])
        if pointed.group(2).lower() in texts.dangling and not named_before:
            return True
    return bool(_UNNAMED.search(sentence[:80]))


def _ends_name(sentence: str) -> bool:
    """The sentence's second word is not followed by more of a name ("The Act does...", not
    "The Court of Justice held..." or "The Code Reds"): its third word is lower case and not
    "of"."""
    third = sentence.split()[2] if len(sentence.split()) > 2 else ""
    return third[:1].islower() and third not in ("of", "for", "on")


def facts(
    topic: str,
    passages: Sequence[Passage],
    *,
    require_overlap: bool = False,
    prefer: str | None = None,
    names_place: Callable[[str], bool] | None = None,
    focus: str | None = None,
    shape: re.Pattern[str] | None = None,
    public: bool = False,
    guidance: bool = False,
    judged: bool = True,
    about: str | None = None,
    audience: str | None = None,
    at: frozenset[str] = frozenset(),
    every: bool = False,
    wider: bool = False,
) -> list[Fact]:
    """The passages' sentences that can stand as facts about the topic, best first: each
    holds at least one of the topic's terms (when the topic has none, and unless
    ``require_overlap``, any from the two best passages), and none repeats another. Sentences
    holding a term of ``prefer`` (a place, for a legal question), or that ``names_place``
    finds naming it ("In the US, Rule 14a-8..."), rank first; the terms of ``focus`` (the
    clauses of a message that ask, without its context) count twice; a sentence of the
    ``shape`` the question asks for (a duration for "how long", in lower case) gains as much
    as two shared terms. An answer
    (``require_overlap``) never quotes a sentence that opens by pointing back ("Another is
    escalating too quickly"): alone, it does not say what it is about; public copy
    (``public``: a draft) quotes one only when nothing else is left. Public copy never
    quotes advice written for campaigners ("Close with one clear ask and a date for a
    reply", by the patterns of ``drafts.toml`` and the roles model, ``roles``), unless
    ``guidance``: a topic that is itself campaign practice, whose passages
    say nothing else about it (``compose``). With ``judged`` (the default), public copy also
    quotes only what the roles model calls a fact (``roles``, decision 0080), a doubtful one
    only after every clear one (decision 0087), what is not about a place apart from the
    places the draft is for (``at``: an EU rule is not news to a US diner), while any is
    (decision 0087), what the source it would be cited to holds, while any is (``_held``,
    decision 0086; with ``wider``, the others after those), and, given what the draft is
    ``about`` (its topic without the names it addresses) and its ``audience``, what a reader
    would read as on that topic (``_on_topic``, decision 0088): none when nothing is, and with
    ``wider`` those below ``ON_TOPIC`` too, after those above; and a fact sure of its source
    before one that is not (``_sure``, decision 0089). ``every``: however many of one document
    (the candidates ``devtools.topicality_candidates`` writes for labelling)."""
    texts = drafts()
    asked = set(terms(topic))
    wanted = asked | {other for term in asked for other in related().get(term, ())}
    preferred = set(terms(prefer)) if prefer else set()
    focused = set(terms(focus)) - preferred if focus else set()
    # an answer's sentence shares a word of the question that is neither the place nor a word
    # every document of the corpus uses ("fly a drone over a farm in England": "farm" and
    # "England" alone do not answer it)
    telling = wanted - preferred - (generic_terms() if require_overlap else frozenset())
    found: list[Fact] = []
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(split(passage.text)):
            if not _usable(sentence) or (
                public and not guidance and advice().search(sentence.lower())
            ):
                continue
            dependence = _dependence(sentence, texts, public)
            if require_overlap and dependence >= POINTS_BACK:
                continue
            own = set(terms(sentence))
            overlap = len((wanted - preferred) & own)
            score = 2.0 * (overlap + len(focused & own)) + 2.0 / (1 + rank)
            score += 1.0 if _DIGIT.search(sentence) else 0.0
            score += SHAPED if shape and shape.search(sentence.lower()) else 0.0
            score -= dependence
            placed = bool(preferred & own) or bool(names_place and names_place(sentence))
            # the place outranks any overlap short of 3, counted twice with a focus
            score += PREFERRED * (2 if focused else 1) if placed else 0.0
            score -= 0.002 * max(0, len(sentence) - 220)  # long sentences read badly in posts
            if (overlap and telling & own) or (not wanted and rank < 2 and not require_overlap):
                leans = dependence >= POINTS_BACK
                found.append(Fact(sentence, rank, score, position, leans, placed))
    if public and not guidance and judged and found:  # what the roles model calls facts
        verdicts = roles.judged([(f.text, passages[f.passage].section) for f in found])
        found = [
            replace(f, doubtful=verdict == "doubtful")
            for f, verdict in zip(found, verdicts, strict=True)
            if verdict != "out"
        ]
    if public and at and found:  # not about another place, while any is (decision 0087)
        found = [f for f in found if not _elsewhere(f.text, at)] or found
    if public and any(not f.leans for f in found):  # public copy: no sentence out of context
        found = [f for f in found if not f.leans]
    # what its source holds, while any is (decision 0086); after the sentences out of context
    # go, so "It also requires ..." is not kept for the unheld sentence it leans on
    if public and found:
        held = _held(found, passages)
        if wider and any(held):  # a post the held facts do not fit: the others after them (0089)
            found = [f if h else replace(f, unsure=True) for f, h in zip(found, held, strict=True)]
        else:
            found = [f for f, h in zip(found, held, strict=True) if h] or found
    if public and about and found:  # on the topic, as a reader would read it (decision 0088)
        found = _on_topic(found, passages, about, audience, wider)
    if public and found:  # a fact sure of its source before one that is not (decision 0089)
        sure = _sure(found, passages)
        found = [replace(f, unsure=f.unsure or not s) for f, s in zip(found, sure, strict=True)]
    # a doubtful fact only when no clear one is left to quote (decision 0087)
    found.sort(key=lambda f: (f.lesser, f.doubtful, f.unsure, -f.score, f.passage))
    chosen: list[Fact] = []
    per_document: dict[str, int] = {}
    for fact in found:
        own = set(terms(fact.text))
        if any(_similar(own, set(terms(c.text))) for c in chosen):
            continue
        document = passages[fact.passage].title
        if per_document.get(document, 0) >= PER_DOCUMENT and not every:
            continue
        per_document[document] = per_document.get(document, 0) + 1
        chosen.append(fact)
    return chosen


def _on_topic(
    found: list[Fact],
    passages: Sequence[Passage],
    about: str,
    audience: str | None,
    wider: bool = False,
) -> list[Fact]:
    """The facts the topicality model gives at least ``ON_TOPIC``, while any has it; else
    those at ``ON_TOPIC_LEAST``; else none (decision 0088); ``wider``: those at
    ``ON_TOPIC_LEAST`` whatever, the ones below ``ON_TOPIC`` marked ``lesser``. A passage
    without a judged score counts as the best; the best passage's guide is ``_best``'s."""
    scores = [p.score for p in passages if p.score is not None]
    best = max(scores, default=None)
    first = passages[_best(passages)].title  # as the training pairs were made
    seen = []
    for fact in found:
        passage = passages[fact.passage]
        score = passage.score if passage.score is not None else (best or 1.0)
        share = score / best if best else 1.0
        seen.append(
            topicality.Seen(
                fact.text,
                passage.title,
                score,
                share,
                passage.title == first,
                share >= NEAR,
                fact.doubtful,
            )
        )
    judged = topicality.on_topic(about, audience, seen)
    kept = [(f, p) for f, p in zip(found, judged, strict=True) if p >= ON_TOPIC_LEAST]
    if wider:
        return [replace(f, lesser=p < ON_TOPIC) for f, p in kept]
    return [f for f, p in kept if p >= ON_TOPIC] or [f for f, _ in kept]


def _places_for(spec: Spec) -> frozenset[str]:
    """The places a draft is for: those its audience names outside the organisation's name
    ("Iceland Foods" is no place), and those its topic names, its first letter read in lower
    case (a capital there says nothing: "Turkey welfare at Christmas" is about a bird, as
    ``places.toml`` reads "turkey"; "California egg law" is about California)."""
    audience = spec.audience or ""
    if spec.organisation:
        audience = re.sub(re.escape(spec.organisation), " ", audience, flags=re.IGNORECASE)
    topic = spec.topic
    if topic[1:2].islower():  # not "UK: ..."
        topic = topic[:1].lower() + topic[1:]
    return places.named(f"{topic} {audience}")


def _elsewhere(sentence: str, at: frozenset[str]) -> bool:
    """Whether a sentence names places and none of them is one of ``at``, within one or around
    one ("In 2012 the EU banned ..." for a diner in the US; not "In California ..." for one)."""
    said = places.named(sentence)
    return bool(said) and not any(places.related(here, there) for here in said for there in at)


def _similar(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / min(len(a), len(b)) > SIMILAR


# -- the frame --------------------------------------------------------------------------------


def hashtags(topic: str) -> list[str]:
    """The catalog topics the topic mentions, as hashtags (#CageFree), then the general ones."""
    tags = ["#" + re.sub(r"[^A-Za-z0-9]", "", name_of(t).title()) for t in topics_in(topic)]
    return list(dict.fromkeys([*tags, *drafts().general_hashtags]))


def _topic(topic: str, markdown: bool = False) -> str:
    """The caller's topic as a frame sentence can hold it: on one line, without a closing
    stop, with "the" when it ends in a singular noun that needs one ("the fur farming ban",
    "the Better Chicken Commitment"; not "Brightwell's pledge"); a question, an instruction
    ("stop building colony cage sheds") or a sentence ("Salmon farms must stop ...") in
    quotation marks; a sentence's capital lowered (``_sentence_case``);
    in Markdown its markup characters are escaped, so a topic never adds HTML to a page."""
    text = " ".join(topic.split()).rstrip(" .!;:")
    if not any(char.isalnum() for char in text):  # "!!!???", "🐔🐔🐔": as written
        return _escaped(text) if markdown else text
    if _clausal(text):  # "What's in your egg box? ..."
        quoted = f"\u201c{text}\u201d"  # a question, an instruction or a sentence, as written
        return _escaped(quoted) if markdown else quoted
    text = text.rstrip("?")
    words = text.split()
    if _sentence_case(words):  # "about the duty of care", not "about The duty of care"
        text = text[0].lower() + text[1:]
        words = text.split()
    # a name before the noun takes "the" too ("the Better Chicken Commitment"), one that owns
    # it does not ("Brightwell's pledge")
    owned = any(word.endswith(("'s", "\u2019s")) for word in words[:-1])
    # the noun's own determiner, wherever it is ("Fiona Carrick and the pledge")
    determined = any(word.lower() in _DETERMINERS for word in words[:-1]) or owned
    if len(words) > 1 and not determined and words[-1].lower() in drafts().article.heads:
        text = f"the {text}"
    return _escaped(text) if markdown else text


_HEADLINE = re.compile(r":\s|\s[-\u2013\u2014]\s")


def _clausal(topic: str) -> bool:
    """Whether a topic is a question, an instruction or a sentence rather than the name of
    something: a question mark; a first word of ``article.clausal`` ("stop building colony
    cage sheds", "how is..."), not a noun before "of" or "for" ("end of cages"); or a verb of
    ``article.verbs`` after it, as written in lower case ("Salmon farms must stop", "Westwind
    keeps shipping"; not "from May 2025") and not in a clause of its own ("the loophole that
    allows ..."); or the writer speaking (``article.subjects``: "as a vet I want ..."); or
    who asks whom (``article.urging``: "Fur Free Futures calls on Nordmark ..."); or a
    headline: words, a colon or a dash and an instruction ("Siam Tidewater Foods: stop
    cutting eyestalks"), three words or more ("Nordmark: ditch the real fur trims"), or two
    that hold a number or a word of ``article.slogan`` or above ("Crestline: cages out by
    2026"). No noun slot holds a headline ("act on Nordmark: ditch ..."). A question after the
    colon names something ("Ag-gag laws: how they work"), as do two plain words ("FAQ:
    broiler welfare")."""
    text = " ".join(topic.split())
    article = drafts().article
    written = [re.sub(r"['\u2019](?:s|re|ll|ve|d|m)$", "", w.strip(_EDGES)) for w in text.split()]
    said = [w.lower() for w in written]
    if not said:
        return False
    if "?" in text:
        return True
    opens = said[0] in article.clausal or said[0] in article.imperatives
    if opens and (len(said) < 2 or said[1] not in ("of", "for")):
        return True
    # the writer speaking: "as a vet I want ..."; not a numeral after a name ("Annex I")
    if any(
        w in article.subjects and not (i and w == "i" and written[i - 1][:1].isupper())
        for i, w in enumerate(said)
    ):
        return True
    rest = text.split(maxsplit=1)[1] if len(said) > 1 else ""
    if re.search(article.urging, rest):  # who asks whom: "Fur Free Futures calls on ..."
        return True
    for i in range(1, len(said)):
        if said[i - 1] in article.relative:
            break  # "the loophole that allows ...": the rest is the name's own clause
        if said[i] in article.verbs and written[i] == said[i]:
            return True
        if _past(written, i):
            return True
    colon = _HEADLINE.search(text)  # a colon, or a dash between words (decision 0090)
    if colon is None or not colon.start():
        return False
    rest = text[colon.end() :]
    first = rest.split()[0].lower().strip(_EDGES) if rest.split() else ""
    said = [w.lower().strip(_EDGES) for w in rest.split()]
    signals = article.verbs | article.clausal | article.slogan
    if first in article.asking or len(said) < 2:
        return False  # "Ag-gag laws: how they work" names something
    return (
        first in article.clausal
        or len(said) >= 3
        or any(c.isdigit() for c in rest)
        or bool(set(said) & signals)
    )


def _past(written: list[str], i: int) -> bool:
    """Whether ``written[i]`` is a verb in the past after its subject, a capitalised word
    (``article.past``: "Velora went fur-free"), or a word in -ed there before a determiner, a
    number or "every" ("Denmark culled every farmed mink"; not "Brightwell farmed salmon"); or
    one that is never a participle, in lower case, whatever comes before it
    (``article.preterite``: "California's fur sales ban took effect")."""
    word, before = written[i], written[i - 1]
    if word in drafts().article.preterite:  # never a participle: "... ban took effect"
        return True
    if not (word.islower() and before[:1].isupper()):
        return False
    if word in drafts().article.past:
        return True
    after = written[i + 1] if i + 1 < len(written) else ""
    return word.endswith("ed") and (
        after.lower() in _DETERMINERS | {"every", "all"} or after[:1].isdigit()
    )


def _said(topic: str, markdown: bool = False) -> str | None:
    """A topic that is a sentence (``_clausal``) as a sentence of its own, capitalised and with
    its stop, a question's "?" when it opens as one ("how is Proposition 12 enforced") and
    none was written, for the frames of ``[frame.said]`` (decision 0086); None for the name
    of something, which the frames hold as written (``_topic``)."""
    text = " ".join(topic.split()).rstrip(" ,;:")
    if not any(char.isalnum() for char in text) or not _clausal(text):
        return None
    asks = _asks([w.strip(_EDGES) for w in text.lower().split()])
    text = _capital(text)
    if text.rstrip("'\"\u2019\u201d")[-1:] not in (".", "?", "!"):  # "... business?'" has its stop
        text = f"{text}?" if asks else f"{text}."
    return _escaped(text) if markdown else text


def _asked(topic: str) -> str | None:
    """What a topic that is an instruction asks its organisation to do, to follow "call on X
    to": the topic without the "Please" a request's cut put before it, or the words after a
    headline's colon or dash ("Crestline: stop building sheds"), when a verb of instruction
    opens them (``article``: ``clausal`` not ``asking``, and ``imperatives``), in lower case,
    "your" made "their" (``article.theirs``: "lower the stocking density in their sheds"); None
    for anything else, a question among them (decision 0091)."""
    text = " ".join(topic.split()).rstrip(" .!")
    rest = asked_rest(text)
    if rest is not None:
        text = rest
    else:
        colon = _HEADLINE.search(text)
        if colon is not None and colon.start():
            text = text[colon.end() :]
    words = text.split()
    if not words or "?" in text or words[0].lower() not in instruction_verbs():
        return None
    theirs = drafts().article.theirs
    kept = [theirs.get(word.lower(), word) for word in words]
    return " ".join([kept[0].lower(), *kept[1:]])


def _asks(words: list[str]) -> bool:
    """Whether a topic's words open a question it asks, not one it names (``article``:
    "how is ...", "what happens to ..."; not "What the Act leaves out", "How Proposition 12 is
    enforced", "how to ...", "whether ...")."""
    article = drafts().article
    first, second = words[0], words[1] if len(words) > 1 else ""
    if first not in article.asking or first == "whether":
        return False
    if first in ("how", "why", "when", "where"):
        return second in article.asking or second in article.degree
    return second not in article.embedded


def _sentence_case(words: list[str]) -> bool:
    """Whether a topic's capital is only a sentence's first ("The duty of care", "Lessons from
    our first demo"): its first word is an English word (the encoder's vocabulary holds it),
    the second is in lower case and does not join the first to a name ("Compassion in World
    Farming", "Friends of the Earth"), and the first is not a company's (``gazetteer``:
    "Target"), a place's, a given name or one that keeps its capital (``article.proper``:
    "Saturday", "Labour")."""
    if len(words) < 2 or not words[1][:1].islower():
        return False
    if words[1] in _JOINS and len(words) > 2 and words[2][:1].isupper():
        return False  # "Friends of the Earth": "of" then a capital, or "the" then one
    if words[1] in _JOINS and len(words) > 3 and words[2] == "the" and words[3][:1].isupper():
        return False
    first = re.sub(r"['\u2019]s$", "", words[0]).split("-")[0]
    return (
        first[:1].isupper()
        and first[1:].islower()
        and minilm.in_vocabulary(first)
        and first.lower() not in drafts().article.proper
        and not places.named(first)
        and first.lower() not in given_names()
        and gazetteer.exact(words[0]) is None  # "Co-op", "Target"
    )


_ENTITY_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")  # "&lt;", "&#60;": would read as markup
_EDGES = ".,;:!?'\"()\u201c\u201d"  # punctuation around a word of the topic
_JOINS = frozenset({"in", "of", "for", "and", "on", "at", "&"})  # inside a name


def _escaped(text: str) -> str:
    """Caller text for Markdown: angle brackets as entities, and an ampersand that would start
    one ("&lt;"); a bare one stays as written ("Harlow & Finch": Markdown prints it as it is,
    and "&amp;" would read as broken text to the person reading the draft)."""
    return _ENTITY_START.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def hook(spec: Spec) -> str:
    """The tone's opening for this topic (the same topic always gets the same one)."""
    said = _said(spec.topic)
    if said is not None:  # a sentence opens as itself
        return said
    hooks = drafts().tone[spec.tone].hooks
    topic = _topic(spec.topic)
    chosen = hooks[zlib.crc32(topic.lower().encode()) % len(hooks)]
    return chosen.format(topic=topic, Topic=_capital(topic))


def cta(spec: Spec) -> str | None:
    """The caller's call to action as written; else, for a company that has already
    committed, one that asks it to deliver; the tone's for a post or a thread; else the
    content type's; talking points have none of their own (None)."""
    if spec.cta:
        text = " ".join(spec.cta.split())
    elif spec.committed and spec.content_type in ("letter", "email"):
        committed = drafts().committed
        asked = committed.letter_cta if spec.content_type == "letter" else committed.email_cta
        text = asked.format(company=spec.committed)
    elif spec.content_type in ("social_post", "thread"):
        text = drafts().tone[spec.tone].ask  # the tone frames the ask too
    elif spec.content_type in drafts().default_cta:
        text = drafts().default_cta[spec.content_type]
    else:
        return None
    return text if text[-1] in ".!?" else text + "."


def _facts_wanted(spec: Spec) -> int:
    return drafts().facts[spec.content_type][("short", "medium", "long").index(spec.length)]


# -- composing --------------------------------------------------------------------------------


def near(passages: Sequence[Passage]) -> list[Passage]:
    """The passages judged at least ``NEAR`` of the best of them (all, when they carry no
    judged score): one judged well below the best is about something else that shares the
    topic's words (a fur-farming release quoted the puppy-sales law), wherever retrieval placed
    it (decision 0084)."""
    return [passages[i] for i in _near(passages)]


def _near(passages: Sequence[Passage], best: float | None = None) -> list[int]:
    if best is None:
        best = max((p.score for p in passages if p.score is not None), default=None)
    return [
        i
        for i, p in enumerate(passages)
        if best is None or p.score is None or p.score >= NEAR * best
    ]


def _best_quotable(spec: Spec, passages: Sequence[Passage]) -> float | None:
    """The judged score of the best passage the draft may quote. A draft that calls on an
    organisation never quotes advice for campaigners (``_calls_on``), so a passage holding
    only that ("Campaigns on dairy calves ask for ...") is not what its facts are measured
    against: the best with a sentence public copy may quote is (decision 0091). Any other draft
    may quote a practice topic's advice, and the best passage is. None when no passage
    carries a score."""
    scored = sorted(
        (p for p in passages if p.score is not None), key=lambda p: p.score or 0.0, reverse=True
    )
    if not scored:
        return None
    if _calls_on(spec):
        for passage in scored:
            if facts(spec.topic, [passage], public=True):
                return passage.score
    return scored[0].score


def compose(spec: Spec, passages: Sequence[Passage]) -> Draft | None:
    """The draft from the passages judged near the best (``near``), or, when they give none,
    from them all, as before decision 0084 (a covered topic is not refused for it); None when
    no passage says anything about the topic. Its facts are numbered as in ``passages``."""
    kept = _near(passages, _best_quotable(spec, passages))
    if len(kept) < len(passages):
        draft = _compose(spec, [passages[i] for i in kept])
        if draft is not None:
            facts = [replace(f, passage=kept[f.passage]) for f in draft.facts]
            return replace(draft, facts=facts)
    return _compose(spec, passages)


def _compose(spec: Spec, passages: Sequence[Passage]) -> Draft | None:
    """The draft, or None when no passage says anything about the topic (decision 0079).

    When the passages' whole sentences of fact give no draft, the draft is made from the
    passage judged most relevant to the topic alone (``Passage.score``: the one that made it
    covered), never from one that merely shares a word with it: a post gives up its default
    call to action (never the caller's) before a sentence is cut; a post or a thread that no
    whole sentence fits quotes sentences' main clauses (``main_clause``); and a topic whose
    best passage says nothing of it but advice for campaigners ("a volunteer briefing for a
    supermarket demo") and no other passage says anything public copy may quote is campaign
    practice: its draft quotes that advice (decision 0080), unless the draft calls on an
    organisation (``_calls_on``). Last, rather than no draft, the sentences the roles model
    keeps out but the advice patterns let through are quoted, as before the model, except to
    an organisation called on (decision 0088). Every fact is on the topic (``_on_topic``), and
    when the passages have facts but none is, there is no draft: nothing takes their place
    (decision 0088)."""
    best = _best(passages) if passages else None
    on, at = _subject(spec), _places_for(spec)
    found = facts(spec.topic, passages, public=True, at=at, **on)
    # facts, none of them on the topic: only campaign practice may take their place
    emptied = not found and bool(facts(spec.topic, passages, public=True, at=at))
    practice = (
        best is not None and not found and not _calls_on(spec) and _practice(spec, passages, best)
    )
    if practice:
        found = facts(spec.topic, passages, public=True, guidance=True, **on)
    draft = _drafted(spec, found, passages) if found else None
    if draft is None and found and not practice:  # a post the best facts do not fit
        wider = facts(spec.topic, passages, public=True, at=at, wider=True, **on)
        more = {f.text for f in wider} != {f.text for f in found}
        draft = _drafted(spec, wider, passages) if more else None
    if draft is not None or best is None:
        return draft
    draft = _fallback(spec, _best_facts(spec, passages, best, guidance=practice), passages)
    if draft is not None or practice or _calls_on(spec) or emptied:
        return draft
    # rather than no draft, what the advice patterns let through, as before the roles model
    found = facts(spec.topic, passages, public=True, judged=False, **on)
    return _drafted(spec, found, passages) if found else None


def _calls_on(spec: Spec) -> bool:
    """Whether a draft calls on an organisation (a petition or a press release, a letter or an
    email naming one): its readers are not campaigners, and advice for campaigners is never
    quoted to them, not even on a topic of campaign practice (decision 0088)."""
    return spec.content_type in ON_BEHALF or (
        spec.content_type in ADDRESSED and spec.organisation is not None and not spec.ally
    )


def advice_only(spec: Spec, passages: Sequence[Passage]) -> bool:
    """Whether a draft that calls on an organisation has nothing to quote because the passages
    hold no fact on the topic and what its best passage says of it is advice for campaigners
    (decision 0088)."""
    return (
        bool(passages)
        and _calls_on(spec)
        and not facts(spec.topic, passages, public=True, **_subject(spec))
        and _practice(spec, passages, _best(passages))
    )


def _practice(spec: Spec, passages: Sequence[Passage], best: int) -> bool:
    """Whether a topic no passage says anything of that public copy may quote is campaign
    practice: the document of the passage judged best gives advice on it (decision 0080), a
    sentence on the topic (``_on_topic``, decision 0088) that only advice's path admits. The
    caller has looked at every passage's facts: quoted first from the passages judged near the
    best (decision 0084), another guide's facts are on the topic, not words it merely shares."""
    own = [p for p in passages if p.title == passages[best].title]
    advice = facts(spec.topic, own, public=True, guidance=True, **_subject(spec))
    plain = {f.text for f in facts(spec.topic, own, public=True)}
    return any(f.text not in plain for f in advice)


def too_long(spec: Spec, passages: Sequence[Passage]) -> bool:
    """Whether a post or a thread of ``spec`` had sentences to quote from the best judged
    passage (``compose``'s fallback) or facts on the topic from the passages near it, so that
    only its length stopped it: the topic is covered, its draft does not fit (decisions 0079,
    0088)."""
    if spec.content_type not in LIMITED or not passages:
        return False
    if _best_facts(spec, passages, _best(passages), guidance=True):
        return True
    return bool(facts(spec.topic, near(passages), public=True, **_subject(spec)))


def _best(passages: Sequence[Passage]) -> int:
    """The index of the passage the judge scored highest for the topic (the first on a tie)."""
    return max(range(len(passages)), key=lambda i: passages[i].score or 0.0)


def _best_facts(
    spec: Spec, passages: Sequence[Passage], best: int, guidance: bool = False
) -> list[Fact]:
    """The facts of ``passages[best]`` alone (``facts`` over every passage drops a sentence
    that repeats another's, or a fourth of a document), numbered as in ``passages``."""
    alone = facts(spec.topic, [passages[best]], public=True, guidance=guidance, **_subject(spec))
    return [replace(fact, passage=best) for fact in alone]


class _Subject(TypedDict):
    about: str
    audience: str | None


def _subject(spec: Spec) -> _Subject:
    """What public copy's facts must be on (``facts``' ``about`` and ``audience``): the topic
    without the names it addresses, for the draft's audience."""
    return {"about": spec.subject or spec.topic, "audience": spec.audience}


def _drafted(spec: Spec, found: list[Fact], passages: Sequence[Passage]) -> Draft | None:
    tags = hashtags(spec.topic)
    if spec.content_type == "thread":
        return _thread(spec, found, tags)
    if spec.content_type == "social_post":
        return _post(spec, found, tags)
    return _long_form(spec, found, tags, passages)


def _fallback(spec: Spec, found: list[Fact], passages: Sequence[Passage]) -> Draft | None:
    """``_drafted``'s, then giving up what ``compose`` says, in that order: the default call
    to action, then whole sentences for main clauses (with the call to action, and without)."""
    if not found:
        return None
    if spec.content_type not in LIMITED:
        return _long_form(spec, found, hashtags(spec.topic), passages)
    tags, clauses = hashtags(spec.topic), _main_clauses(spec, found)
    if spec.content_type == "thread":
        return _thread(spec, found, tags) or _thread(spec, clauses, tags)
    asks = (True, False) if spec.cta is None else (True,)
    for facts_of in (found, clauses):
        for asking in asks:
            if (post := _post(spec, facts_of, tags, asking)) is not None:
                return post
    return None


def main_clause(sentence: str) -> str | None:
    """The sentence up to a trailing clause that adds to what it says without limiting it
    (``texts.trailing_clauses``: ", while upholding...", ", reasoning that...", ", which..."),
    as a sentence, when that head is a usable fact with its quotes and brackets closed; None
    otherwise. A clause that limits the claim (", but", ", unless", or holding "only",
    "except", "exempt"...) is never cut off: the head alone would say more than the source."""
    match = trailing_clauses().search(sentence)
    if match is None:
        return None
    head = sentence[: match.start()].rstrip()
    head = head if head.endswith(".") else head + "."  # "... in the U.S."
    balanced = all(head.count(a) == head.count(b) for a, b in _PAIRED)
    return head if balanced and _usable(head) else None


def _main_clauses(spec: Spec, found: list[Fact]) -> list[Fact]:
    """``found``'s facts as their main clauses, each still holding a word of the topic."""
    asked = set(terms(spec.topic))
    wanted = asked | {other for term in asked for other in related().get(term, ())}
    clauses = [(fact, main_clause(fact.text)) for fact in found]
    return [
        replace(fact, text=clause, whole=fact.text)
        for fact, clause in clauses
        if clause is not None and wanted & set(terms(clause))
    ]


def _post(spec: Spec, found: list[Fact], tags: list[str], asking: bool = True) -> Draft | None:
    """One post: opening, facts, call to action (unless not ``asking``) and hashtags, as much
    as fits. Given up first when space is short: hashtags beyond one, then the opening, then
    the best facts for shorter ones, then facts beyond one."""
    if not found:
        return None
    rules = drafts().platform[spec.platform]
    opening, ask, called = hook(spec), cta(spec) or "", _called(spec)
    in_post = min(max(1, rules.hashtags_in_post), len(tags))
    separator = "\n\n" if spec.platform != "x" else " "
    for fact_count in range(_facts_wanted(spec), 0, -1):
        for picked in _fact_sets(found, fact_count):
            body = separator.join(f.text for f in picked)
            for head in (f"{opening}{separator}", ""):
                for tag_count in range(in_post, 0, -1):
                    ending = f"{ask} " if asking else ""
                    text = f"{called}{head}{body}\n\n{ending}{' '.join(tags[:tag_count])}"
                    if count(text, spec.platform) <= rules.limit:
                        return Draft([text], text, tags, list(picked))
    return None


def _called(spec: Spec) -> str:
    """What a post or a thread opens with to call someone out ("@Fjordlax Seafood "), or ""."""
    return f"{spec.mention} " if spec.mention else ""


def _fact_sets(found: list[Fact], size: int) -> list[list[Fact]]:
    """Sets of ``size`` facts to try, best first: the top ones, then with more and more of
    them swapped for the shortest ones, down to the shortest ones."""
    rank = {id(f): i for i, f in enumerate(found)}
    top = found[:size]
    # the shortest clear ones before any doubtful one (decision 0087), sure of their source
    # before any that is not (decision 0089)
    shortest = sorted(found[:12], key=lambda f: (f.doubtful, f.unsure, len(f.text)))
    sets = [top]
    for i in range(1, len(shortest) + 1):
        mixed = {id(f): f for f in [*top[: max(0, size - i)], *shortest[: min(i, size)]]}
        candidate = sorted(mixed.values(), key=lambda f: rank[id(f)])[:size]
        if len(candidate) == size and candidate not in sets:
            sets.append(candidate)
    # then the next shortest ones, a doubtful one last: a post the shortest clear fact does not
    # fit still quotes a shorter one (review of decision 0088)
    for start in range(1, len(shortest)):
        candidate = sorted(shortest[start : start + size], key=lambda f: rank[id(f)])
        if len(candidate) == size and candidate not in sets:
            sets.append(candidate)
    return sets


def _thread(spec: Spec, found: list[Fact], tags: list[str]) -> Draft | None:
    """An opening post, one fact per post, and a closing post with the call to action; each
    post numbered "n/N" and within the limit."""
    limit = drafts().platform[spec.platform].limit
    wanted = _facts_wanted(spec)
    room = limit - len(" 10/10")
    usable = [f for f in found if count(f.text, spec.platform) <= room][:wanted]
    if not usable:
        return None
    closing = f"{cta(spec) or ''} {' '.join(tags[:2])}".strip()
    opening = hook(spec)
    more = drafts().frame.thread_more
    more = more[:1].lower() + more[1:] if opening.endswith(":") else more
    called = _called(spec)
    bodies = [f"{called}{opening} {more} \U0001f9f5", *(f.text for f in usable)]
    bodies.append(closing)
    total = len(bodies)
    posts = [f"{body} {i}/{total}" for i, body in enumerate(bodies, 1)]
    if count(posts[0], spec.platform) > limit:  # a very long topic: a plain opening
        posts[0] = f"{called}{drafts().frame.thread_more} \U0001f9f5 1/{total}"
    if any(count(p, spec.platform) > limit for p in posts):
        return None
    return Draft(posts, "\n\n".join(posts), tags, usable)


def _long_form(
    spec: Spec, found: list[Fact], tags: list[str], passages: Sequence[Passage]
) -> Draft | None:
    frame, committed = drafts().frame, drafts().committed
    web = spec.platform == "web"
    topic = _topic(spec.topic, markdown=web)
    values: dict[str, str | None] = {"topic": topic, "Topic": _capital(topic)}
    organisation = _institution(spec.organisation) if spec.organisation else None
    organisation = _escaped(organisation) if web and organisation else organisation
    you = frame.you_at.format(organisation=organisation) if organisation else frame.you
    # the tone's first line of a letter or an email, naming the organisation addressed; a
    # topic that is a sentence stands as its own (``[frame.said]``)
    said = _said(spec.topic, markdown=web)
    # a title says it without the full stop ``_said`` added ("... the U.S." keeps its own)
    added = said is not None and not spec.topic.rstrip(" ,;:").endswith(".")
    headline = said[:-1] if said and added and said.endswith(".") else said
    values = {**values, "Said": said or "", "Headline": headline or "", "you": you}
    asked_for = _asked(spec.topic) if said else None  # what "call on X to" asks
    asked_for = _escaped(asked_for) if web and asked_for else asked_for
    values["company"] = spec.committed or ""
    tone = drafts().tone[spec.tone]
    intro = (tone.intro_said if said else tone.intro).format(**values)
    picked = found[: _facts_wanted(spec)]
    audience = _audience(spec.audience)
    audience = _escaped(audience) if web and audience else audience
    # whom a petition calls on (``addressee``), escaped as the frame writes it
    target = audience if spec.audience and addressee(spec) == spec.audience else organisation
    asked = cta(spec)
    ask = (_escaped(asked) if web else asked) if asked else None
    closing = [ask] if ask else []
    if spec.reply_by is not None and spec.content_type in ("letter", "email"):
        replied = frame.reply_by.format(date=f"{spec.reply_by.day} {spec.reply_by:%B %Y}")
        # an email's own ask is for a reply: the date says it ("Please reply by ...")
        own_ask = spec.content_type == "email" and not spec.cta and not spec.committed
        closing = [replied] if own_ask else [*closing, replied]

    def framed(name: str, whole: Frame | Committed = frame, **more: str | None) -> str:
        """Frame ``name`` of ``whole`` (the frame or the committed one) filled in: its
        ``said`` form for a topic that is a sentence."""
        chosen = getattr(whole.said if said else whole, name)
        return str(chosen).format(**values, **more)

    lines: list[str]
    if spec.content_type == "email":
        lines = [
            framed("email_subject"),
            "",
            frame.email_greeting,
            "",
            framed("email_intro", committed) if spec.committed else intro,
            "",
            *_paragraphs(picked),
            " ".join(closing),
            "",
            frame.email_signoff,
        ]
    elif spec.content_type == "letter":
        lines = [
            *([frame.letter_to.format(audience=audience), ""] if audience else []),
            frame.letter_address,
            "",
            framed("letter_intro", committed) if spec.committed else intro,
            "",
            *_paragraphs(picked),
            " ".join(closing),
            "",
            frame.letter_signoff,
        ]
    elif spec.content_type == "press_release":
        lines = [
            frame.press_header,
            "",
            _heading(
                frame.said.press_headline_asked.format(organisation=organisation, ask=asked_for)
                if organisation and asked_for
                else framed("press_headline"),
                1,
                web,
            ),
            "",
            frame.said.press_dateline_asked.format(organisation=organisation, ask=asked_for)
            if organisation and asked_for
            else framed("press_dateline_to", organisation=organisation)
            if organisation
            else framed("press_dateline"),
            "",
            *_paragraphs(picked),
            frame.press_quote,
            "",
            *closing,
            "",
            "###",
            "",
            frame.press_about,
        ]
    elif spec.content_type == "blog_post":
        lines = [_heading(framed("blog_title"), 1, web), "", framed("blog_intro"), ""]
        for section, group in _by_section(picked, passages):
            lines += [_heading(section, 2, web), "", " ".join(f.text for f in group), ""]
        lines += [_heading(frame.blog_conclusion, 2, web), "", *closing]
    elif spec.content_type == "petition":
        rest = asked_rest(spec.topic.rstrip(" .")) if said and organisation else None
        rest = _escaped(rest) if web and rest else rest
        title = (
            frame.said.petition_title_to.format(organisation=organisation, ask=rest)
            if rest
            else framed("petition_title")
        )
        lines = [
            _heading(title, 1, web),
            "",
            frame.petition_to.format(audience=target) if target else frame.petition_to_default,
            "",
            _heading(frame.petition_why, 2, web),
            "",
            *(f"- {f.text}" for f in picked),
            "",
            framed("petition_ask", committed)
            if spec.committed
            else frame.said.petition_ask_to.format(audience=_in_sentence(target), ask=asked_for)
            if target and asked_for
            else framed("petition_ask", audience=_in_sentence(target))
            if target
            else framed("petition_ask_default"),
            "",
            *closing,
        ]
    else:  # talking_points, for whom when the request names them (decision 0086)
        # not for whom when the topic opens by naming them ("Crestline Eggs: cages out")
        title = (
            framed("talking_points_title_for", audience=_in_sentence(target))
            if target and not fold(spec.topic).startswith(fold(target))
            else framed("talking_points_title")
        )
        lines = [_heading(title, 1, web), ""]
        lines += [f"- {f.text} ({passages[f.passage].title})" for f in picked]
        if ask:  # the caller's; talking points have no ask of their own
            lines += ["", _heading(frame.talking_points_close, 2, web), "", ask]
    lines += ["", _heading(frame.sources_heading, 2, web), ""]
    cited = cite(picked, passages)
    lines += _cited(cited)
    text = "\n".join(lines).strip()
    if count(text, spec.platform) > drafts().platform[spec.platform].limit:
        return None
    return Draft([text], text, tags, picked, cited)


def _audience(audience: str | None) -> str | None:
    return " ".join(audience.split()) if audience else None


def _institution(name: str) -> str:
    """An organisation's name as a frame sentence holds it: with "the" when it ends with a word
    such as "Agency" or "Council", or opens with one before "of", "for" or "on" ("the
    Coalition for Humane Farming"; ``article.institutions``); as written when it is a
    company's ("Court Farm Eggs", "Union Street Bakery") or has its "the"."""
    words = [w.lower().strip(_EDGES) for w in name.split()]
    institutions = drafts().article.institutions
    if len(words) < 2 or words[0] == "the" or organisations.kind_of(name) == "company":
        return name
    opens = words[0] in institutions and words[1] in _INSTITUTION_JOINS
    return f"the {name}" if opens or words[-1] in institutions else name


_INSTITUTION_JOINS = frozenset({"of", "for", "on", "against"})


def _in_sentence(name: str) -> str:
    """An audience as a sentence or a title holds it: with "the" when it names an institution
    (``_institution``: "call on the UK Government") or a group of people by its last word
    (``article.groups``: "Talking points for the campaign team"), unless a determiner or a
    possessive opens it ("our spokesperson"; decision 0091)."""
    words = [w.lower().strip(_EDGES) for w in name.split()]
    if not words or words[0] in _DETERMINERS:
        return name
    if len(words) > 1 and words[-1] in drafts().article.groups:
        return f"the {name}"
    return _institution(name)


def addressee(spec: Spec) -> str | None:
    """Whom a draft asks to act: its audience when that names the organisation or none is
    known ("the CEO of Brightwell Supermarkets"), else the organisation its topic names (a
    petition "to New Zealand consumers" on Dairyvale's calves calls on Dairyvale, its
    signers' audience; decision 0084). A petition or a press release for the organisation's
    public ("shoppers at Brightwell Supermarkets": ``publics`` of ``drafts.toml``) calls on the
    organisation (decision 0087)."""
    organisation, audience = spec.organisation, spec.audience
    if organisation is None or (audience and fold(organisation) in fold(audience)):
        said = {w.strip(_EDGES).lower() for w in (audience or "").split()}
        # its public, not a decision maker ("Brightwell's head of customer relations")
        public = said & drafts().publics and not said & drafts().titles
        on_behalf = spec.content_type in ON_BEHALF
        return organisation if organisation and on_behalf and public else audience
    return organisation


def _heading(text: str, level: int, markdown: bool) -> str:
    return f"{'#' * level} {text}" if markdown else text


def _paragraphs(picked: list[Fact]) -> list[str]:
    """The facts as paragraphs, those of one passage together, each followed by a blank
    line."""
    lines: list[str] = []
    for passage in dict.fromkeys(f.passage for f in picked):
        lines += [" ".join(f.text for f in picked if f.passage == passage), ""]
    return lines


def _by_section(picked: list[Fact], passages: Sequence[Passage]) -> list[tuple[str, list[Fact]]]:
    """Facts grouped under the innermost heading of their passage."""
    groups: dict[str, list[Fact]] = {}
    for fact in picked:
        section = roles.heading(passages[fact.passage].section)
        groups.setdefault(section, []).append(fact)
    return list(groups.items())


def _used(picked: list[Fact], passages: Sequence[Passage]) -> list[Passage]:
    seen: dict[tuple[str, str | None], Passage] = {}
    for fact in picked:
        passage = passages[fact.passage]
        seen.setdefault((passage.title, passage.url), passage)
    return list(seen.values())


def sources(draft: Draft, passages: Sequence[Passage]) -> list[tuple[str, str | None]]:
    """(title, url) of the documents the draft's facts come from, in order of first use."""
    return [(p.title, p.url) for p in _used(draft.facts, passages)]


def _cited(cited: Sequence[Citation]) -> list[str]:
    """A long form's list of sources: each source its facts are cited to (``cite``), once, in
    order of first use (the guide's title alone for a fact the guide itself holds, decision
    0090), so that the list and the citations agree."""
    seen = dict.fromkeys((c.title, c.url) for c in cited)
    return [f"- {title}" + (f": {url}" if url else "") for title, url in seen]


# -- citations --------------------------------------------------------------------------------


def citations_of(draft: Draft, passages: Sequence[Passage]) -> list[Citation]:
    """The draft's citations: those its list of sources was made from, else ``cite``'s."""
    return draft.citations if draft.citations is not None else cite(draft.facts, passages)


def cite(picked: Sequence[Fact], passages: Sequence[Passage]) -> list[Citation]:
    """One citation per fact: the sentence and the source its passage's document gives for it
    (``common.language.citations``: the listed source the sentence names, or the one the sentence
    it leans on names, or the section's, or the document's own)."""
    found: list[Citation] = []
    for fact, source in zip(picked, _sources(picked, passages), strict=True):
        title = source.title if source else passages[fact.passage].title
        found.append(Citation(fact.text, source.url if source else None, title))
    return found


def _sources(picked: Sequence[Fact], passages: Sequence[Passage]) -> list[citations.Source | None]:
    """The source each fact is cited to (``cite``); None for its document itself, when the
    source is another place's, year's or section's."""
    found: list[citations.Source | None] = []
    for fact in picked:
        passage = passages[fact.passage]
        main = passage.main_source()
        found_for = _sources_of(passage).get(fact.whole or fact.text)
        if passage.given is not None:  # its footnotes' source, or none (decision 0089)
            found.append(found_for.source if found_for else None)
            continue
        source = (found_for.source if found_for else None) or main
        if not citations.fits(fact.whole or fact.text, source, dated=source != main):
            source = None
        found.append(source)
    return found


def _held(found: Sequence[Fact], passages: Sequence[Passage]) -> list[bool]:
    """Whether each fact's citation holds it (decision 0086): it is cited to a source of its
    document, not the document itself, and names no instrument or body that source is not
    (``citations.holds``; a document's own source is also what the document's title names)."""
    held: list[bool] = []
    for fact, source in zip(found, _sources(found, passages), strict=True):
        passage = passages[fact.passage]
        own = passage.title if source == passage.main_source() else ""
        if passage.given is not None:  # the document's footnote says it holds it (0089)
            held.append(source is not None)
            continue
        held.append(source is not None and citations.holds(fact.whole or fact.text, source, own))
    return held


def _sure(found: Sequence[Fact], passages: Sequence[Passage]) -> list[bool]:
    """Whether each fact's source is sure (``citations.Attribution``, decision 0089): not its
    crowded document's main source taken by default."""
    sure: list[bool] = []
    for fact in found:
        passage = passages[fact.passage]
        attribution = _sources_of(passage).get(fact.whole or fact.text)
        crowded = len(passage.sources) >= citations.CROWDED or passage.given is not None
        sure.append(attribution.sure if attribution is not None else not crowded)
    return sure


@lru_cache(maxsize=512)
def _sources_of(passage: Passage) -> Mapping[str, citations.Attribution]:
    """Each sentence of a passage and the source it is cited to: read once per passage, by
    ``facts`` (``_held``) and ``cite`` alike; read-only, shared by every thread."""
    return MappingProxyType(_cited_sentences(passage))


def _cited_sentences(passage: Passage) -> dict[str, citations.Attribution]:
    texts = drafts()
    paragraphs = [split(p) for p in passage.text.split("\n") if p.strip()]
    heading = roles.heading(passage.section)
    given = None
    if passage.given is not None:  # the document's footnotes: the first source each names
        by_url = {source.url: source for source in passage.sources}
        given = {
            sentence: by_url[urls[0]]
            for sentence, urls in passage.given
            if urls and urls[0] in by_url
        }
    rows = citations.attributed(
        paragraphs,
        "" if heading == passage.title else heading,  # a guide's title names no one source
        passage.sources,
        passage.main_source(),
        lambda sentence: _dependence(sentence, texts) > 0,
        given,
    )
    return {
        sentence: source
        for paragraph, row in zip(paragraphs, rows, strict=True)
        for sentence, source in zip(paragraph, row, strict=True)
    }


def attribute(text: str, passages: Sequence[Passage]) -> list[Citation]:
    """Citations for a text someone else wrote from the passages (a provider's draft or
    answer): each of its sentences that is mostly the words of one passage's sentence
    (``ATTRIBUTED`` of its terms) is cited to that sentence's source; a sentence of the
    writer's own (an opening, a call to action) is cited to nothing."""
    candidates = [
        Fact(sentence, rank, 0.0, position)
        for rank, passage in enumerate(passages)
        for position, sentence in enumerate(split(passage.text))
    ]
    own_terms = [set(terms(c.text)) for c in candidates]
    found: list[Citation] = []
    for sentence in split(" ".join(text.split())):
        said = set(terms(sentence))
        if len(said) < MIN_ATTRIBUTED_TERMS:
            continue
        shares = [len(said & own) / len(said) for own in own_terms]
        best = max(range(len(shares)), key=shares.__getitem__, default=None)
        if best is None or shares[best] < ATTRIBUTED:
            continue
        cited = cite([candidates[best]], passages)[0]
        found.append(Citation(sentence, cited.url, cited.title))
    return found
