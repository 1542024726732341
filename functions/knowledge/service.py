"""Knowledge search: the corpus's passages that answer a question. No Flask here. Candidates
found by meaning and by words are judged (``common.search.relevance``): ``score`` is the calibrated
probability that the passage answers the question, and passages below the floor are left out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.adapters.firestore import KNOWLEDGE
from common.language import acronyms, synonyms
from common.search import domain, relevance, retrieval
from common.search.embeddings import get_embedder
from functions.knowledge.ids import document_of, passage_text

POOL = 3  # each ranking looks at this many times the wanted passages
PER_DOCUMENT = 3  # a document's passages before the others' in the words ranking (0049)
FIELDS = (  # what is used
    "doc_id",
    "title",
    "url",
    "section",
    "passage",
    "tags",
    "sources",
    "footnoted",
    "provenance",
    relevance.VECTOR_FIELD,
)


@dataclass(frozen=True)
class Found:
    """A knowledge search's passages, the judged relevance of the best candidate (0 with none),
    whether a passage holds one of the query's words (the words ranking found one, or a
    candidate does), whether a candidate answers it as a search (``relevance.answers``), and
    the best judged candidate (``top``)."""

    hits: list[dict[str, Any]]
    best: float
    words: bool
    answered: bool = False
    top: dict[str, Any] | None = None  # the best judged candidate as a hit, whatever ``floor``
    asked: Any = None  # the query's MiniLM vector, as the judge read it
    outside: bool = False  # the query is about another field (``common.search.domain``)


def search(
    query: str,
    limit: int,
    tags: list[str] | None = None,
    floor: float = relevance.FLOOR,
    kind: relevance.Kind = "question",
) -> list[dict[str, Any]]:
    """``[{passage, title, url, section, sources, score}]``, best first, at most ``limit``
    (``sources``: the document's list of its sources, for citations)."""
    return search_scored(query, limit, tags, floor, kind).hits


def search_scored(
    query: str,
    limit: int,
    tags: list[str] | None = None,
    floor: float = relevance.FLOOR,
    kind: relevance.Kind = "question",
    judge_order: bool = True,
    judge_all: bool | None = None,
    door: bool = False,
    shown: bool = True,
) -> Found:
    """``search``'s hits, the best judged relevance, and whether a candidate shares a word.

    Candidates come from meaning and words (``POOL`` times the wanted passages from each,
    fused by reciprocal rank); the relevance judge (``common.search.relevance``, decision 0067)
    scores them: a passage's ``score`` is the calibrated probability that it answers the query,
    whatever the embedder, and those below ``floor`` are left out. They come best judged first,
    or with ``judge_order=False`` in the order retrieval found them (the search door: the
    judge's order loses questions worded unlike their guide; content: among a guide's
    sections, which all answer its topic about equally, retrieval's order puts the one on the
    topic's own words first). The judge reads at least ``relevance.JUDGED`` candidates, or with
    ``judge_order=False`` only the first ``limit`` unless ``judge_all``. ``kind``: what the query is
    (``relevance.Judges``): a searcher's (``POST /v1/knowledge/search``), a topic to draft, or
    a question to answer. ``door``: the scores are the search door's (``relevance.passages``:
    recalibrated on its own passages; the judge's with ``shown=False``), and ``answered`` says
    whether one answers it as a search (on the door's scale)."""
    embedder = get_embedder()
    retrieval.check_index([KNOWLEDGE], embedder)
    wanted = set(tags or ())
    query = acronyms.spelled(query)  # "NPPC v. Ross" with its name (decision 0087)

    def keep(doc: dict[str, Any]) -> bool:
        return not wanted or bool(wanted & set(doc.get("tags") or ()))

    pool = limit * POOL
    words = text_search(query, pool, keep if wanted else None)
    vector = retrieval.embed_query(query, embedder)
    prefilter = ("tags", "array_contains_any", sorted(wanted)) if wanted else None
    meaning = retrieval.semantic_search(KNOWLEDGE, vector, embedder, pool, prefilter=prefilter)
    fused = retrieval.fuse(
        [meaning, words], key=lambda hit: hit.id, limit=max(pool, relevance.JUDGED)
    )
    # in retrieval's order only the passages answered are judged (unless judge_all)
    every = judge_order if judge_all is None else judge_all
    candidates = [hit for hit, _ in fused][: None if every else limit]
    texts = [passage_text(hit.doc) for hit in candidates]
    asked = relevance.reusable(embedder.model_id, vector)
    if asked is None:
        asked = relevance.embed([query])[0]
    scores = relevance.judged(
        query,
        [
            relevance.Candidate(text, relevance.unpack(hit.doc.get(relevance.VECTOR_FIELD)))
            for text, hit in zip(texts, candidates, strict=True)
        ],
        kind,
        asked,
    )
    at_door = relevance.passages(scores) if door else scores
    floor_at_door = relevance.PASSAGE_FLOOR  # a passage's, holding a word of the query or not
    answered = door and relevance.answers(query, texts, at_door, floor_at_door, floor_at_door)
    if shown:
        scores = at_door
    ranked = list(zip(candidates, scores, strict=True))
    if judge_order:
        ranked.sort(key=lambda pair: -pair[1])
    hits = [_hit(hit, score) for hit, score in ranked if score >= floor][:limit]
    held = bool(words) or relevance.shares_words(query, texts)  # a passage holds a query word
    top = max(ranked, key=lambda pair: pair[1], default=None)
    return Found(
        hits, max(scores, default=0.0), held, answered, None if top is None else _hit(*top), asked
    )


def _hit(hit: Any, score: float) -> dict[str, Any]:
    """A passage as a knowledge search gives it."""
    return {
        "passage": hit.doc["passage"],
        "title": hit.doc["title"],
        "url": hit.doc.get("url"),
        "section": hit.doc.get("section") or hit.doc["title"],
        "sources": hit.doc.get("sources") or [],
        # which source holds each sentence, for a document with footnotes (decision 0089)
        "footnoted": bool(hit.doc.get("footnoted")),
        "provenance": hit.doc.get("provenance") or [],
        "score": round(score, relevance.SCORE_PLACES),
    }


def searched(query: str, limit: int, tags: list[str] | None = None, shown: bool = True) -> Found:
    """What ``POST /v1/knowledge/search`` answers (decision 0067): the passages in retrieval's
    order, each scored by the judge as a search and recalibrated on the door's own passages
    (``relevance.passages``; with ``shown=False`` the judge's score, for
    ``bench/calibration_pairs.py``), none left out by score; nothing when no passage holds a
    word of the query (gibberish) and the judge passes none, or when the query is about another
    field altogether (``common.search.domain``, decision 0077)."""
    found = search_scored(
        query, limit, tags, floor=0.0, kind="search", judge_order=False, door=True, shown=shown
    )
    titles = [hit["title"] for hit in found.hits]
    if domain.outside(query, titles, found.asked):  # another field: nothing, free (0077)
        return Found([], found.best, found.words, False, outside=True)
    if found.words or found.answered:
        return found
    return Found([], found.best, found.words, found.answered)


def text_search(
    query: str, limit: int, keep: Callable[[dict[str, Any]], bool] | None = None
) -> list[retrieval.Hit]:
    """The passages best matching the query's words, with a document's passages past its first
    ``PER_DOCUMENT`` after every other document's (decision 0049): a long guide that repeats a
    query word in every passage would otherwise fill the list and hide the other documents
    that answer it. A search that only one document matches (a tag filter) still gets all of
    its passages. A query word's synonyms in the guides' words count as the word (decision
    0055: "jail" finds "imprisonment")."""
    return retrieval.text_search(
        KNOWLEDGE,
        query,
        limit,
        keep,
        FIELDS,
        group=document_of,
        per_group=PER_DOCUMENT,
        related=synonyms.related(),
    )


def coverage(query: str) -> float:
    """The judged relevance of the corpus's best passage for ``query``: for bench/coverage.py."""
    return search_scored(query, 1).best
