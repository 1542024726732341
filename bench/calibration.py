"""The relevance judge's calibration on the search doors' own results, labelled one by one
(issue 44: "observed relevance within 0.05 of predicted in every decile with >= 30 pairs").

``bench/data/calibration_pairs.jsonl`` (or ``--sample calibration2``, ``calibration3``:
``calibration2_*``, ...; ``bench/calibration_pairs.py``: results the doors returned for the
queries of held-apart sets the judge did not learn, drawn evenly from each tenth of the score)
and ``bench/data/calibration_labels_part*.jsonl`` (each pair labelled 1 or 0 by helpers who
read only ``bench/data/calibration.brief.md`` and the pairs' query and result, never the
score). Printed, as JSON, per door (knowledge: a guide's passages; tables: records) and for
both: per tenth of the score, the pairs, the mean score, the share labelled 1, how far apart
they are, and the 95% Wilson interval of the share (whether 0.05 can be told at that
size); and the expected calibration error (pairs weighted as drawn).

The scores are those of the model the pairs were drawn with (its SHA-256 in the file's first
line); with another model the pairs are drawn again (their labels hold for the same query and
result). A passage's is the judge's: ``knowledge`` reports it as the door shows it, recalibrated
(``common.search.relevance.passages``, fitted on the first sample's labels:
``devtools.calibrate_relevance --passages calibration``), and ``knowledge_judged`` as drawn.

Run: ``PYTHONPATH=. .venv/bin/python bench/calibration.py [--sample calibration2]``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
Z = 1.96


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return (round(centre - half, 3), round(centre + half, 3))


def deciles(pairs: list[tuple[float, int]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    weighted, total = 0.0, 0
    for tenth in range(10):
        inside = [(s, y) for s, y in pairs if min(9, int(s * 10)) == tenth]
        if not inside:
            continue
        n = len(inside)
        mean = sum(s for s, _ in inside) / n
        k = sum(y for _, y in inside)
        off = abs(mean - k / n)
        rows.append(
            {
                "scores": f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}",
                "pairs": n,
                "mean_score": round(mean, 3),
                "observed": round(k / n, 3),
                "off_by": round(off, 3),
                "observed_95": wilson(k, n),
            }
        )
        weighted += off * n
        total += n
    big = [r for r in rows if r["pairs"] >= 30]
    return {
        "deciles": rows,
        "deciles_with_30": len(big),
        "within_0_05": sum(r["off_by"] <= 0.05 for r in big),
        "worst_off_by": max((r["off_by"] for r in big), default=None),
        "ece_as_drawn": round(weighted / total, 3) if total else None,
    }


def main() -> int:
    from common.search.relevance import passages

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", default="calibration", help="calibration, calibration2, ...")
    sample = parser.parse_args().sample
    path = DATA / f"{sample}_pairs.jsonl"
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    head, drawn = lines[0], lines[1:]
    from common.search.relevance import model_digest

    model = model_digest()
    if head["model"] != model:
        sys.exit(f"{path.name} was drawn with another model: draw it again")
    labels: dict[str, int] = {}
    for labelled in sorted(DATA.glob(f"{sample}_labels_*.jsonl")):
        for line in labelled.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                labels[row["id"]] = int(row["label"])
    missing = [p["id"] for p in drawn if p["id"] not in labels]
    if missing:
        sys.exit(f"{len(missing)} pairs have no label (first: {missing[:3]})")
    by_door: dict[str, list[tuple[float, int]]] = {}
    for pair in drawn:
        by_door.setdefault(pair["door"], []).append((float(pair["score"]), labels[pair["id"]]))
    judged = by_door.get("knowledge", [])
    shown = passages([score for score, _ in judged])  # as the door shows a passage's score
    by_door["knowledge"] = [(s, y) for s, (_, y) in zip(shown, judged, strict=True)]
    by_door["knowledge_judged"] = judged
    report = {door: deciles(pairs) for door, pairs in sorted(by_door.items())}
    report["both"] = deciles(by_door["knowledge"] + by_door.get("tables", []))
    print(json.dumps({"pairs": len(drawn), "sets": head["sets"], **report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
