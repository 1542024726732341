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
The sets label documents, not sections, and a section is relevant less often than its guide,
so a passage's score is recalibrated on passages labelled one by one instead (``--passages
SAMPLE``: the knowledge door's pairs of ``bench/data/SAMPLE_pairs.jsonl``, drawn by
``bench/calibration_pairs.py``, and their labels ``SAMPLE_labels_*.jsonl``), one map for both
judges (a door's passages for short queries are too few to fit apart), written to
``data/relevance/passages.json`` with the SHA-256 of the model it was fitted for. Then
``PASSAGE_FLOOR`` is the floor chosen on the judge's scale, mapped (a test checks it).

The calibration belongs to the model it was fitted on: a training writes a model without one,
and this refuses a model that has one (its hits would be scored by it).

Run, for passages: ``.venv/bin/python -m devtools.calibrate_relevance --passages calibration``.
For records (the hits of an uncalibrated model, on the spent sets it did not learn):
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
SAMPLES = Path(__file__).resolve().parent.parent / "bench" / "data"


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


def _fitted(name: str, scores: list[float], labels: list[bool]) -> tuple[float, float, float]:
    """``beta`` of at least 20 of each label, refusing a map that is not monotonic."""
    if sum(labels) < 20 or len(labels) - sum(labels) < 20:
        sys.exit(f"{name}: {sum(labels)} relevant of {len(labels)}: too few to fit")
    fitted = beta(scores, labels)
    if fitted[0] < 0 or fitted[1] < 0:
        sys.exit(f"{name}: {fitted}: a map that is not monotonic; not written")
    return fitted


def _report(
    scores: list[float], labels: list[bool], fitted: tuple[float, float, float]
) -> dict[str, object]:
    return {
        "pairs": len(scores),
        "relevant": sum(labels),
        "a_b_c": fitted,
        "log_loss_before": round(log_loss(scores, labels, (1.0, 1.0, 0.0)), 4),
        "log_loss_after": round(log_loss(scores, labels, fitted), 4),
    }


def passages(sample: str) -> int:
    """Fit the knowledge door's map on ``sample``'s labelled passages; write ``PASSAGES_PATH``."""
    from common.search.relevance import MODEL_PATH, PASSAGES_PATH, model_digest

    lines = (SAMPLES / f"{sample}_pairs.jsonl").read_text("utf-8").splitlines()
    head, drawn = json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]
    model = model_digest()
    if head["model"] != model:
        sys.exit(f"{sample} was drawn with another {MODEL_PATH.name}: draw and label it again")
    labels = {
        row["id"]: bool(int(row["label"]))
        for path in sorted(SAMPLES.glob(f"{sample}_labels_*.jsonl"))
        for row in map(json.loads, path.read_text("utf-8").splitlines())
    }
    mine = [pair for pair in drawn if pair["door"] == "knowledge" and pair["id"] in labels]
    scores, found = [p["score"] for p in mine], [labels[p["id"]] for p in mine]
    fitted = _fitted("passages", scores, found)
    document = {"model": model, "calibration": fitted, "sample": sample, "pairs": len(mine)}
    PASSAGES_PATH.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(_report(scores, found, fitted), indent=1))
    print(f"wrote {PASSAGES_PATH}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from common.search.relevance import MODEL_PATH, Judges, read

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hits", nargs="*", type=Path, help="bench/relevance.py --only hits output")
    parser.add_argument("--passages", metavar="SAMPLE", help="fit passages on a labelled sample")
    args = parser.parse_args(argv)
    if args.passages:
        return passages(args.passages)
    if not args.hits:
        parser.error("give the hits of the tables, or --passages SAMPLE")
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
        fitted[name] = _fitted(name, scores, labels)
        report[name] = _report(scores, labels, fitted[name])
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
