"""Conversation summaries (POST /v1/chat/summarize, offline engine, common/offline/summarize.py):
does each summary keep every decision (with its owner and date) and every question still
open?

    .venv/bin/python -m bench.summaries [--set bench/data/summary_holdout.jsonl]

The set ({"id", "messages", "decisions", "open"}) was written by a helper session that saw no
code and no data of the project: for each decision and each open question, the words any
faithful summary must hold (an owner's name, a date, a distinctive noun). A decision counts as
kept when all its words are in the summary; an open question when all its words are on the
summary's "Open questions" line. Nothing was tuned on this set (the engine's own cases are in
tests/unit/data/conversations.jsonl); measure it once per change and never read its misses
into the rules.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from common.offline.summarize import summarize, words

SET = Path(__file__).resolve().parent / "data" / "summary_holdout.jsonl"


def _holds(text: str, keywords: list[str]) -> bool:
    return all(keyword.lower() in text for keyword in keywords)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=SET)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    open_label = words().labels.open
    decisions = kept_decisions = questions = kept_questions = whole = 0
    for row in rows:
        summary = summarize(row["messages"]).lower()
        open_line = next(
            (line for line in summary.splitlines() if line.startswith(open_label.lower())), ""
        )
        held = [_holds(summary, keywords) for keywords in row["decisions"]]
        asked = [_holds(open_line, keywords) for keywords in row["open"]]
        decisions, kept_decisions = decisions + len(held), kept_decisions + sum(held)
        questions, kept_questions = questions + len(asked), kept_questions + sum(asked)
        whole += all(held) and all(asked)
    print(f"set: {args.set.name}: {len(rows)} conversations")
    print(f"decisions kept:        {kept_decisions}/{decisions} = {kept_decisions / decisions:.3f}")
    print(f"open questions kept:   {kept_questions}/{questions} = {kept_questions / questions:.3f}")
    print(f"summaries keeping all: {whole}/{len(rows)} = {whole / len(rows):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
