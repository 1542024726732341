"""Search over the tables. No Flask here.

``text`` ranks by BM25 over each table's text index, ``semantic`` by cosine similarity;
``hybrid`` runs both and fuses the two rankings by weighted reciprocal rank (``hybrid_weight``:
0 words only, 1 meaning only). Over several tables, each table is searched in parallel and the
per-table rankings are merged. Filters are exact values checked on the candidates.

Every part (words or meaning, per table) runs on a worker with the search's time budget
(``SEARCH_BUDGET_S``, below the database deadline): what has not answered by then, or failed,
is left out, and the results say ``degraded``. A semantic search whose meaning has not
answered (or has failed) by half the budget starts words beside it, and answers by words if
meaning gets nothing in time (the emulator reads every vector; production answers from an
index well before the hedge, so it never pays for the words). Only when no part answers is
the search a 502 (decision 0048).
"""

from __future__ import annotations

import contextvars
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from common.adapters.firestore import backend_unavailable, is_backend_error
from common.config import get_settings
from common.errors import AppError, BackendUnavailable, FieldError, InvalidRequest, NotFound
from common.logging import get_logger
from common.search import domain, relevance, retrieval
from common.search.embeddings import get_embedder
from functions.search.tables import TABLES, Table

logger = get_logger("ars.search")
DEFAULT_HYBRID_WEIGHT = 0.5
POOL = 3  # each part of a hybrid search finds this many times the wanted records
WORKERS = 48  # parts of MAX_CONCURRENT_SEARCHES searches over five tables (2 x 5 each) at once


def table(name: str) -> Table:
    found = TABLES.get(name)
    if found is None:
        raise NotFound(f"No table named {name[:64]!r}; the tables are {', '.join(TABLES)}.")
    return found


@dataclass
class Results:
    hits: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    words: bool = True  # a record holds one of the query's words (judged searches)
    answered: bool = False  # a result answers the query (``relevance.answers``)
    outside: bool = False  # the query is about another field (``common.search.domain``)


def search(
    tables: list[Table],
    query: str,
    search_type: str,
    limit: int,
    filters: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """``[{table, id, score, record}]``, best first, at most ``limit``: the service's own
    lookups (a name in the records, a company's campaigns), which match names themselves, so
    the candidates are ranked as found and not judged (``score``: the part's own)."""
    return search_results(tables, query, search_type, limit, filters, judged=False).hits


def search_results(
    tables: list[Table],
    query: str,
    search_type: str,
    limit: int,
    filters: dict[str, str] | None = None,
    hybrid_weight: float | None = None,
    min_score: float | None = None,
    judged: bool = True,
) -> Results:
    """The hits (``[{table, id, score, record}]``, best first, at most ``limit``, none below
    ``min_score``) and whether a part of the search was left out (``degraded``)."""
    keep = _filter(tables, filters) if filters else None
    weight = DEFAULT_HYBRID_WEIGHT if hybrid_weight is None else hybrid_weight
    words = search_type == "text" or (search_type == "hybrid" and weight < 1)
    meaning = search_type == "semantic" or (search_type == "hybrid" and weight > 0)
    budget = get_settings().search_budget_s
    deadline = time.monotonic() + budget
    pool_size = limit * POOL if words and meaning else limit  # each part's, for the fusion
    parts: list[tuple[str, Table, Future[list[retrieval.Hit]]]] = []
    vector: list[float] | None = None  # the query's, when meaning is searched
    early: Future[Any] | None = None  # the judge's query vector, embedded while the parts run
    if judged and not (meaning and relevance.own_encoder(get_embedder().model_id)):
        early = _workers().submit(relevance.embed, [query])

    def by_words(t: Table) -> Future[list[retrieval.Hit]]:
        fields = (*t.fields, relevance.VECTOR_FIELD)
        return _submit(
            retrieval.text_search, t.collection, query, pool_size, _kept(keep, t), fields
        )

    if words:
        parts += [("words", t, by_words(t)) for t in tables]
    if meaning:
        embedder = get_embedder()
        retrieval.check_index([t.collection for t in tables], embedder)
        vector = retrieval.embed_query(query, embedder)
        prefilter = _prefilter(filters)
        for t in tables:
            job = _submit(
                retrieval.semantic_search,
                t.collection,
                vector,
                embedder,
                pool_size,
                _kept(keep, t),
                prefilter,
                deadline,
            )
            parts.append(("meaning", t, job))
    hedge: list[tuple[str, Table, Future[list[retrieval.Hit]]]] = []
    if search_type == "semantic":
        half = deadline - budget / 2 - time.monotonic()
        wait_for([job for _, _, job in parts], timeout=max(0.0, half))
        if not all(job.done() and job.exception() is None for _, _, job in parts):
            hedge = [("words", t, by_words(t)) for t in tables]
    found, failed = _gather(parts, deadline)
    if hedge and not found["meaning"]:
        # nothing by meaning in time: the words started at half the budget stand in
        found["words"] = _gather(hedge, deadline)[0]["words"]
    if failed and not found["words"] and not found["meaning"]:
        raise failed[0]  # no part answered: 502
    texts, nearest = _merged(found["words"]), _merged(found["meaning"])
    if search_type == "text" or (search_type == "semantic" and not nearest):
        ranked = [(item, item[1].score) for item in texts[:pool_size]]
    elif search_type == "semantic":
        ranked = [(item, max(0.0, item[1].score)) for item in nearest[:pool_size]]
    else:
        weights = [2 * (1 - weight), 2 * weight]
        fused = retrieval.fuse(
            [texts, nearest],
            key=lambda item: (item[0].name, item[1].id),
            limit=pool_size,
            weights=weights,
        )
        best = sum(weights) / (retrieval.RRF_K + 1)  # first in both rankings
        # fuse rounds to 6 places: a first place in both can come out a hair above 1
        ranked = [(item, min(1.0, round(score / best, 6))) for item, score in fused]
    if not judged:  # the service's own lookups: the parts' scores
        return Results(
            [
                {"table": t.name, "id": hit.id, "score": score, "record": _record(t, hit)}
                for (t, hit), score in ranked[:limit]
                if min_score is None or score >= min_score
            ],
            degraded=bool(failed),
        )
    # the results answered are judged; with min_score, every candidate, to fill the limit
    candidates = [item for item, _ in (ranked if min_score else ranked[:limit])]
    asked = early.result()[0] if early is not None else vector
    if domain.outside(query, [t.title_of(hit.doc) for t, hit in candidates], asked):
        return Results([], bool(failed), False, False, outside=True)  # another field (0077)
    read = [t.judged_text(hit.doc) for t, hit in candidates]
    scores = relevance.judged(
        query,
        [
            relevance.Candidate(
                text,
                relevance.unpack(hit.doc.get(relevance.VECTOR_FIELD)),
                t.indexed_text(hit.doc),  # embedded, if not stored, as the import embeds it
            )
            for text, (t, hit) in zip(read, candidates, strict=True)
        ],
        "search",  # a searcher's query ("mink", "sow stalls"): decision 0067
        asked,
        records=True,
    )
    kept = [  # in the order found: the judge's order loses records worded unlike the query
        (t, hit, score, text)
        for (t, hit), score, text in zip(candidates, scores, read, strict=True)
        # compared as given: a score sent back as min_score keeps its result
        if round(score, relevance.SCORE_PLACES) >= (min_score or 0.0)
    ][:limit]
    hits = [
        {
            "table": t.name,
            "id": hit.id,
            "score": round(score, relevance.SCORE_PLACES),
            "record": _record(t, hit),
        }
        for t, hit, score, _ in kept
    ]
    held = bool(texts) or relevance.shares_words(query, read)  # a record holds a query word
    answered = relevance.answers(
        query,
        [text for *_, text in kept],
        [score for _, _, score, _ in kept],
        relevance.RECORD_FLOOR,
    )
    return Results(hits, bool(failed), held, answered)


@cache
def _workers() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="search")


def _submit(fn: Any, *args: Any) -> Future[list[retrieval.Hit]]:
    """Run ``fn(*args)`` on a search worker, in this request's context (its log fields)."""
    context = contextvars.copy_context()
    return _workers().submit(context.run, fn, *args)


def _prefilter(filters: dict[str, str] | None) -> tuple[str, str, str] | None:
    """A semantic search pre-filters on one of its filters (the vector index holds
    ``filter_keys``, decision 0048): the nearest records are then those that can match, not
    the nearest of all, which a selective filter would leave nearly empty. The others, and
    the exact comparison, are checked on the candidates."""
    if not filters:
        return None
    name, value = sorted(filters.items())[0]
    return ("filter_keys", "array_contains", f"{name}={value.lower()}")


def _kept(keep: Any, t: Table) -> Any:
    return keep(t) if keep is not None else None


def _gather(
    parts: list[tuple[str, Table, Future[list[retrieval.Hit]]]], deadline: float
) -> tuple[dict[str, list[tuple[Table, list[retrieval.Hit]]]], list[AppError]]:
    """The parts that answered by ``deadline``, by kind, and an error for each that did not
    (late: a timeout; failed: its error, a backend's as 502). A late part keeps running on its
    worker until its own database deadline ends it; nothing waits for it."""
    wait_for([job for _, _, job in parts], timeout=max(0.0, deadline - time.monotonic()))
    found: dict[str, list[tuple[Table, list[retrieval.Hit]]]] = {"words": [], "meaning": []}
    failed: list[AppError] = []
    for kind, t, job in parts:
        if not job.done():
            failed.append(BackendUnavailable("The search did not finish in time. Retry shortly."))
            logger.warning("search part late", extra={"part": kind, "table": t.name})
            continue
        error = job.exception()
        if error is None:
            found[kind].append((t, job.result()))
            continue
        if isinstance(error, AppError):
            failed.append(error)
        elif is_backend_error(error):
            failed.append(backend_unavailable(error))
        else:
            raise error
        logger.warning(
            "search part failed",
            extra={"part": kind, "table": t.name, "error": type(error).__name__},
        )
    return found, failed


def _merged(per_table: list[tuple[Table, list[retrieval.Hit]]]) -> list[tuple[Table, Any]]:
    merged = [(t, hit) for t, hits in per_table for hit in hits]
    merged.sort(key=lambda item: (-item[1].score, item[0].name, item[1].id))
    return merged


def _record(t: Table, hit: retrieval.Hit) -> dict[str, Any]:
    record = retrieval.public(hit.doc)
    return {name: record.get(name) for name in t.fields if name in record} | {"id": hit.id}


def _filter(tables: list[Table], filters: dict[str, str]) -> Any:
    """A per-table predicate for ``filters``; 400 naming a field no searched table has."""
    known = {name for t in tables for name in t.fields}
    unknown = [name for name in filters if name not in known or name == "id"]
    if unknown:
        raise InvalidRequest(
            "Unknown filter field.",
            errors=[
                FieldError(
                    f"filters.{name}", f"Not a field of {', '.join(t.name for t in tables)}."
                )
                for name in unknown
            ],
        )

    def for_table(t: Table) -> Any:
        wanted = {k: v for k, v in filters.items() if k in t.fields}
        if len(wanted) < len(filters):  # a filter this table cannot satisfy
            return lambda doc: False

        def keep(doc: dict[str, Any]) -> bool:
            for name, value in wanted.items():
                have = doc.get(name)
                if isinstance(have, list):
                    if value.lower() not in {str(v).lower() for v in have}:
                        return False
                elif str(have if have is not None else "").lower() != value.lower():
                    return False
            return True

        return keep

    return for_table
