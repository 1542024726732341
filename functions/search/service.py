"""Search over the tables. No Flask here.

``text`` and ``semantic`` rank by their own score; ``hybrid`` runs both and fuses the two
rankings by reciprocal rank. Over several tables, each table is searched (in parallel) and the
per-table rankings are merged: by score for text and semantic, by RRF of the merged text and
semantic rankings for hybrid. Filters are exact values checked on the candidates, so a filtered
search looks at more candidates (five times the limit) to fill its page.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from common import retrieval
from common.embeddings import get_embedder
from common.errors import FieldError, InvalidRequest, NotFound
from functions.search.tables import TABLES, Table


def table(name: str) -> Table:
    found = TABLES.get(name)
    if found is None:
        raise NotFound(f"No table named {name[:64]!r}; the tables are {', '.join(TABLES)}.")
    return found


def search(
    tables: list[Table],
    query: str,
    search_type: str,
    limit: int,
    filters: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """``[{table, id, score, record}]``, best first, at most ``limit``."""
    keep = _filter(tables, filters) if filters else None
    embedder = get_embedder() if search_type != "text" else None
    vector = None
    if embedder is not None:
        retrieval.check_index([t.collection for t in tables], embedder)
        vector = retrieval.embed_query(query, embedder)
    pool_size = limit * 3 if search_type == "hybrid" else limit

    def one(t: Table) -> tuple[list[retrieval.Hit], list[retrieval.Hit]]:
        texts = (
            retrieval.text_search(t.collection, query, pool_size, keep and keep(t), t.fields)
            if search_type != "semantic"
            else []
        )
        nearest = (
            retrieval.semantic_search(t.collection, vector, embedder, pool_size, keep and keep(t))
            if vector is not None and embedder is not None
            else []
        )
        return texts, nearest

    if len(tables) == 1:
        results = [one(tables[0])]
    else:
        with ThreadPoolExecutor(max_workers=len(tables), thread_name_prefix="search") as pool:
            results = list(pool.map(one, tables))
    texts = _merged([(t, hits) for t, (hits, _) in zip(tables, results, strict=True)])
    nearest = _merged([(t, hits) for t, (_, hits) in zip(tables, results, strict=True)])
    if search_type == "text":
        ranked = [(item, item[1].score) for item in texts[:limit]]
    elif search_type == "semantic":
        ranked = [(item, item[1].score) for item in nearest[:limit]]
    else:
        ranked = retrieval.fuse(
            [texts, nearest], key=lambda item: (item[0].name, item[1].id), limit=limit
        )
    return [
        {"table": t.name, "id": hit.id, "score": score, "record": _record(t, hit)}
        for (t, hit), score in ranked
    ]


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
