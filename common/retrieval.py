"""Retrieval over a Firestore collection: by words, by meaning, or both.

Each searchable document carries, besides its own fields:

- ``search_terms``: the stemmed terms of its text (``common.text.index``), and ``title_terms``
  those of its title. Text search asks Firestore for the documents holding any of the query's
  terms (``array_contains_any``, at most 30 terms), and scores the candidates in memory: the
  inverse-document-frequency weight of the query terms each one holds (estimated over the
  candidates), with a bonus for terms in the title, as a share of the query's whole weight.
- ``embedding`` (a Firestore vector), ``embedding_model`` and ``embedding_dim``. Semantic search
  is Firestore vector search (``find_nearest``, cosine) pre-filtered on ``embedding_model``.
- hybrid fuses the two rankings by reciprocal rank (RRF, k = 60).

Vectors of two models are never mixed: ``search_indexes/{collection}`` records the model an index
was built with; a search or an import with another model is refused (run ``reindex``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from common.embeddings import Embedder, get_embedder
from common.errors import BackendUnavailable
from common.firestore import SEARCH_INDEXES, get_db, where_eq
from common.text.index import terms as text_terms

RRF_K = 60
REINDEXING = "reindexing:"  # the index model while a reindex runs
MAX_QUERY_TERMS = 30  # Firestore's limit of array_contains_any values
TEXT_CANDIDATES = 500
TITLE_BONUS = 0.5  # a query term in the title weighs this much more
INTERNAL_FIELDS = frozenset(
    {
        "search_terms",
        "title_terms",
        "embedding",
        "embedding_model",
        "embedding_dim",
        "content_hash",
        "indexed_at",
    }
)


@dataclass
class Hit:
    id: str
    score: float
    doc: dict[str, Any]


class IndexMismatch(BackendUnavailable):
    """The collection's vectors come from another model than this deployment embeds with."""


# --- indexing ----------------------------------------------------------------------------------


def content_hash(fields: dict[str, Any]) -> str:
    """A stable hash of what is indexed: unchanged records are not embedded again."""
    raw = json.dumps(fields, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()


def index_fields(title: str, text: str, vector: list[float], embedder: Embedder) -> dict[str, Any]:
    """The search fields stored with a document whose title is ``title`` and whose whole
    searchable text is ``text``."""
    from google.cloud.firestore_v1.vector import Vector

    return {
        "search_terms": text_terms(f"{title}\n{text}"),
        "title_terms": text_terms(title),
        "embedding": Vector(vector),
        "embedding_model": embedder.model_id,
        "embedding_dim": embedder.dimension,
        "indexed_at": datetime.now(UTC),
    }


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


def reindex(
    collection: str,
    title_and_text: Callable[[dict[str, Any]], tuple[str, str]],
    *,
    embedder: Embedder | None = None,
    progress: Callable[[int, int], None] | None = None,
    page_size: int = 100,
) -> int:
    """Embed every document of ``collection`` again with the current embedder (after a model
    change); returns the count. While it runs, searches and imports of the collection are
    refused (its vectors are of two models), and it can be run again after a failure."""
    embedder = embedder or get_embedder()
    db = get_db()
    _set_index_model(collection, REINDEXING + embedder.model_id, embedder.dimension)
    total = db.collection(collection).count().get()[0][0].value
    done, last = 0, None
    while True:
        page = db.collection(collection).order_by("__name__").limit(page_size)
        if last is not None:
            page = page.start_after(last)
        docs = list(page.stream())
        if not docs:
            break
        pairs = [title_and_text(public(doc.to_dict() or {})) for doc in docs]
        vectors = embedder.embed([f"{title}\n{text}" for title, text in pairs], "document")
        batch = db.batch()
        for doc, (title, text), vector in zip(docs, pairs, vectors, strict=True):
            batch.update(doc.reference, index_fields(title, text, vector, embedder))
        batch.commit()
        done, last = done + len(docs), docs[-1]
        if progress is not None:
            progress(done, max(done, int(total)))
    _set_index_model(collection, embedder.model_id, embedder.dimension)
    return done


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
) -> list[Hit]:
    """Documents holding the query's terms, best first (see the module's doc). ``fields``: the
    document fields to read besides the terms (default: all of them, the vector included --
    name them: hundreds of candidates' vectors are most of what a text search would read)."""
    wanted = text_terms(query)[:MAX_QUERY_TERMS]
    if not wanted:
        return []
    query_ref = (
        get_db()
        .collection(collection)
        .where(filter=_filter("search_terms", "array_contains_any", wanted))
    )
    if fields is not None:
        query_ref = query_ref.select([*fields, "search_terms", "title_terms"])
    found = query_ref.limit(TEXT_CANDIDATES).stream()
    candidates = [(doc.id, doc.to_dict() or {}) for doc in found]
    candidates = [(i, d) for i, d in candidates if keep is None or keep(d)]
    if not candidates:
        return []
    count = len(candidates)
    holding = {term: 0 for term in wanted}
    term_sets = []
    for _, doc in candidates:
        held = set(doc.get("search_terms") or ())
        term_sets.append(held)
        for term in wanted:
            if term in held:
                holding[term] += 1
    weight = {t: math.log(1 + (count - n + 0.5) / (n + 0.5)) + 0.1 for t, n in holding.items()}
    whole = sum(weight.values()) * (1 + TITLE_BONUS)
    hits = []
    for (doc_id, doc), held in zip(candidates, term_sets, strict=True):
        titled = set(doc.get("title_terms") or ())
        score = sum(
            weight[t] * (1 + (TITLE_BONUS if t in titled else 0)) for t in wanted if t in held
        )
        hits.append(Hit(doc_id, round(score / whole, 6), doc))
    hits.sort(key=lambda hit: (-hit.score, hit.id))
    return hits[:limit]


def semantic_search(
    collection: str,
    vector: list[float],
    embedder: Embedder,
    limit: int,
    keep: Callable[[dict], bool] | None = None,
    prefilter: tuple[str, str, Any] | None = None,
) -> list[Hit]:
    """The nearest documents by cosine similarity, among those embedded with ``embedder``."""
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
    # google-cloud-firestore 2.x annotates find_nearest() as returning the class VectorQuery
    # (it returns an instance), so stream() reads as an unbound call: hence the ignore.
    for doc in nearest.stream():  # type: ignore[call-arg]
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
