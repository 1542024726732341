"""Retrieval over a Firestore collection: by words, by meaning, or both.

Each searchable document carries, besides its own fields:

- ``term_counts``, ``doc_len`` and ``postings_format``: what the collection's text index
  (``common.search.postings``, decision 0048) holds of it. Text search is BM25 over that index: one
  read per query term and the records returned, whatever the size of the table.
- ``embedding`` (a Firestore vector), ``embedding_model`` and ``embedding_dim``. Semantic search
  is Firestore vector search (``find_nearest``, cosine) pre-filtered on ``embedding_model``.
- hybrid fuses the two rankings by reciprocal rank (RRF, k = 60).
- ``judge_vector`` and ``judge_model``: the relevance judge's own vector of the document
  (``common.search.relevance``, decision 0067), whatever the retrieval embedder.

Vectors of two models are never mixed: ``search_indexes/{collection}`` records the model an index
was built with; a search or an import with another model is refused (run ``reindex``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from common.adapters.firestore import SEARCH_INDEXES, get_db, retried, where_eq
from common.errors import IndexMismatch
from common.search.embeddings import Embedder, get_embedder

RRF_K = 60
REINDEXING = "reindexing:"  # the index model while a reindex runs
INTERNAL_FIELDS = frozenset(
    {
        "search_terms",
        "title_terms",
        "term_counts",
        "doc_len",
        "postings_format",
        "filter_keys",
        "embedding",
        "embedding_model",
        "embedding_dim",
        "judge_vector",
        "judge_model",
        "content_hash",
        "indexed_at",
    }
)


@dataclass
class Hit:
    id: str
    score: float
    doc: dict[str, Any]


# --- indexing ----------------------------------------------------------------------------------


def content_hash(fields: dict[str, Any]) -> str:
    """A stable hash of what is indexed: unchanged records are not embedded again."""
    raw = json.dumps(fields, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()


def index_fields(
    vector: list[float], embedder: Embedder, indexed: Any, judged: bytes
) -> dict[str, Any]:
    """The search fields stored with a document: its ``vector`` by ``embedder``, ``indexed``
    (a ``postings.Indexed``: what its postings hold) and ``judged`` (its relevance judge's
    vector, ``judge_vectors``)."""
    from google.cloud.firestore_v1.vector import Vector

    from common.search import relevance

    return {
        **indexed.fields(),
        "embedding": Vector(vector),
        "embedding_model": embedder.model_id,
        "embedding_dim": embedder.dimension,
        relevance.VECTOR_FIELD: judged,
        "judge_model": relevance.VECTOR_MODEL,
        "indexed_at": datetime.now(UTC),
    }


def judge_vectors(texts: list[str], vectors: Sequence[Any], embedder: Embedder) -> list[bytes]:
    """The relevance judge's vectors of ``texts`` embedded as ``vectors`` by ``embedder`` (the
    same vectors when the embedder is the judge's MiniLM, else MiniLM's)."""
    from common.search import relevance

    return relevance.vectors(texts, vectors, embedder.model_id)


def fresh(stored: dict[str, Any], digest: str, embedder: Embedder) -> bool:
    """Whether a stored document (its ``content_hash``, ``embedding_model`` and text-index
    fields) is already what an import of content hashing to ``digest`` would write."""
    from common.search import postings, relevance

    return (
        stored.get("content_hash") == digest
        and stored.get("embedding_model") == embedder.model_id
        and stored.get("postings_format") == postings.FORMAT
        and stored.get("judge_model") == relevance.VECTOR_MODEL
    )


def compared_fields() -> list[str]:
    """The stored fields ``fresh`` compares: an import reads only these."""
    from common.search import postings

    return ["embedding_model", "judge_model", *postings.STORED_FIELDS]


def claim_index(collection: str, embedder: Embedder) -> None:
    """Before writing vectors: the collection is (now) indexed with ``embedder``'s model, or
    IndexMismatch when it holds another model's vectors."""
    ref = get_db().collection(SEARCH_INDEXES).document(collection)
    snapshot = ref.get()
    if snapshot.exists and snapshot.get("model") != embedder.model_id:
        raise IndexMismatch(_mismatch(collection, snapshot.get("model"), embedder))
    if not snapshot.exists:
        _set_index_model(collection, embedder.model_id, embedder.dimension)


def _set_index_model(collection: str, model: str, dimension: int) -> None:
    get_db().collection(SEARCH_INDEXES).document(collection).set(
        {"model": model, "dimension": dimension, "updated_at": datetime.now(UTC)}
    )


def warm() -> None:
    """Load what a search needs on first use (``common.http.warmup``): the embedder and its
    model, and the text terms' stop words and stemmer."""
    from common.language.index import terms

    get_embedder().embed(["How do cage-free campaigns start?"], "query")
    terms("How do cage-free campaigns start?")


def reindex(
    collection: str,
    title_and_text: Callable[[dict[str, Any]], tuple[str, str]],
    *,
    embedder: Embedder | None = None,
    progress: Callable[[int, int], None] | None = None,
    page_size: int = 100,
    embed: bool = True,
    extra: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> int:
    """Embed every document of ``collection`` again with the current embedder (after a model
    change) and rebuild its text index; returns the count. While it runs, searches and
    imports of the collection are refused (its vectors are of two models), and it can be run
    again after a failure. ``embed`` False rebuilds the text index only (after an upgrade
    that changed it): the vectors stay, and semantic search keeps answering. ``extra`` gives
    more search fields to store with each document (a table's ``filter_keys``)."""
    from common.search import postings

    embedder = embedder or get_embedder()
    db = get_db()
    if embed:
        _set_index_model(collection, REINDEXING + embedder.model_id, embedder.dimension)
    postings.drop(collection)
    total = db.collection(collection).count().get()[0][0].value
    done = 0
    for docs in _pages(collection, page_size):
        records = [public(doc.to_dict() or {}) for doc in docs]
        pairs = [title_and_text(record) for record in records]
        texts = [f"{title}\n{text}" for title, text in pairs]
        vectors = embedder.embed(texts, "document") if embed else [None] * len(texts)
        judged = judge_vectors(texts, vectors, embedder) if embed else [b""] * len(texts)
        digests = [content_hash(record) for record in records]
        indexed = [
            postings.Indexed.of(title, text, digest)
            for digest, (title, text) in zip(digests, pairs, strict=True)
        ]
        postings.apply(
            collection, [postings.Change(d.id, None, i) for d, i in zip(docs, indexed, strict=True)]
        )
        batch = db.batch()
        for doc, record, vector, entry, digest, judge in zip(
            docs, records, vectors, indexed, digests, judged, strict=True
        ):
            fields = (
                index_fields(vector, embedder, entry, judge)
                if vector is not None
                else entry.fields()
            )
            more = extra(record) if extra is not None else {}
            batch.update(doc.reference, {**fields, **more, "content_hash": digest})
        retried(batch.commit)
        done += len(docs)
        if progress is not None:
            progress(done, max(done, int(total)))
    if embed:
        _set_index_model(collection, embedder.model_id, embedder.dimension)
    return done


def stale_terms(
    collection: str,
    title_and_text: Callable[[dict[str, Any]], tuple[str, str]],
    *,
    page_size: int = 200,
) -> tuple[int, list[str]]:
    """(documents read, ids of those whose stored search terms differ from the terms their
    text gives now): a wrong term written under concurrency (issue 43: a stemmer shared by
    threads stemmed "hatcheries" as "enrich"), or an index of an older format. Nothing is
    changed; ``reindex`` with ``embed`` False rebuilds the text index."""
    from common.search import postings

    read, stale = 0, list[str]()
    for docs in _pages(collection, page_size):
        for doc in docs:
            data = doc.to_dict() or {}
            title, text = title_and_text(public(data))
            stored = postings.Indexed.stored(data)
            if stored is None or stored.counts != postings.Indexed.of(title, text, "").counts:
                stale.append(doc.id)
        read += len(docs)
    return read, stale


def _pages(collection: str, page_size: int) -> Iterator[list[Any]]:
    """Every document of ``collection``, a page at a time, in name order (each read retried)."""
    db, last = get_db(), None
    while True:
        page = db.collection(collection).order_by("__name__").limit(page_size)
        if last is not None:
            page = page.start_after(last)
        docs: list[Any] = retried(partial(_listed, page))
        if not docs:
            return
        yield docs
        last = docs[-1]


def _listed(query: Any) -> list[Any]:
    return list(query.stream())


def check_index(collections: Iterable[str], embedder: Embedder) -> None:
    """Before a semantic search: IndexMismatch if a collection was built with another model
    (an empty, never-indexed collection is fine: it has no vectors to mix)."""
    db = get_db()
    refs = [db.collection(SEARCH_INDEXES).document(name) for name in collections]
    for snapshot in db.get_all(refs):
        if snapshot.exists and snapshot.get("model") != embedder.model_id:
            raise IndexMismatch(_mismatch(snapshot.id, snapshot.get("model"), embedder))


def _mismatch(collection: str, stored: str, embedder: Embedder) -> str:
    if stored.startswith(REINDEXING):
        return f"The {collection} index is being rebuilt; retry when `reindex` has finished."
    return (
        f"The {collection} index was built with {stored}, and this deployment embeds with "
        f"{embedder.model_id}; an operator must run `reindex`."
    )


# --- searching ---------------------------------------------------------------------------------


def text_search(
    collection: str,
    query: str,
    limit: int,
    keep: Callable[[dict], bool] | None = None,
    fields: Sequence[str] | None = None,
    group: Callable[[str], str] | None = None,
    per_group: int = 0,
    related: Mapping[str, Sequence[str]] | None = None,
) -> list[Hit]:
    """Documents holding the query's terms, best first, by BM25 over the collection's text
    index (``common.search.postings``): its cost is one read per query term plus the records it
    returns, whatever the table's size. ``fields``: the document fields to read (default: all
    of them, the vector included -- name them). ``group``, ``per_group``: a group's documents past
    that many come after the other groups' (``postings.search``). ``related``: the query terms'
    synonyms (``common.language.synonyms.related``)."""
    from common.search import postings

    found = postings.search(
        collection, query, limit, keep, fields, group=group, per_group=per_group, related=related
    )
    return [Hit(f.id, f.score, f.doc) for f in found]


def semantic_search(
    collection: str,
    vector: list[float],
    embedder: Embedder,
    limit: int,
    keep: Callable[[dict], bool] | None = None,
    prefilter: tuple[str, str, Any] | None = None,
    until: float | None = None,
) -> list[Hit]:
    """The nearest documents by cosine similarity, among those embedded with ``embedder``.

    With ``until`` (a ``time.monotonic()`` instant, the search's budget) the call is one
    attempt that the database abandons then, rather than a late search that keeps its worker
    and the database busy until the Firestore deadline."""
    from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
    from google.cloud.firestore_v1.vector import Vector

    query = (
        get_db().collection(collection).where(filter=where_eq("embedding_model", embedder.model_id))
    )
    if prefilter is not None:
        query = query.where(filter=_filter(*prefilter))
    wanted = min(1000, limit * 5 if keep is not None else limit)
    nearest = query.find_nearest(
        vector_field="embedding",
        query_vector=Vector(vector),
        distance_measure=DistanceMeasure.COSINE,
        limit=wanted,
        distance_result_field="vector_distance",
    )
    hits = []
    bounded: dict[str, Any] = {}
    if until is not None:
        bounded = {"retry": None, "timeout": max(0.01, until - time.monotonic())}
    for doc in nearest.stream(**bounded):
        data = doc.to_dict() or {}
        distance = data.pop("vector_distance", 1.0)
        if keep is None or keep(data):
            hits.append(Hit(doc.id, round(1.0 - float(distance), 6), data))
    return hits[:limit]


def embed_query(query: str, embedder: Embedder | None = None) -> list[float]:
    embedder = embedder or get_embedder()
    return embedder.embed([query], "query")[0]


def fuse(
    rankings: list[list[Any]],
    key: Callable[[Any], Any],
    limit: int,
    weights: list[float] | None = None,
) -> list[tuple[Any, float]]:
    """Reciprocal-rank fusion: each item's score is the sum of weight / (60 + rank) over the
    rankings it appears in (rank from 1; each ranking's weight 1 unless ``weights`` says);
    items keyed by ``key``; best first."""
    scores: dict[Any, float] = {}
    first: dict[Any, Any] = {}
    for index, ranking in enumerate(rankings):
        weight = weights[index] if weights else 1.0
        for rank, item in enumerate(ranking, start=1):
            k = key(item)
            scores[k] = scores.get(k, 0.0) + weight / (RRF_K + rank)
            first.setdefault(k, item)
    ordered = sorted(scores, key=lambda k: (-scores[k], str(k)))
    return [(first[k], round(scores[k], 6)) for k in ordered[:limit]]


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """A stored document without the search fields."""
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS and k != "vector_distance"}


def _filter(field: str, op: str, value: Any) -> Any:
    from google.cloud.firestore_v1.base_query import FieldFilter

    return FieldFilter(field, op, value)
