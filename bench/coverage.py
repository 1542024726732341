"""Whether the knowledge corpus covers a content topic: the coverage score that makes an
uncovered topic 422 ``topic_not_covered`` (issue 24, decision 0039), measured on labelled
topics.

The whole corpus (``data/knowledge``) is loaded into a Firestore emulator of its own with the
offline embedder; each topic's coverage score (``functions.knowledge.service.coverage``: the
cosine similarity of the topic to its nearest passage) is computed. The threshold is chosen on
the tuning set (``bench/data/coverage_tuning.jsonl``, written by the team) as the midpoint of
the widest gap that separates it best, and measured on the held-apart set
(``bench/data/coverage_holdout.jsonl``, labelled by a helper session that read the corpus and
nothing of this code), which nothing is tuned on. Prints JSON: per set, accuracy, covered
topics refused and uncovered topics drafted at the service's threshold
(``functions.content.service.COVERAGE_MIN``), and the threshold the tuning set would pick.

Run: ``.venv/bin/python bench/coverage.py`` (a minute or two, most of it embedding the corpus).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.emulated import environment  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

SETS = {
    "tuning": ROOT / "bench" / "data" / "coverage_tuning.jsonl",
    "holdout": ROOT / "bench" / "data" / "coverage_holdout.jsonl",
}


def scored(path: Path) -> list[tuple[str, bool, float]]:
    from functions.knowledge.service import coverage

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(row["topic"], bool(row["covered"]), coverage(row["topic"])) for row in rows]


def judged(rows: list[tuple[str, bool, float]], threshold: float) -> dict[str, Any]:
    refused = [t for t, covered, score in rows if covered and score < threshold]
    drafted = [t for t, covered, score in rows if not covered and score >= threshold]
    return {
        "topics": len(rows),
        "accuracy": round(1 - (len(refused) + len(drafted)) / len(rows), 3),
        "covered_refused": len(refused),
        "uncovered_drafted": len(drafted),
    }


def best_threshold(rows: list[tuple[str, bool, float]]) -> float:
    """The midpoint between two neighbouring scores that makes the fewest mistakes."""
    scores = sorted({score for _, _, score in rows})
    cuts = [(a + b) / 2 for a, b in itertools.pairwise(scores)] or scores
    return round(max(cuts, key=lambda c: (judged(rows, c)["accuracy"], -abs(c - 0.5))), 3)


def main() -> None:
    from functions.content.service import COVERAGE_MIN
    from functions.knowledge.importer import import_knowledge

    began = time.perf_counter()
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-coverage").start()
    environment(emulator, LLM_BACKEND="offline")
    results: dict[str, Any] = {"service_threshold": COVERAGE_MIN}
    try:
        with redirect_stdout(sys.stderr):
            documents = sorted(
                p for p in (ROOT / "data" / "knowledge").glob("*.md") if p.name != "README.md"
            )
            import_knowledge(documents)
            measured = {name: scored(path) for name, path in SETS.items() if path.exists()}
        results["tuning_threshold"] = best_threshold(measured["tuning"])
        for name, rows in measured.items():
            results[name] = judged(rows, COVERAGE_MIN)
            results[f"{name}_scores"] = {
                "covered": sorted(round(s, 3) for _, c, s in rows if c),
                "not_covered": sorted(round(s, 3) for _, c, s in rows if not c),
            }
        results["seconds"] = round(time.perf_counter() - began, 1)
        print(json.dumps(results, indent=2))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
