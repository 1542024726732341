"""Public copy vs advice for campaigners (data/content/drafts.toml ``advice``): how well the
rule tells the knowledge base's sentences written for campaigners ("Close with one clear ask
and a date for a reply") from facts a draft may quote.

    .venv/bin/python -m bench.advice

``bench/data/advice_labels.jsonl`` holds 300 sentences drawn at random from data/knowledge
(those a draft could use) and labelled "fact" or "advice" by a helper session that saw only
those sentences and the two definitions, never the rule. The rule was written before the
labels existed; the first 150 ("tuning") may be read to improve it, the other 150
("holdout") are measured, never read. Advice caught is what keeps campaigner advice out of
public copy; facts lost is what a draft can no longer quote.
"""

from __future__ import annotations

import json
from pathlib import Path

from functions.content.texts import advice

SET = Path(__file__).resolve().parent / "data" / "advice_labels.jsonl"


def main() -> int:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    print(f"{'part':8} {'sentences':>9} {'advice':>7} {'caught':>7} {'facts':>6} {'lost':>5}")
    for part in ("tuning", "holdout"):
        chosen = [r for r in rows if r["part"] == part]
        said = [advice().search(r["text"].lower()) is not None for r in chosen]
        is_advice = [r["label"] == "advice" for r in chosen]
        caught = sum(s and a for s, a in zip(said, is_advice, strict=True))
        lost = sum(s and not a for s, a in zip(said, is_advice, strict=True))
        n_advice = sum(is_advice)
        n_facts = len(chosen) - n_advice
        print(
            f"{part:8} {len(chosen):>9} {n_advice:>7} {caught / max(1, n_advice):>7.2f}"
            f" {n_facts:>6} {lost / max(1, n_facts):>5.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
