"""Notes on the law of the place a legal-guidance request is about, quoted from the knowledge
base (decision record 0026).

``find_notes`` recognises the place (the request's ``jurisdiction`` field, or failing that a
place its prompt or situation names; ``functions.legal.jurisdictions``), searches the knowledge
base for passages tagged for it or for a place containing it, and keeps the passages' most
relevant sentences that are about that place's law: verbatim, never rewritten, without
disclaimers, advice to see a lawyer, list items or links. A sentence counts as being about the
places it names ("In England and Wales, ..."); one that names none is about the places its
section heading names, else the document's declared scope, else the places its title names;
one about none of them, or only about other places (England, for a request about Scotland), is
never quoted. The guide then says plainly what it has: notes, no notes for the place, or none
because the knowledge base could not be searched. Searching never fails the guide.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from common.language import clip
from common.language.index import terms
from common.language.sentences import split
from common.logging import get_logger
from functions.legal import content
from functions.legal.jurisdictions import (
    JurisdictionMatch,
    chain,
    depth,
    jurisdiction,
    mentioned_in,
    named_in_sentence,
    source_scope,
    tags_for,
)
from functions.legal.models import Source

logger = get_logger("ars.legal")

PASSAGES = 10  # asked of the knowledge search
MAX_QUERY = 1000  # characters of the request searched with
MAX_SENTENCES = 8  # quoted in a guide, all places together
MAX_SOURCES = 3
MAX_PER_PASSAGE = 4
MIN_SHARED = 2  # words a quoted sentence shares with the request and its activities
SHARED_WEIGHT = 0.2  # per word shared (at most four counted)
SPECIFIC_BONUS = 0.3  # for a sentence about the place itself, not a place containing it

Status = Literal["found", "no_place", "unknown", "no_notes", "no_matching_notes", "unavailable"]


@dataclass(frozen=True)
class NoteGroup:
    """Sentences quoted from one document about one place: one tuple per passage, in order."""

    place_key: str
    place: str
    source: Source
    passages: tuple[tuple[str, ...], ...]

    @property
    def sentences(self) -> list[str]:
        return [s for passage in self.passages for s in passage]


@dataclass(frozen=True)
class Notes:
    """What the service found on the law of the place a request is about.

    ``status``: ``found`` (``groups`` holds the quotes), ``no_place`` (the request names no
    place), ``unknown`` (the service does not know the place it names), ``no_notes`` (it
    knows the place but has no notes on its law), ``no_matching_notes`` (it has notes on the
    place, none about what was asked), ``unavailable`` (the knowledge base could not be
    searched). ``named`` is what the request named, ``mentioned`` true when the place came from
    the prompt or situation rather than the ``jurisdiction`` field.
    """

    status: Status
    named: str | None = None
    mentioned: bool = False
    match: JurisdictionMatch | None = None
    groups: tuple[NoteGroup, ...] = field(default=())

    @property
    def place(self) -> str:
        """The place in running text: its name when recognised, else what the request said."""
        if self.match is not None:
            return self.match.name
        return self.named or ""

    @property
    def sources(self) -> list[Source]:
        found: dict[tuple[str, str | None], Source] = {}
        for group in self.groups:
            found.setdefault((group.source.title, group.source.url), group.source)
        return list(found.values())


def find_notes(prompt: str | None, situation: str | None, jurisdiction: str | None) -> Notes:
    """The notes for a request (see the module's doc). Never raises: when the knowledge base
    cannot be searched the notes are ``unavailable`` and the guide says so."""
    text = "\n".join(part for part in (prompt, situation) if part)
    if jurisdiction:
        match = tags_for(jurisdiction)
        if match is None:
            return Notes("unknown", named=jurisdiction)
        named, mentioned = jurisdiction, False
    else:
        match = mentioned_in(text)
        if match is None:
            return Notes("no_place")
        named, mentioned = match.named, True
    if not match.tags:
        return Notes("no_notes", named, mentioned, match)
    try:
        from functions.knowledge.service import search

        passages = search(  # every note of the place, judged or not: ``select`` chooses
            query=clip(text or match.name, MAX_QUERY),
            limit=PASSAGES,
            tags=list(match.tags),
            floor=0.0,
        )
        words = [word for activity in content.detect(text) for word in activity.note_words]
        groups = select(passages, text, match, words)
    except Exception as exc:  # any failure: the guide is written without notes instead
        _log_failure(exc)
        return Notes("unavailable", named, mentioned, match)
    return Notes("found" if groups else "no_matching_notes", named, mentioned, match, groups)


def _log_failure(exc: Exception) -> None:
    from common.adapters.firestore import is_backend_error
    from common.errors import AppError

    extra = {"error": type(exc).__name__}
    if isinstance(exc, AppError) or is_backend_error(exc):
        logger.warning("knowledge search failed; legal guide without notes", extra=extra)
    else:  # a bug, but the guide still goes out
        logger.exception("knowledge search broke; legal guide without notes", extra=extra)


# -- choosing the sentences --------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    rank: int  # of the passage in the search's answer
    index: int  # of the sentence in the passage
    sentence: str
    scope: str  # the place it is about (a jurisdiction key)
    source: tuple[str, str | None]  # (title, url) of its document
    section: str
    shared: int  # words shared with the request and its activities' note words
    score: float


def select(
    passages: Iterable[dict[str, Any]],
    query: str,
    match: JurisdictionMatch,
    words: Iterable[str] = (),
    limit: int = MAX_SENTENCES,
) -> tuple[NoteGroup, ...]:
    """The sentences to quote from knowledge passages (``{passage, title, url, section}``,
    best first) for a request (``query``) about the place ``match``, grouped by place and
    document. A sentence is relevant when it shares at least MIN_SHARED words (stemmed) with
    the request and ``words`` (the note words of the activities the request describes), one of
    them at least from ``words`` when there are any. Pure: no I/O."""
    activity = set(terms(" ".join(words)))
    vocabulary = set(terms(query)) | activity
    found: dict[int, dict[int, _Candidate]] = {}
    for rank, passage in enumerate(passages):
        url = passage.get("url")
        if not match.admits(url):  # a document about another part of the place
            continue
        source = (" ".join(str(passage.get("title") or "").split()), url)
        section = str(passage.get("section") or "")
        context, how = _context(passage)
        for index, sentence in enumerate(split(str(passage.get("passage") or ""))):
            if _skipped(sentence):
                continue
            named = named_in_sentence(sentence)
            scope = _scope(named or context, match, widest=not named and how == "title")
            if scope is None:
                continue
            held = set(terms(sentence))
            shared = len(vocabulary & held) if not activity or activity & held else 0
            score = 1 / (1 + rank) + SHARED_WEIGHT * min(shared, 4)
            if (named or how == "heading") and match.key in chain(scope):
                score += SPECIFIC_BONUS  # names the place itself (or a place within it)
            found.setdefault(rank, {})[index] = _Candidate(
                rank, index, sentence, scope, source, section, shared, score
            )
    return _group(_choose(found, limit), match)


def _context(passage: dict[str, Any]) -> tuple[list[str], Literal["heading", "scope", "title"]]:
    """The places a sentence naming none is about: those its section heading names (innermost
    heading first), else the document's declared scope, else those its title names; and which
    of the three it was."""
    title = " ".join(str(passage.get("title") or "").split())
    headings = [h.strip() for h in str(passage.get("section") or "").split(" > ")]
    for heading in reversed(headings):
        if heading and heading != title:
            named = named_in_sentence(heading)
            if named:
                return named, "heading"
    scope = source_scope(passage.get("url"))
    if scope is not None:
        return [scope], "scope"
    return named_in_sentence(title), "title"


def _scope(places: list[str], match: JurisdictionMatch, widest: bool = False) -> str | None:
    """The innermost of ``places`` that is the request's place, contains it or lies within
    it (the outermost when ``widest``: a title naming the United States and Iowa speaks for a
    sentence only as far as the United States); None when there is none (a sentence about
    another place, or about no place)."""
    fitting = [p for p in places if p in match.chain or match.key in chain(p)]
    if not fitting:
        return None
    return (min if widest else max)(fitting, key=depth)


def _choose(found: dict[int, dict[int, _Candidate]], limit: int) -> list[list[_Candidate]]:
    """Runs of sentences as written, one per passage quoted, best passage first: from the
    passage's first relevant sentence (with the sentences it refers back to: "It made it a
    crime ..." comes with the one before, or not at all) on, while its sentences can be
    quoted, at most MAX_PER_PASSAGE; at most ``limit`` sentences and MAX_SOURCES documents
    in all."""
    ranked = []
    for rank, by_index in found.items():
        relevant = [c for c in by_index.values() if c.shared >= MIN_SHARED]
        if relevant:
            ranked.append((max(c.score for c in relevant), rank, relevant))
    ranked.sort(key=lambda entry: (-entry[0], entry[1]))
    runs: list[list[_Candidate]] = []
    sources: list[tuple[str, str | None]] = []
    for _, rank, relevant in ranked:
        room = limit - sum(len(run) for run in runs)
        if room <= 0:
            break
        source = relevant[0].source
        if source not in sources and len(sources) >= MAX_SOURCES:
            continue
        run = _run(relevant, found[rank])
        if run is None:
            continue
        start, sentences = run
        if start + 1 > room:  # not even the relevant sentence fits
            continue
        runs.append(sentences[:room])
        if source not in sources:
            sources.append(source)
    return runs


def _run(
    relevant: list[_Candidate], passage: dict[int, _Candidate]
) -> tuple[int, list[_Candidate]] | None:
    """(position of the relevant sentence in the run, the run) for a passage: its sentences as
    written, from as near the passage's start as MAX_PER_PASSAGE allows, through its first
    relevant sentence and on. A run never opens with a reference back ("It made it a crime
    ..."): such a sentence is quoted after the one it refers to, or not at all. None when no
    relevant sentence can be quoted."""
    for candidate in sorted(relevant, key=lambda c: c.index):
        begin = candidate.index
        while begin - 1 in passage and candidate.index - begin + 2 <= MAX_PER_PASSAGE:
            begin -= 1
        while begin <= candidate.index and _refers_back(passage[begin].sentence):
            begin += 1
        if begin > candidate.index:
            continue
        run = [passage[i] for i in range(begin, candidate.index + 1)]
        after = candidate.index + 1
        while after in passage and len(run) < MAX_PER_PASSAGE:
            run.append(passage[after])
            after += 1
        return candidate.index - begin, run
    return None


def _group(runs: list[list[_Candidate]], match: JurisdictionMatch) -> tuple[NoteGroup, ...]:
    """One group per place and document, about the request's place (or places within it)
    first, then the best first; a passage's sentences stay together, under the innermost place
    they are about when their places nest (a sentence about England and Wales followed by one
    about the United Kingdom: England and Wales), else the smallest place containing all of
    theirs. Within a group the passages keep their order, except that of two passages of one
    section, one opening with "The ..." or a reference back ("The notice must be delivered
    ...") comes after one that does not ("Under section 11, written notice must be given
    ...")."""
    groups: dict[tuple[str, tuple[str, str | None]], list[list[_Candidate]]] = {}
    best: dict[tuple[str, tuple[str, str | None]], float] = {}
    for run in runs:
        place = _place_of([c.scope for c in run])
        key = (place, run[0].source)
        groups.setdefault(key, []).append(run)
        best[key] = max(best.get(key, 0.0), *(c.score for c in run))
    order = sorted(groups, key=lambda k: (match.key not in chain(k[0]), -best[k]))
    notes = []
    for place, source in order:
        passages = groups[(place, source)]
        sections = list(dict.fromkeys(run[0].section for run in passages))
        passages.sort(key=lambda run: (sections.index(run[0].section), _continues(run[0])))
        notes.append(
            NoteGroup(
                place_key=place,
                place=jurisdiction(place).name,
                source=Source(title=source[0], url=source[1]),
                passages=tuple(tuple(c.sentence for c in run) for run in passages),
            )
        )
    return tuple(notes)


def _continues(first: _Candidate) -> bool:
    return first.sentence.startswith("The ") or _refers_back(first.sentence)


def _place_of(places: list[str]) -> str:
    inner = max(places, key=depth)
    if all(p in chain(inner) for p in places):
        return inner
    first = chain(places[0])
    return next((p for p in first if all(p in chain(o) for o in places[1:])), places[0])


# -- sentences ---------------------------------------------------------------------------------


@cache
def _skip() -> re.Pattern[str] | None:
    patterns = content.text().notes.skip
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def _skipped(sentence: str) -> bool:
    skip = _skip()
    if len(sentence) < 20 or sentence[-1] not in ".!?\"'\u201d)":
        return True  # a fragment, a heading or a list item rather than a sentence
    return skip is not None and bool(skip.search(sentence))


@cache
def _back() -> re.Pattern[str] | None:
    patterns = content.text().notes.refers_back
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def _refers_back(sentence: str) -> bool:
    back = _back()
    return back is not None and bool(back.match(sentence.lstrip("\"'\u201c\u2018(")))
