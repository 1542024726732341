"""Recalibrate the relevance judge's scores of records (issue 44, decision 0067) on the search
door's own hits of the tables, and write the calibration into ``data/relevance/model.json``.

The judge learns from pairs chosen the way ``devtools.spent_pairs`` chooses them, and a record
among the door's top ten for a searcher's query is another population: on the held-apart sets
the judge said 0.14 of the records it scored 0.1-0.2 answered, and 0.02 to 0.04 did. So the
log-odds of a record are rescaled, ``(scale, shift)`` per judge (short and full: Platt scaling),
fitted on the hits ``bench/relevance.py --only hits`` gives for tuning sets (dev, and
held-apart sets already measured that the judge did not learn), each hit labelled itself.
A passage is judged as before: the sets label documents, not sections, and a section is
relevant less often than its guide.

The calibration belongs to the model it was fitted on: a training writes a model without one,
and this refuses a model that has one (its hits would be scored by it).

Run (the hits of an uncalibrated model):
``PYTHONPATH=. .venv/bin/python bench/relevance.py --only hits --set holdout7+holdout8 > H.json``
then ``.venv/bin/python -m devtools.calibrate_relevance H.json``. Then choose the thresholds again
(``bench/relevance.py --only sweep``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

EPSILON = 1e-6


def platt(scores: list[float], labels: list[bool]) -> tuple[float, float]:
    """(scale, shift) minimising the log loss of ``sigmoid(scale * logit(score) + shift)``
    (Newton's method on the two parameters)."""
    p = np.clip(np.asarray(scores, dtype=float), EPSILON, 1 - EPSILON)
    x = np.log(p / (1 - p))
    y = np.asarray(labels, dtype=float)
    design = np.column_stack([x, np.ones_like(x)])
    theta = np.array([1.0, 0.0])
    for _ in range(100):
        q = 1 / (1 + np.exp(-(design @ theta)))
        gradient = design.T @ (q - y)
        hessian = design.T @ (design * (q * (1 - q))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return round(float(theta[0]), 6), round(float(theta[1]), 6)


def log_loss(scores: list[float], labels: list[bool], fitted: tuple[float, float]) -> float:
    total = 0.0
    for score, label in zip(scores, labels, strict=True):
        p = min(max(score, EPSILON), 1 - EPSILON)
        q = 1 / (1 + math.exp(-(fitted[0] * math.log(p / (1 - p)) + fitted[1])))
        total -= math.log(q if label else 1 - q)
    return total / len(scores)


def main(argv: list[str] | None = None) -> int:
    from common.search.relevance import MODEL_PATH, Judges, read

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hits", nargs="+", type=Path, help="bench/relevance.py --only hits output")
    args = parser.parse_args(argv)
    judges = read(MODEL_PATH)
    if judges.long.records is not None or judges.short.records is not None:
        sys.exit(f"{MODEL_PATH} is calibrated already: its hits were scored so; train it again")
    hits = [hit for path in args.hits for hit in json.loads(path.read_text())["hits"]["hits"]]
    report: dict[str, object] = {}
    fitted = {}
    for name, short in (("long", False), ("short", True)):
        mine = [h for h in hits if h["short"] is short]
        scores = [h["score"] for h in mine]
        labels = [bool(h["relevant"]) for h in mine]
        if sum(labels) < 20 or len(labels) - sum(labels) < 20:
            sys.exit(f"{name}: {sum(labels)} relevant of {len(labels)} hits: too few to fit")
        fitted[name] = platt(scores, labels)
        report[name] = {
            "hits": len(mine),
            "relevant": sum(labels),
            "scale_shift": fitted[name],
            "log_loss_before": round(log_loss(scores, labels, (1.0, 0.0)), 4),
            "log_loss_after": round(log_loss(scores, labels, fitted[name]), 4),
        }
    calibrated = Judges(
        replace(judges.long, records=fitted["long"]),
        replace(judges.short, records=fitted["short"]),
    )
    MODEL_PATH.write_text(calibrated.to_json(), encoding="utf-8")
    print(json.dumps(report, indent=1))
    print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
