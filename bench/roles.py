"""Sentence roles in public copy (issue 46, decision 0080): of sentences labelled fact, guidance
for campaigners, caveat or other, how many public copy keeps out, by the advice patterns of
``data/content/drafts.toml`` alone and with the roles model (``functions/content/roles.py``).

A sentence the model calls a doubtful fact is quoted only when a draft has no clear fact left
(decision 0087): ``patternsAndModel`` is what public copy always keeps out,
``patternsAndModelWhileAClearFactIsLeft`` what it keeps out while it has a clear fact to quote
instead (``bench/content_rubric.py`` counts the drafts that quote a doubtful one).

The set is by default ``bench/data/roles_holdout9.jsonl``: 340 sentences a helper wrote about
the guides' topics from ``roles.brief.md`` alone, apart from the training sets, with their
roles; a second helper labelled them again (``roles_holdout9_second_labels.jsonl``). It was
measured once for decision 0087 and is spent (``roles.README.md``). Figures are on the sentences
both label alike.

    PYTHONPATH=. .venv/bin/python bench/roles.py [--set FILE] [--second FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from functions.content import roles
from functions.content.texts import advice

DATA = Path(__file__).resolve().parent / "data"


def figures(labels: list[str], out: list[bool]) -> dict[str, float | int]:
    """The share of each role kept out of public copy."""
    found: dict[str, float | int] = {}
    for role in roles.ROLES:
        chosen = [kept_out for label, kept_out in zip(labels, out, strict=True) if label == role]
        if chosen:
            found[f"{role}KeptOut"] = round(sum(chosen) / len(chosen), 3)
            found[role] = len(chosen)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=DATA / "roles_holdout9.jsonl")
    parser.add_argument("--second", type=Path, default=DATA / "roles_holdout9_second_labels.jsonl")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    second = {}
    if args.second.exists():
        for line in args.second.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                second[row["id"]] = row["role"]
    agreed = [r for r in rows if second.get(r["id"], r["role"]) == r["role"]]
    sentences = [r["sentence"] for r in agreed]
    labels = [r["role"] for r in agreed]
    patterns = [advice().search(s.lower()) is not None for s in sentences]
    verdicts = roles.judged([(s, "") for s in sentences])
    with_model = [p or v == "out" for p, v in zip(patterns, verdicts, strict=True)]
    # public copy quotes a doubtful sentence only when it has no clear fact left (0087)
    while_clear = [p or v != "clear" for p, v in zip(patterns, verdicts, strict=True)]
    report = {
        "set": args.set.name,
        "sentences": len(rows),
        "bothLabelAlike": len(agreed),
        "threshold": roles.model().threshold,
        "caveatThreshold": roles.model().caveat_threshold,
        "clearThreshold": roles.model().clear_threshold,
        "clearCaveatThreshold": roles.model().clear_caveat_threshold,
        "patternsAlone": figures(labels, patterns),
        "patternsAndModel": figures(labels, with_model),
        "patternsAndModelWhileAClearFactIsLeft": figures(labels, while_clear),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
