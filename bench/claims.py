"""A provider's draft checked sentence by sentence (issue 46, decision 0082): of sentences an LLM
could write from given passages, labelled supported, unsupported (a changed figure or date, an
invented quote or claim, an overstatement, a fact moved to another entity) or the writer's own
(an opening, an ask), how many ``functions.content.verify`` keeps.

The sets are ``bench/data/provider_claims_tuning.jsonl`` (the rule's words and ``HELD`` were
chosen on it) and ``provider_claims_holdout.jsonl`` (other guides; measured once for decision
0082, then read to write decision 0090's binding rules), and ``provider_claims_holdout2.jsonl``
(all 20 guides; measured once before and once after decision 0090, spent) and
``provider_claims_holdout3.jsonl`` (all 20 guides; measured once at 74754bc, 1 of 60 reaching
the client, then read for decision 0091's rule, spent), ``provider_claims_holdout4.jsonl``
(measured once at dfd5a45, 7 of 60, then read for decision 0091's hedge and name rules, spent)
``provider_claims_holdout5.jsonl`` (measured once at 193a66d, 5 of 60, spent) and
``provider_claims_holdout6.jsonl`` (measured once at 69531b2, 2 of 60, spent) and
``provider_claims_holdout7.jsonl`` (measured once at 69531b2 with the checker unchanged, 8 of
60, spent; decision 0092): helpers wrote each
from the guides alone, each line a sentence with the guide passages it was written from. The
issue's bar: unsupported sentences reaching the client 0.

    PYTHONPATH=. .venv/bin/python bench/claims.py
        [--set tuning|holdout|holdout2|...|holdout7] [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from functions.content.compose import Passage
from functions.content.verify import Checker

DATA = Path(__file__).resolve().parent / "data"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sets = (
        "tuning",
        "holdout",
        "holdout2",
        "holdout3",
        "holdout4",
        "holdout5",
        "holdout6",
        "holdout7",
    )
    parser.add_argument("--set", choices=sets, default="tuning")
    parser.add_argument("--misses", action="store_true", help="print each sentence misjudged")
    args = parser.parse_args(argv)
    path = DATA / f"provider_claims_{args.set}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    kept: Counter[str] = Counter()
    total: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for row in rows:
        passages = [Passage(text, row["guide"], None, "") for text in row["passages"]]
        checker = Checker(passages, [row["topic"]])
        checked = checker.check(row["sentence"])
        kept_it = not checked.dropped
        label = row["label"]
        total[label] += 1
        kinds[f"{label}/{row['kind']}"] += 1
        if kept_it:
            kept[label] += 1
            by_kind[f"{label}/{row['kind']}"] += 1
        if args.misses and kept_it != (label != "unsupported"):
            print(f"{row['id']} {label}/{row['kind']} kept={kept_it}: {row['sentence']}")
    report = {
        "set": path.name,
        "sentences": len(rows),
        "keptShare": {label: round(kept[label] / total[label], 3) for label in sorted(total)},
        "unsupportedReachingClient": kept["unsupported"],
        "byKind": {kind: f"{by_kind[kind]}/{kinds[kind]} kept" for kind in sorted(kinds)},
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
