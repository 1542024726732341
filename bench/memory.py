"""Memory extraction (POST /v1/chat/extract-memory, offline engine, common/offline/memory.py)
on what users write about themselves: organisation, role and cause areas, against labels.

    .venv/bin/python -m bench.memory [--set bench/data/memory_holdout.jsonl]

Two sets of {"message", "organization", "role", "causeAreas"}: ``memory_tuning.jsonl`` was
written with the extractor (the phrasings of issue 25 among them) and is what the rules were
read against; ``memory_holdout.jsonl`` (70 messages) was written by a helper session that saw
no code and no data of the project, only the topic list, and is measured, never read for
tuning (it was read for decision 0092, so it is spent); ``memory_holdout2.jsonl`` (60 messages,
introductions in the styles issue 47 names, written on 2026-12-02 by a helper that saw only the
topic catalog) was measured once before and once after decision 0092's rules, and is spent
too. Organisation and role are compared case- and space-folded; cause areas as sets. A
wrong organisation or role (one the message does not give) is counted apart from a missed one,
because storing a wrong value is worse than storing none.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from common.offline.memory import extract_memory

DATA = Path(__file__).resolve().parent / "data"
SETS = (
    DATA / "memory_tuning.jsonl",
    DATA / "memory_holdout.jsonl",
    DATA / "memory_holdout2.jsonl",
)


def _fold(value: object) -> str | None:
    return " ".join(str(value).lower().split()) if value else None


def measure(path: Path) -> dict[str, object]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    counts = {
        f"{field}_{kind}": 0
        for field in ("organization", "role")
        for kind in ("right", "missed", "wrong")
    }
    causes_right = 0
    for row in rows:
        memory = extract_memory([{"role": "user", "content": row["message"]}])
        for field in ("organization", "role"):
            want, got = _fold(row[field]), _fold(memory[field])
            kind = "right" if want == got else ("missed" if got is None else "wrong")
            counts[f"{field}_{kind}"] += 1
        causes_right += set(memory["causeAreas"]) == set(row["causeAreas"])
    return {"set": path.name, "messages": len(rows), **counts, "causes_exact": causes_right}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, action="append")
    args = parser.parse_args(argv)
    for path in args.set or SETS:
        result = measure(path)
        n = result["messages"]
        print(f"{result['set']}: {n} messages")
        for field in ("organization", "role"):
            right, missed, wrong = (result[f"{field}_{k}"] for k in ("right", "missed", "wrong"))
            print(f"  {field:13} right {right / n:.3f}  missed {missed:>3}  wrong {wrong:>3}")
        print(f"  {'cause areas':13} exact {result['causes_exact'] / n:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
