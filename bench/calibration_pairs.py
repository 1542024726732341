"""Sample the search doors' own results for a calibration set (issue 44: "observed relevance
within 0.05 of predicted in every decile"): pairs of a searcher's query and one result the door
returned, drawn evenly from each tenth of the judge's score, for helpers to label one by one.

The held-apart sets label documents (a guide) and records, so the share of a decile's passages
whose guide is relevant is not the share of passages that answer: a guide's other sections are
about something else. A calibration set labels each result itself. Its queries are those of
spent held-apart sets the judge did not learn (``SAMPLES``); each is run through the door as
``bench/relevance.py`` runs it (``limit`` 10), and every result is a candidate pair with the
score the door gave. From each door (knowledge, tables) and each tenth of the score, up to 60
pairs (120 for the third sample) are drawn (seeded), so the middle tenths, which hold few of a
search's results, are measured as closely as the ends.

Written:
- ``bench/data/<sample>_pairs.jsonl`` (``--sample``: ``calibration``, the first, to
  ``calibration4``, drawn by the score as the door shows it): ``{id, door, request, candidate,
  text, score}``; the
  candidate is ``{doc, section}`` (a guide's passage) or ``{table, id}``; ``text``: the result
  as the searcher reads it (a passage under its guide's title and section, a record's name and
  text); ``score``: the door's, by the model of ``model`` (its SHA-256, in the first line),
  and of a passage the judge's before the door recalibrates it (``relevance.passages``, fitted
  on these labels: ``bench/calibration.py`` maps it as the door shows it).
- ``OUT/to_label_N.jsonl``: the same pairs without door, candidate or score, split in
  ``--parts`` files for the labelling helpers, who see only the query and the result.

Run: ``PYTHONPATH=. .venv/bin/python bench/calibration_pairs.py --out DIR [--parts 2]
[--sample calibration2]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import emulated  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

DATA = ROOT / "bench" / "data"
# the samples drawn: name -> the sets the judge did not learn whose queries it reads, and how
# many pairs per door and tenth of the score (a second sample, on other queries and labelled by
# other helpers, measured the passages' calibration fitted on the first; a third, on the
# searches of set 17, written for it, and larger, the one fitted on both)
SAMPLES = {
    "calibration": (("holdout13", "holdout14", "holdout15"), 60),
    "calibration2": (
        ("holdout7", "holdout8", "holdout9", "holdout10", "holdout11", "holdout12"),
        60,
    ),
    "calibration3": (("holdout17",), 120),
    # a fourth, on the searches of set 21 (written for it, about 1,000), drawn evenly from the
    # tenths of the score as the door shows it (a passage's recalibrated: the third sample's
    # middle tenths of the shown scale held 16 to 60 pairs), to measure every tenth closely
    "calibration4": (("holdout21",), 200),
}
SHOWN = frozenset({"calibration4"})  # drawn by the shown score, not the judge's
SEED = 44
LIMIT = 10


def _rows(sets: tuple[str, ...]) -> list[dict[str, Any]]:
    rows = []
    for name in sets:
        path = DATA / f"relevance_{name}_search.jsonl"
        rows += [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return rows


def _results(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every result the doors return for the rows' queries, with the door's score."""
    from functions.knowledge import service as knowledge
    from functions.knowledge.importer import read_documents
    from functions.search import service as tables

    doc_of = {
        document.title: document.id
        for _, document in read_documents([ROOT / "data" / "knowledge"])
        if not isinstance(document, str)
    }
    found = []
    for row in rows:
        query = row["query"]
        if row["corpus"] == "knowledge":
            for hit in knowledge.searched(query, LIMIT, shown=False).hits:
                found.append(
                    {
                        "door": "knowledge",
                        "request": query,
                        "candidate": {"doc": doc_of[hit["title"]], "section": hit["section"]},
                        "text": f"{hit['section']}\n{hit['passage']}",
                        "score": hit["score"],
                    }
                )
            continue
        table = tables.table(row["corpus"])
        for hit in tables.search_results([table], query, "hybrid", LIMIT).hits:
            record = hit["record"]
            found.append(
                {
                    "door": "tables",
                    "request": query,
                    "candidate": {"table": row["corpus"], "id": hit["id"]},
                    "text": table.indexed_text(record),
                    "score": hit["score"],
                }
            )
    return found


def _drawn(found: list[dict[str, Any]], per_decile: int, shown: bool) -> list[dict[str, Any]]:
    """Up to ``per_decile`` distinct pairs from each door's tenths of the score (``shown``: of
    the score as the door shows it, a passage's recalibrated)."""
    from common.search.relevance import passages

    scores = [pair["score"] for pair in found]
    if shown:  # a record's score is shown as it is; a passage's recalibrated
        mapped = passages(scores)
        doors = [pair["door"] for pair in found]
        scores = [
            m if door == "knowledge" else s
            for door, s, m in zip(doors, scores, mapped, strict=True)
        ]
    rng = random.Random(SEED)
    strata: dict[tuple[str, int], list[dict[str, Any]]] = {}
    seen = set()
    for pair, score in zip(found, scores, strict=True):
        key = (pair["request"], json.dumps(pair["candidate"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        strata.setdefault((pair["door"], min(9, int(score * 10))), []).append(pair)
    drawn = []
    for stratum in sorted(strata):
        pairs = strata[stratum]
        drawn += rng.sample(pairs, min(per_decile, len(pairs)))
    rng.shuffle(drawn)
    return [{"id": f"c{n:04d}", **pair} for n, pair in enumerate(drawn, 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", type=int, default=2, help="files for the labelling helpers")
    parser.add_argument("--out", type=Path, required=True, help="where their files go")
    parser.add_argument("--sample", choices=sorted(SAMPLES), default="calibration")
    args = parser.parse_args(argv)
    sets, per_decile = SAMPLES[args.sample]
    from common.search.relevance import model_digest

    model = model_digest()
    emulator = Emulator("127.0.0.1", free_port(), "demo-calibration-pairs").start()
    try:
        emulated.environment(emulator, LOG_LEVEL="ERROR")
        from functions.knowledge.importer import import_knowledge
        from functions.search.importer import import_records
        from functions.search.tables import TABLES

        import_knowledge([ROOT / "data" / "knowledge"])
        for name, table in TABLES.items():
            import_records(table, ROOT / "data" / "sample" / f"{name}.jsonl")
        drawn = _drawn(_results(_rows(sets)), per_decile, args.sample in SHOWN)
    finally:
        emulator.stop()
    lines = [json.dumps({"model": model, "sets": list(sets), "per_decile": per_decile})]
    lines += [json.dumps(pair, ensure_ascii=False) for pair in drawn]
    (DATA / f"{args.sample}_pairs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    for part in range(args.parts):
        shown = [
            json.dumps(
                {"id": p["id"], "request": p["request"], "result": p["text"]}, ensure_ascii=False
            )
            for p in drawn[part :: args.parts]
        ]
        (args.out / f"to_label_{part + 1}.jsonl").write_text("\n".join(shown) + "\n", "utf-8")
    counts: dict[str, int] = {}
    for pair in drawn:
        key = f"{pair['door']} {min(9, int(pair['score'] * 10)) / 10:.1f}"
        counts[key] = counts.get(key, 0) + 1
    print(
        json.dumps({"pairs": len(drawn), "by_door_and_judged_tenth": dict(sorted(counts.items()))})
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
