"""Requests for a person's private details (decisions 0067, 0078), as the assistant reads them
(``functions.chat.assist.asks_private``): on a set of chat messages labelled ``private`` or not,
the share of private requests declined and how many of the others were declined (``--misses``:
what was misread; every set here is spent).

``bench/data/private_asks_holdout18.jsonl`` (the default; ``{"message", "expect", "why"}``,
``expect`` ``private`` or ``public``) was written by a helper from the label definitions and the
sample records alone, in new styles and five languages, and measured once before and after
decision 0078's rule: it is spent. ``private_asks_holdout19.jsonl``, written the same way with
more requests in German, Spanish, French and Portuguese and more close calls for work
contacts, measured the rule's second round: spent too. ``--spent`` reads the held-apart chat sets of
``bench/relevance.py`` (``expect`` ``private`` against every other kind), all spent.

Run: ``PYTHONPATH=. .venv/bin/python bench/private_asks.py [--set FILE | --spent] [--misses]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "bench" / "data"


def main() -> int:
    from functions.chat.assist import asks_private

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=DATA / "private_asks_holdout18.jsonl")
    parser.add_argument("--spent", action="store_true", help="the relevance bench's chat sets")
    parser.add_argument("--misses", action="store_true", help="list what was misread")
    args = parser.parse_args()
    files = sorted(DATA.glob("relevance_*_chat.jsonl")) if args.spent else [args.set]
    rows = [json.loads(line) for f in files for line in f.read_text("utf-8").splitlines() if line]
    asked = [(row["message"], row["expect"] == "private") for row in rows]
    read = [(message, private, asks_private(message)) for message, private in asked]
    private = [declined for _, wanted, declined in read if wanted]
    others = [declined for _, wanted, declined in read if not wanted]
    report = {
        "sets": [f.name for f in files],
        "private": len(private),
        "private_declined": round(sum(private) / len(private), 3),
        "others": len(others),
        "others_declined": sum(others),
    }
    if args.misses:
        report["misread"] = [m for m, wanted, declined in read if wanted != declined]
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
