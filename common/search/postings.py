"""The text index: postings per (collection, term) in Firestore, scored with BM25 (decision 0048).

A text query reads one document per query term (the term's head shard), and per synonym when
the caller gives them (knowledge search, at most ``MAX_RELATED``; decision 0055), and the
statistics document of the collection, then the records it returns: its cost is set by the
query, not by the table.

- ``text_postings/{collection}~{term}~0`` (the *head*) holds ``df`` (how many documents hold
  the term), ``shards`` (how many shards the term has) and ``packed``: its postings, document
  id -> ``[tf, dl, version]`` (the term's weighted frequency in the document, the document's
  weighted length, the first characters of its ``content_hash``), as one JSON string. One
  string, not a Firestore map: a full head is 2,000 values to encode on each write and
  decode on each read, and at 25,000 records that encoding was most of an import's time
  (66 of 130 s for 500 records; decision 0049). Heads written before hold the same as a map,
  ``postings``, which is still read. A head holds at most
  ``HEAD`` postings: those with the highest BM25 impact (tf against length), so a common
  term's head is its champion list; the others spill to ``~1``, ``~2``... which a query does
  not read (a common term weighs little; a document is still found by its rarer terms).
- ``text_postings/{collection}~~stats``: ``documents`` and ``length`` (their total weighted
  length), for the average document length.
- Title words count ``TITLE_WEIGHT`` times (a field weight, BM25F-style); ``K1`` and ``B`` are
  BM25's.

Writes come from the importers and ``reindex`` only (one writer per collection at a time), in
batches: a batch reads the heads of the terms it touches and rewrites each once. An updated
or removed document's postings are taken out of the heads; one that spilled to a later shard
may stay there, but a query checks every document it returns against its ``content_hash``
(a posting of another version, or of a deleted document, is never an answer), so a record is
never found by words it no longer has. ``reindex`` rebuilds the index from the records.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from common.adapters.firestore import TEXT_POSTINGS, get_db, retried, write_batched
from common.errors import NotIndexed
from common.language.index import term_counts
from common.language.index import terms as text_terms

HEAD = 500  # postings in a head shard (about 15 KB): what a query reads per term at most (0049)
# BM25's usual parameters, and title words three times. b 0.3 and titles twice did as well on
# the chat sets' knowledge questions (bench/data/quality_holdout_chat_2.jsonl; differences
# there were within a question) but lost the notice rule from a guide about a march in London
# (tests/emulator/test_legal_notes.py): long passages sharing incidental words ("next month")
# outranked it. Decision 0048.
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 3
VERSION_CHARS = 12
MAX_QUERY_TERMS = 30
MAX_RELATED = 6  # synonyms' heads a query reads beyond its own terms' (decision 0055)
HEADS_PER_READ = 100  # heads asked for in one batched read (a full head is about 15 KB)
SPARE = 5  # candidates read beyond the limit, for postings of an old version
READ_ROUNDS = 4  # pages of candidates checked against their records before giving up
WRITE_CHUNK = 400  # Firestore allows 500 writes per batch
# Stored on each indexed record: an import rewrites the records of an older format (their terms
# were extracted otherwise); "bm25-2": capitals tell "US" from "us" (decision 0057).
FORMAT = "bm25-2"


@dataclass(frozen=True)
class Indexed:
    """What the index holds of one document: its terms' weighted frequencies, its weighted
    length and its version (``content_hash``)."""

    counts: dict[str, float]
    length: float
    version: str

    @classmethod
    def of(cls, title: str, text: str, content_hash: str) -> Indexed:
        counts: dict[str, float] = defaultdict(float)
        for term, n in term_counts(title).items():
            counts[term] += TITLE_WEIGHT * n
        for term, n in term_counts(text).items():
            counts[term] += n
        return cls(dict(counts), float(sum(counts.values())), content_hash[:VERSION_CHARS])

    @classmethod
    def stored(cls, doc: dict[str, Any]) -> Indexed | None:
        """The index entry a stored record was written with, of whatever format: what the
        index holds of it, which an update takes out (None: never indexed)."""
        if not doc.get("postings_format"):
            return None
        counts = {t: float(c) for t, c in (doc.get("term_counts") or {}).items()}
        return cls(
            counts,
            float(doc.get("doc_len") or 0.0),
            str(doc.get("content_hash", ""))[:VERSION_CHARS],
        )

    def fields(self) -> dict[str, Any]:
        """Stored on the record, for the next update of its postings."""
        return {"term_counts": self.counts, "doc_len": self.length, "postings_format": FORMAT}


@dataclass(frozen=True)
class Change:
    doc_id: str
    old: Indexed | None  # what the index holds now (None: nothing)
    new: Indexed | None  # what it must hold (None: the document is gone)


STORED_FIELDS = ("term_counts", "doc_len", "postings_format", "content_hash")


def _head_id(collection: str, term: str, shard: int = 0) -> str:
    return f"{collection}~{term}~{shard}"


def _stats_id(collection: str) -> str:
    return f"{collection}~~stats"


def _impact(tf: float, length: float, average: float) -> float:
    return tf / (tf + K1 * (1 - B + B * length / max(average, 1.0)))


# --- writing -----------------------------------------------------------------------------------


def apply(collection: str, changes: Sequence[Change]) -> int:
    """Bring the postings of ``collection`` in line with ``changes``; returns the number of
    Firestore writes made (for the import report and the decision's cost figures)."""
    changes = [c for c in changes if c.old != c.new]
    if not changes:
        return 0
    db = get_db()
    postings = db.collection(TEXT_POSTINGS)
    stats_ref = postings.document(_stats_id(collection))
    stats = retried(stats_ref.get)
    documents = float(stats.get("documents") or 0) if stats.exists else 0.0
    length = float(stats.get("length") or 0) if stats.exists else 0.0
    added: dict[str, dict[str, list[Any]]] = defaultdict(dict)
    removed: dict[str, set[str]] = defaultdict(set)
    df: dict[str, int] = defaultdict(int)
    for change in changes:
        old_terms = set(change.old.counts) if change.old else set()
        new_terms = set(change.new.counts) if change.new else set()
        if change.old:
            documents, length = documents - 1, length - change.old.length
        if change.new:
            documents, length = documents + 1, length + change.new.length
            for term, tf in change.new.counts.items():
                added[term][change.doc_id] = [tf, change.new.length, change.new.version]
        for term in old_terms - new_terms:
            removed[term].add(change.doc_id)
        for term in new_terms - old_terms:
            df[term] += 1
        for term in old_terms - new_terms:
            df[term] -= 1
    average = length / documents if documents > 0 else 1.0
    touched = sorted(set(added) | set(removed))
    heads: dict[str, dict[str, Any]] = {}
    for start in range(0, len(touched), HEADS_PER_READ):
        chunk = touched[start : start + HEADS_PER_READ]
        refs = [postings.document(_head_id(collection, t)) for t in chunk]
        for snap in retried(partial(_read, db, refs)):
            heads[snap.id] = snap.to_dict() or {} if snap.exists else {}
    writes: list[tuple[Any, dict[str, Any], bool]] = []  # (ref, data, merge)
    for term in touched:
        head = heads.get(_head_id(collection, term)) or {}
        entries = _entries(head)
        for doc_id in removed.get(term, ()):
            entries.pop(doc_id, None)
        entries.update(added.get(term, {}))
        shards = int(head.get("shards") or 1)
        spilled = int(head.get("spilled") or 0)
        if len(entries) > HEAD:
            ranked = sorted(
                entries.items(), key=lambda kv: (-_impact(kv[1][0], kv[1][1], average), kv[0])
            )
            entries = dict(ranked[:HEAD])
            spill = dict(ranked[HEAD:])
            if shards == 1 or spilled + len(spill) > HEAD:
                shards, spilled = shards + 1, 0
            overflow = postings.document(_head_id(collection, term, shards - 1))
            writes.append(
                (
                    overflow,
                    {
                        "collection": collection,
                        "term": term,
                        "shard": shards - 1,
                        "postings": spill,
                    },
                    True,
                )
            )
            spilled += len(spill)
        data = {
            "collection": collection,
            "term": term,
            "shard": 0,
            "df": max(0, int(head.get("df") or 0) + df.get(term, 0)),
            "shards": shards,
            "spilled": spilled,
            "packed": json.dumps(entries, separators=(",", ":")),
        }
        writes.append((postings.document(_head_id(collection, term)), data, False))
    writes.append(
        (
            stats_ref,
            {
                "collection": collection,
                "documents": max(0.0, documents),
                "length": max(0.0, length),
            },
            False,
        )
    )
    return write_batched(writes, estimate=_size)


def _read(db: Any, refs: list[Any]) -> list[Any]:
    return list(db.get_all(refs))


def _entries(head: dict[str, Any]) -> dict[str, list[Any]]:
    """A head's postings: its ``packed`` JSON, or the map of a head written before."""
    packed = head.get("packed")
    if isinstance(packed, str):
        return dict(json.loads(packed))
    return dict(head.get("postings") or {})


def _size(data: dict[str, Any]) -> int:
    """About how many bytes a write of ``data`` sends (a posting: its id and three numbers)."""
    packed = data.get("packed")
    if isinstance(packed, str):
        return 100 + len(packed)
    return 100 + sum(len(doc_id) + 40 for doc_id in data.get("postings") or {})


def drop(collection: str) -> int:
    """Delete the whole text index of ``collection`` (before a rebuild); returns the count."""
    db = get_db()
    from common.adapters.firestore import where_eq

    query = db.collection(TEXT_POSTINGS).where(filter=where_eq("collection", collection))
    refs = [doc.reference for doc in query.select([]).stream()]
    for start in range(0, len(refs), WRITE_CHUNK):
        batch = db.batch()
        for ref in refs[start : start + WRITE_CHUNK]:
            batch.delete(ref)
        batch.commit()
    return len(refs)


# --- searching ---------------------------------------------------------------------------------


def _never_built(collection: str) -> None:
    """An empty collection has no statistics yet; one with documents has an index to build."""
    held = get_db().collection(collection).limit(1).select([]).get()
    if held:
        raise NotIndexed(
            f"The {collection} text index has not been built; an operator must run `reindex`."
        )


@dataclass
class Found:
    id: str
    score: float  # BM25 as a share of the query's highest possible score, 0..1
    doc: dict[str, Any]


def _concepts(wanted: list[str], related: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Each query term with its synonyms that the query does not hold already, each synonym
    under the first term that names it, ``MAX_RELATED`` in all."""
    taken = set(wanted)
    room = MAX_RELATED
    concepts = []
    for term in wanted:
        concept = [term]
        for other in related.get(term, ()):
            if room and other not in taken:
                concept.append(other)
                taken.add(other)
                room -= 1
        concepts.append(concept)
    return concepts


def _diversified(ranked: list[str], group: Callable[[str], str], per_group: int) -> list[str]:
    """``ranked`` with the documents past the first ``per_group`` of their group moved after
    all the others (in their order): other groups come first, and a group that is alone (a
    filter left only it) still fills the list."""
    taken: dict[str, int] = defaultdict(int)
    first: list[str] = []
    later: list[str] = []
    for doc_id in ranked:
        key = group(doc_id)
        taken[key] += 1
        (first if taken[key] <= per_group else later).append(doc_id)
    return first + later


def search(
    collection: str,
    query: str,
    limit: int,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    fields: Sequence[str] | None = None,
    meter: list[int] | None = None,
    group: Callable[[str], str] | None = None,
    per_group: int = 0,
    related: Mapping[str, Sequence[str]] | None = None,
) -> list[Found]:
    """The documents best matching the query's terms by BM25, at most ``limit``: one read of
    the statistics and of each term's head, then the best candidates' records, page by page,
    each checked against the version its postings were written for (and ``keep``). ``group``
    and ``per_group``: the documents of one group (by id) past its first ``per_group`` come
    after every other group's, so one long source cannot fill the list. ``related``: a term's
    synonyms (``common.language.synonyms``), which count as the term: a document scores by the
    best of them (at most ``MAX_RELATED`` more heads read). ``meter`` gets the number of
    documents each read asked for (what Firestore bills)."""
    wanted = text_terms(query)[:MAX_QUERY_TERMS]
    if not wanted:
        return []
    concepts = _concepts(wanted, related or {})
    db = get_db()
    postings = db.collection(TEXT_POSTINGS)
    refs = [postings.document(_stats_id(collection))]
    refs += [postings.document(_head_id(collection, t)) for c in concepts for t in c]
    read = {snap.id: snap.to_dict() or {} for snap in db.get_all(refs) if snap.exists}
    if meter is not None:
        meter.append(len(refs))
    stats = read.get(_stats_id(collection))
    if stats is None:
        _never_built(collection)
        return []
    documents = float(stats.get("documents") or 0)
    if documents <= 0:
        return []
    average = float(stats.get("length") or 0) / documents or 1.0
    scores: dict[str, float] = defaultdict(float)
    versions: dict[str, str] = {}
    whole = 0.0
    for concept in concepts:  # a query term and its synonyms: a document counts the best
        best: dict[str, float] = {}
        highest = 0.0
        for term in concept:
            head = read.get(_head_id(collection, term))
            if not head:
                continue
            df = max(1, int(head.get("df") or 0))
            idf = math.log(1 + (documents - df + 0.5) / (df + 0.5))
            highest = max(highest, idf * (K1 + 1))
            for doc_id, (tf, length, version) in _entries(head).items():
                score = idf * (K1 + 1) * _impact(float(tf), float(length), average)
                best[doc_id] = max(best.get(doc_id, 0.0), score)
                versions[doc_id] = str(version)
        whole += highest
        for doc_id, score in best.items():
            scores[doc_id] += score
    if not scores or whole <= 0:
        return []
    ranked = sorted(scores, key=lambda d: (-scores[d], d))
    if group is not None and per_group > 0:
        ranked = _diversified(ranked, group, per_group)
    # a page of candidates: the limit and a few more for postings of an old version; with a
    # filter, ten times the limit (the filter is checked on the records)
    page = limit + SPARE if keep is None else max(limit * 10, 100)
    collection_ref = db.collection(collection)
    selected = None if fields is None else sorted({*fields, "content_hash"})
    found: list[Found] = []
    for round_ in range(READ_ROUNDS):
        chunk = ranked[round_ * page : (round_ + 1) * page]
        if not chunk:
            break
        snaps = db.get_all([collection_ref.document(d) for d in chunk], field_paths=selected)
        if meter is not None:
            meter.append(len(chunk))
        by_id = {snap.id: snap for snap in snaps if snap.exists}
        for doc_id in chunk:
            snap = by_id.get(doc_id)
            if snap is None:
                continue  # deleted since it was indexed
            doc = snap.to_dict() or {}
            if str(doc.get("content_hash", ""))[:VERSION_CHARS] != versions[doc_id]:
                continue  # a posting of another version of the document
            if keep is not None and not keep(doc):
                continue
            found.append(Found(doc_id, round(scores[doc_id] / whole, 6), doc))
        if len(found) >= limit:
            break
    return found[:limit]
