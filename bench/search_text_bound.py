"""Where text search's time goes as a table grows, printed as JSON: the Firestore emulator's own
``array_contains_any`` query (ids only, limit 500 and 50) against the whole text search and a
semantic search, in the same run, at 1,000 and 10,000 synthetic campaigns (bench/search.py's
generator, offline embeddings). Takes about 8 minutes, mostly embedding the 10,000 records.

``FIRESTORE_TIMEOUT_S`` is raised to 60 s here so that slow emulator queries are measured rather
than cut off at the service's 5 s deadline.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

QUERIES = (
    "cage-free eggs",
    "fur farm ban",
    "chicken welfare",
    "live export ships",
    "supermarket pledge",
)


def timed(run: Callable[[str], Any]) -> dict[str, float]:
    latencies = []
    for query in QUERIES:
        started = time.perf_counter()
        run(query)
        latencies.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(statistics.median(latencies), 1), "max_ms": round(max(latencies), 1)}


def main() -> None:
    os.environ.update(
        ENVIRONMENT="test",
        GOOGLE_CLOUD_PROJECT="demo-bench-text-bound",
        FIRESTORE_TIMEOUT_S="60",
        EMBEDDINGS_BACKEND="offline",
    )
    from devtools.emulator import Emulator, free_port

    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-text-bound")
    with TemporaryDirectory() as scratch:
        emulator.start(log_path=Path(scratch) / "emulator.log")
        os.environ["FIRESTORE_EMULATOR_HOST"] = emulator.address
        try:
            print(json.dumps(measure(Path(scratch)), indent=2))
        finally:
            emulator.stop()


def measure(scratch: Path) -> dict[str, Any]:
    from google.cloud.firestore_v1.base_query import FieldFilter

    from bench.search import synthetic_campaigns, write_jsonl
    from common.firestore import get_db
    from common.text.index import terms
    from functions.search import service
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    table = TABLES["campaigns"]

    def ids(limit: int) -> Callable[[str], Any]:
        def run(query: str) -> Any:
            matching = FieldFilter("search_terms", "array_contains_any", terms(query))
            collection = get_db().collection("campaigns")
            return list(collection.where(filter=matching).select([]).limit(limit).stream())

        return run

    result: dict[str, Any] = {"queries": list(QUERIES)}
    for count in (1000, 10000):
        get_db().recursive_delete(get_db().collection("campaigns"))
        started = time.monotonic()
        path = write_jsonl(scratch / f"campaigns-{count}.jsonl", synthetic_campaigns(count))
        written = import_records(table, path).written
        result[str(count)] = {
            "import_s": round(time.monotonic() - started, 1),
            "written": written,
            "emulator_query_ids_limit500": timed(ids(500)),
            "emulator_query_ids_limit50": timed(ids(50)),
            "text_search": timed(lambda q: service.search([table], q, "text", 10)),
            "semantic_search": timed(lambda q: service.search([table], q, "semantic", 10)),
        }
    return result


if __name__ == "__main__":
    main()
