"""Offline intent engine figures, printed as JSON: accuracy per intent and overall on the
held-out split (never used for training), p50/p99 latency of one detection (classification and
entity extraction) in process, and the import time of the engine.

Run: ``.venv/bin/python bench/intent.py``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common.offline.classifier import read_jsonl  # noqa: E402
from common.offline.engine import MODEL_PATH, detect_intent, model  # noqa: E402


def import_ms() -> float:
    code = ("import time; t = time.perf_counter(); import common.offline.engine as e; e.model(); "
            "print((time.perf_counter() - t) * 1000)")  # fmt: skip
    runs = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout) for _ in range(5)]  # fmt: skip
    return round(statistics.median(runs), 1)


def main() -> None:
    holdout = read_jsonl(MODEL_PATH.parent / "holdout.jsonl")
    model()  # loaded once, as in a warm instance
    totals, right, latencies = Counter(), Counter(), []
    confusion: Counter[tuple[str, str]] = Counter()
    for _ in range(3):
        for text, _label in holdout:
            started = time.perf_counter()
            predicted, _, _ = detect_intent(text)
            latencies.append((time.perf_counter() - started) * 1000)
    for text, label in holdout:
        predicted, _, _ = detect_intent(text)
        totals[label] += 1
        right[label] += predicted == label
        if predicted != label:
            confusion[(label, predicted)] += 1
    latencies.sort()
    print(json.dumps({
        "holdout_examples": len(holdout),
        "accuracy": round(sum(right.values()) / len(holdout), 4),
        "accuracy_per_intent": {k: round(right[k] / totals[k], 4) for k in sorted(totals)},
        "most_confused": [{"expected": a, "predicted": b, "count": n}
                          for (a, b), n in confusion.most_common(5)],
        "latency_ms": {"p50": round(statistics.median(latencies), 3),
                       "p99": round(latencies[int(0.99 * (len(latencies) - 1))], 3),
                       "samples": len(latencies)},
        "engine_import_and_model_load_ms": import_ms(),
        "targets": {"accuracy": 0.9, "p50_ms": 5},
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
