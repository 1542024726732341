"""Recalibrate the relevance judge's scores of records (issue 44, decision 0067) on the search
door's own hits of the tables, and write the calibration into ``data/relevance/model.json``.

The judge learns from pairs chosen the way ``devtools.spent_pairs`` chooses them, and a record
among the door's top ten for a searcher's query is another population: on the held-apart sets
the judge said 0.14 of the records it scored 0.1-0.2 answered, and 0.02 to 0.04 did, while
those it scored 0.9-1.0 answered about as often as it said. So a record's score ``p`` is mapped
to ``sigmoid(a ln p - b ln(1 - p) + c)``, ``(a, b, c)`` per judge (short and full: beta
calibration, which bends the low end and the high end apart; Platt's scaling of the log-odds,
shipped first, is ``a == b`` and left the records scored 0.1-0.2 at 0.13 where 0.03 answered),
fitted on the hits ``bench/relevance.py --only hits`` gives for tuning sets (dev, and
held-apart sets already measured that the judge did not learn), each hit labelled itself.
A passage is judged as before: the sets label documents, not sections, and a section is
relevant less often than its guide.

The calibration belongs to the model it was fitted on: a training writes a model without one,
and this refuses a model that has one (its hits would be scored by it).

Run (the hits of an uncalibrated model, on the spent sets it did not learn):
``PYTHONPATH=. .venv/bin/python bench/relevance.py --only hits``
``--set holdout7+holdout8+...+holdout14 > H.json`` (the shipped calibration: sets 7 to 14), then
``.venv/bin/python -m devtools.calibrate_relevance H.json``. Then choose the thresholds again
(``bench/relevance.py --only sweep``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

EPSILON = 1e-6


def _columns(scores: list[float]) -> np.ndarray:
    """``[ln p, -ln(1 - p), 1]`` of each score: beta calibration's design."""
    p = np.clip(np.asarray(scores, dtype=float), EPSILON, 1 - EPSILON)
    return np.column_stack([np.log(p), -np.log(1 - p), np.ones_like(p)])


def beta(scores: list[float], labels: list[bool]) -> tuple[float, float, float]:
    """``(a, b, c)`` minimising the log loss of ``sigmoid(a ln p - b ln(1 - p) + c)`` (beta
    calibration, Kull et al. 2017: Platt's scaling of the log-odds is ``a == b``; apart, the
    map bends differently near 0 and near 1), by Newton's method."""
    design = _columns(scores)
    y = np.asarray(labels, dtype=float)
    theta = np.array([1.0, 1.0, 0.0])
    for _ in range(100):
        q = 1 / (1 + np.exp(-(design @ theta)))
        gradient = design.T @ (q - y)
        hessian = design.T @ (design * (q * (1 - q))[:, None]) + 1e-9 * np.eye(3)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    a, b, c = (round(float(t), 6) for t in theta)
    return a, b, c


def log_loss(scores: list[float], labels: list[bool], fitted: tuple[float, float, float]) -> float:
    q = 1 / (1 + np.exp(-(_columns(scores) @ np.asarray(fitted))))
    q = np.clip(q, EPSILON, 1 - EPSILON)
    y = np.asarray(labels, dtype=float)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


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
        fitted[name] = beta(scores, labels)
        if fitted[name][0] < 0 or fitted[name][1] < 0:
            sys.exit(f"{name}: {fitted[name]}: a map that is not monotonic; not written")
        report[name] = {
            "hits": len(mine),
            "relevant": sum(labels),
            "a_b_c": fitted[name],
            "log_loss_before": round(log_loss(scores, labels, (1.0, 1.0, 0.0)), 4),
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
