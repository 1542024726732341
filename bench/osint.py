"""OSINT profile figures, printed as JSON: time to the first event and total time of a person
and a company profile with the fixture feeds, what the guardrails dropped on the fixture, and
how often they drop a sentence of the project's own reference text (false positives).

Everything runs in one process on a Firestore emulator of its own (a free port) with
``EMBEDDINGS_BACKEND=offline``, the demo tables and knowledge corpus imported as ``make run``
does (``data/sample``, ``data/knowledge``), and the fixture feed server of ``make run``
(``devtools.feedserver``: topic feeds, and a news search whose items of topic "people" hold a
professional item, one with planted personal data and a namesake). Requests go through the
real HTTP pipeline in process (the functions-framework app of ``main.api`` with Flask's test
client, not buffered): ``first_event_ms`` is when the first line of the stream arrived,
``total_ms`` when the last did. The first run of each profile is reported apart (``cold``):
it loads the embedding model for the knowledge search and fetches every feed; later runs get
the feeds' 304s (conditional GET). The per-subject limit is off for the bench.

``reference_text`` screens every sentence of ``data/sample``, ``data/knowledge`` and the
fixture feed items (those of topic "people" excepted: they are planted) with the personal-data
screen (``common.privacy``) as a person profile, a company profile and any other door (no
records) call it: each dropped sentence is a false positive, and a sentence of the corpus the
screen drops is one no draft or answer can quote.

Run: ``.venv/bin/python bench/osint.py [--runs N]`` (about a minute, most of it the imports).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.emulated import api_key, environment  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

PERSON = ("/v1/osint/personal-profile", {
    "firstName": "Priya", "lastName": "Raman", "companyName": "Brightwell Supermarkets",
    "reportGoal": "Prepare a meeting about the egg pledge",
})  # fmt: skip
COMPANY = ("/v1/osint/company-profile", {"companyName": "Brightwell Supermarkets"})


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def setup(emulator: Emulator, workdir: Path) -> tuple[Any, str]:
    """Environment, fixture feeds, imported demo data; (feed server, API key)."""
    from devtools.feedserver import search_template, serve, write_catalog

    feeds = serve(0)
    environment(
        emulator,
        OSINT_SUBJECT_DAILY_LIMIT="0",
        FEED_CATALOG_PATH=str(write_catalog(feeds.url, workdir / "feeds.json")),
        NEWS_SEARCH_URL=search_template(feeds.url),
    )
    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    for table in TABLES.values():
        import_records(table, ROOT / "data" / "sample" / f"{table.name}.jsonl")
    import_knowledge([ROOT / "data" / "knowledge"])
    return feeds, api_key("bench-osint@example.org", 100_000)


def timed(path: str, body: dict[str, Any], key: str) -> dict[str, Any]:
    from tests.helpers import client

    started = time.perf_counter()
    response = client().post(
        path, json=body, headers={"Authorization": f"Bearer {key}"}, buffered=False
    )
    first = None
    chunks = []
    for chunk in response.response:
        if first is None:
            first = time.perf_counter()
        chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode())
    ended = time.perf_counter()
    lines = [json.loads(line) for line in b"".join(chunks).decode().splitlines() if line]
    end = lines[-1]
    return {
        "status": response.status_code,
        "first_event_ms": round(((first or ended) - started) * 1000, 1),
        "total_ms": round((ended - started) * 1000, 1),
        "events": Counter(e["type"] for e in lines),
        "end": end,
        "sources": [e for e in lines if e["type"] == "source"],
    }


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    cold, warm = runs[0], runs[1:] or runs
    end = cold["end"]

    def stats(field: str) -> dict[str, float]:
        values = sorted(run[field] for run in warm)
        return {"p50": round(statistics.median(values), 1), "max": values[-1]}

    return {
        "cold": {"first_event_ms": cold["first_event_ms"], "total_ms": cold["total_ms"]},
        "warm": {
            "runs": len(warm),
            "first_event_ms": stats("first_event_ms"),
            "total_ms": stats("total_ms"),
        },
        "end_event": end,
        "events": dict(cold["events"]),
        "sources": {
            s["source"]: {k: s[k] for k in ("read", "used", "leftOut", "status")}
            for s in cold["sources"]
        },
    }


def reference_text() -> dict[str, Any]:
    """Screen drops on sentences that hold no personal data: false positives."""
    from common.privacy import NOBODY, Known, screen_many
    from functions.osint.report import sentences

    texts: list[str] = []
    for path in sorted((ROOT / "data" / "sample").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            texts += [
                str(record[k]) for k in ("title", "description", "summary", "body") if record.get(k)
            ]
    for path in sorted((ROOT / "data" / "knowledge").glob("*.md")):
        texts += [p for p in path.read_text().split("---", 2)[-1].split("\n\n") if p.strip()]
    items = json.loads((ROOT / "devtools" / "feeds" / "items.json").read_text())["items"]
    for item in items:
        if item["topic"] != "people":
            texts += [item["title"], re.sub(r"<[^>]+>", " ", item["summary"])]
    found = [s for text in texts for s in sentences(text.replace("#", " ")) if len(s) > 15]
    known = {
        "person": Known(
            names=frozenset({"priya", "raman"}), organisations=frozenset({"brightwell"})
        ),
        "company": Known(organisations=frozenset({"brightwell"})),
        "any_door": NOBODY,
    }
    out: dict[str, Any] = {"sentences": len(found)}
    for name, what in known.items():
        verdicts = screen_many(found, what)
        dropped = [(v, s) for v, s in zip(verdicts, found, strict=True) if v]
        out[f"dropped_as_{name}"] = len(dropped)
        out[f"false_positive_rate_{name}"] = round(len(dropped) / max(1, len(found)), 4)
        out[f"examples_{name}"] = [f"{k}: {s[:120]}" for k, s in dropped[:5]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each profile (5)")
    args = parser.parse_args()
    began = time.perf_counter()
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-osint").start()
    results: dict[str, Any] = {}
    try:
        with redirect_stdout(sys.stderr), tempfile.TemporaryDirectory() as tmp:
            progress("importing the demo tables and corpus (embedding)...")
            imported = time.perf_counter()
            feeds, key = setup(emulator, Path(tmp))
            results["import_s"] = round(time.perf_counter() - imported, 1)
            try:
                for name, (path, body) in (("person", PERSON), ("company", COMPANY)):
                    progress(f"{name} profile x{args.runs}...")
                    runs = [timed(path, body, key) for _ in range(max(1, args.runs))]
                    results[name] = summary(runs)
            finally:
                feeds.shutdown()
            results["reference_text"] = reference_text()
        results["seconds_total"] = round(time.perf_counter() - began, 1)
        print(json.dumps(results, indent=2, ensure_ascii=False))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
