"""Knowledge search: the corpus's passages closest to a question, by meaning and by words.
No Flask here. Both rankings are fused by reciprocal rank (the answer's ``score``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common import retrieval
from common.embeddings import get_embedder
from common.firestore import KNOWLEDGE
from common.text import synonyms
from functions.knowledge.ids import document_of

POOL = 3  # each ranking looks at this many times the wanted passages
PER_DOCUMENT = 3  # a document's passages before the others' in the words ranking (0049)
FIELDS = ("doc_id", "title", "url", "section", "passage", "tags", "sources")  # what is used


def search(query: str, limit: int, tags: list[str] | None = None) -> list[dict[str, Any]]:
    """``[{passage, title, url, section, sources, score}]``, best first, at most ``limit``
    (``sources``: the document's list of its sources, for citations)."""
    return search_scored(query, limit, tags)[0]


def search_scored(
    query: str, limit: int, tags: list[str] | None = None
) -> tuple[list[dict[str, Any]], float]:
    """``search``'s hits, and how closely the corpus covers the query: the cosine similarity of
    its nearest passage (0 with none). Content refuses a topic below its measured threshold
    (decision 0039, ``bench/coverage.py``); one embedding and one vector query serve both."""
    embedder = get_embedder()
    retrieval.check_index([KNOWLEDGE], embedder)
    wanted = set(tags or ())

    def keep(doc: dict[str, Any]) -> bool:
        return not wanted or bool(wanted & set(doc.get("tags") or ()))

    pool = limit * POOL
    words = text_search(query, pool, keep if wanted else None)
    vector = retrieval.embed_query(query, embedder)
    prefilter = ("tags", "array_contains_any", sorted(wanted)) if wanted else None
    meaning = retrieval.semantic_search(KNOWLEDGE, vector, embedder, pool, prefilter=prefilter)
    fused = retrieval.fuse([meaning, words], key=lambda hit: hit.id, limit=limit)
    nearest = max((hit.score for hit in meaning), default=0.0)
    hits = [
        {
            "passage": hit.doc["passage"],
            "title": hit.doc["title"],
            "url": hit.doc.get("url"),
            "section": hit.doc.get("section") or hit.doc["title"],
            "sources": hit.doc.get("sources") or [],
            "score": score,
        }
        for hit, score in fused
    ]
    return hits, nearest


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
    """How closely the corpus covers ``query`` (``search_scored``): for bench/coverage.py."""
    return search_scored(query, 1)[1]
