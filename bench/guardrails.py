"""The personal-data screen (common/privacy, decision 0037) on sentences kept apart from its
tuning: recall on personal data, the share of professional facts wrongly dropped, per label,
and the time per sentence.

    .venv/bin/python -m bench.guardrails [--set bench/data/privacy_holdout_11.jsonl]

The held-apart set (``bench/data/privacy_holdout_11.jsonl``, {"text", "label"}) was written by
a helper session that had not seen the patterns, the training set or the classifier, in
styles the training set was not asked for; nothing was tuned on it, and it was measured once,
on the final model (decision 0037). Its misses are deliberately not printed: a set whose
misses have been read and fixed is a tuning set, and its figures are no longer evidence
(sets 1-10 were read after they were measured, and are now part of the training set; set 11
was written for the model trained on them; write a new set for the next round). The
training set's cross-validated figures, from ``data/privacy/model.json``, are printed beside it
for contrast.

Goals (issue 22): recall >= 0.98, professional facts dropped <= 0.02.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from common.privacy import NOBODY, screen_many
from common.privacy import classifier as privacy_classifier
from common.privacy.rules import label_of
from common.privacy.screen import _by_rules

HOLDOUT = Path(__file__).resolve().parent / "data" / "privacy_holdout_11.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=HOLDOUT)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    if rows and "group" in rows[0]:
        return by_group(args.set, rows)
    texts = [row["text"] for row in rows]
    labels = [row["label"] for row in rows]

    screen_many(texts[:4], NOBODY)  # load the data files and the encoder once
    started = time.perf_counter()
    verdicts = screen_many(texts, NOBODY)
    batch_ms = (time.perf_counter() - started) * 1000 / len(texts)
    single = []
    for text in texts:
        started = time.perf_counter()
        screen_many([text], NOBODY)
        single.append((time.perf_counter() - started) * 1000)
    rules = [_by_rules(text, NOBODY) for text in texts]

    personal = [i for i, label in enumerate(labels) if label != "none"]
    professional = [i for i, label in enumerate(labels) if label == "none"]
    dropped = [v is not None for v in verdicts]
    by_rules = [r[0] is not None for r in rules]
    recall = sum(dropped[i] for i in personal) / len(personal)
    false = sum(dropped[i] for i in professional) / len(professional)

    print(
        f"set: {args.set.name}: {len(rows)} sentences, {len(personal)} personal, "
        f"{len(professional)} professional"
    )
    print(f"recall on personal data:        {recall:.3f}  (goal >= 0.98)")
    print(f"professional facts dropped:     {false:.3f}  (goal <= 0.02)")
    rules_recall = sum(by_rules[i] for i in personal) / len(personal)
    rules_false = sum(by_rules[i] for i in professional) / len(professional)
    print(f"patterns alone:                 recall {rules_recall:.3f}, dropped {rules_false:.3f}")
    refers = sum(1 for i in personal if rules[i][1])
    print(f"personal sentences that refer to a person (classifier asked): {refers}/{len(personal)}")
    print()
    print(f"{'label':18} {'n':>4} {'caught':>7} {'recall':>7}  caught as")
    for label in sorted({labels[i] for i in personal}):
        rows_of = [i for i in personal if labels[i] == label]
        caught = [i for i in rows_of if dropped[i]]
        same = Counter(label_of(verdicts[i] or "") for i in caught)
        print(
            f"{label:18} {len(rows_of):>4} {len(caught):>7} {len(caught) / len(rows_of):>7.2f}"
            f"  {dict(same.most_common(3))}"
        )
    wrongly = Counter(label_of(verdicts[i] or "") for i in professional if dropped[i])
    print(
        f"{'none (dropped as)':18} {len(professional):>4} {sum(wrongly.values()):>7}"
        f" {false:>7.2f}  {dict(wrongly.most_common(5))}"
    )
    print()
    single.sort()
    print(
        f"time per sentence: {batch_ms:.1f} ms in one batch of {len(texts)}; alone p50 "
        f"{statistics.median(single):.1f} ms, p99 {single[int(0.99 * (len(single) - 1))]:.1f} ms"
    )
    stored = json.loads(privacy_classifier.MODEL_PATH.read_text())
    cv = stored["crossValidated"]
    print(
        f"training set, {cv['folds']}-fold cross-validated ({stored['trainedOn']['sentences']} "
        f"sentences): recall {cv['recall']}, dropped {cv['falseDrops']}; threshold "
        f"{stored['threshold']}"
    )
    return 0


def by_group(path: Path, rows: list[dict[str, str]]) -> int:
    """A set of passages in writing styles (``group``: capitals, lower case, the next sentence,
    whereabouts, other languages, look-alike letters), each {"text", "label", "group",
    "fact", "subject"}: the passage goes through ``screen_text`` as a door shows a text, once
    with the subject's name known to the records (a person's profile: ``Known.names``) and once
    with nothing known (research, digests, answers). A personal row is caught when its
    ``fact`` no longer shows; a professional row is wrongly dropped when anything of it is
    gone; the passages cut are run again with the classifier silent, to tell the patterns'
    cuts from the classifier's. Goals (issue 42): recall >= 0.98 per group, professional
    dropped <= 0.02."""
    from common.language.names import canonical
    from common.privacy import Known, screen_text
    from common.privacy.normalise import visible

    def shown(text: str) -> str:
        return " ".join(visible(text).split())

    def outcome(row: dict[str, str], known: Known) -> bool:
        out = shown(screen_text(row["text"], known).text)
        if row["label"] == "none":
            return out != shown(row["text"])
        return shown(row["fact"]) not in out

    screen_text("warm up: Dana Whitfield said so.")
    started = time.perf_counter()
    table: dict[str, dict[str, list[bool]]] = {}
    for row in rows:
        known = Known(names=frozenset(canonical(row.get("subject") or "")))
        entry = table.setdefault(row["group"], {})
        kind = "none" if row["label"] == "none" else "personal"
        entry.setdefault(f"{kind}_known", []).append(outcome(row, known))
        entry.setdefault(f"{kind}_nobody", []).append(outcome(row, NOBODY))
    per_row_ms = (time.perf_counter() - started) * 1000 / (2 * len(rows))
    # Which part cuts: the same professional passages with the classifier silent (after the
    # timing), so a cut is the patterns' when it stays.
    real = privacy_classifier.classify
    privacy_classifier.classify = lambda texts: [(None, 0.0) for _ in texts]  # type: ignore[assignment]
    try:
        for row in rows:
            if row["label"] == "none":
                known = Known(names=frozenset(canonical(row.get("subject") or "")))
                table[row["group"]].setdefault("none_patterns", []).append(outcome(row, known))
    finally:
        privacy_classifier.classify = real  # type: ignore[assignment]

    def share(values: list[bool]) -> str:
        return f"{sum(values) / max(1, len(values)):.3f}"

    print(f"set: {path.name}: {len(rows)} passages in {len(table)} groups")
    print(
        "recall: personal facts no longer shown; dropped: professional passages cut; "
        "by patterns: cut with the classifier silent (known)"
    )
    print(
        f"{'group':15} {'n':>4} {'recall':>7} {'recall':>7} {'n':>4} {'dropped':>8} {'dropped':>8}"
        f" {'by':>8}"
    )
    print(
        f"{'':15} {'':>4} {'known':>7} {'nobody':>7} {'':>4} {'known':>8} {'nobody':>8}"
        f" {'patterns':>8}"
    )
    for group in sorted(table):
        e = table[group]
        print(
            f"{group:15} {len(e.get('personal_known', [])):>4} "
            f"{share(e.get('personal_known', [])):>7} {share(e.get('personal_nobody', [])):>7} "
            f"{len(e.get('none_known', [])):>4} {share(e.get('none_known', [])):>8} "
            f"{share(e.get('none_nobody', [])):>8} {share(e.get('none_patterns', [])):>8}"
        )
    every = {
        k: [v for e in table.values() for v in e.get(k, [])] for k in next(iter(table.values()))
    }
    print(
        f"{'all':15} {len(every['personal_known']):>4} {share(every['personal_known']):>7} "
        f"{share(every['personal_nobody']):>7} {len(every['none_known']):>4} "
        f"{share(every['none_known']):>8} {share(every['none_nobody']):>8} "
        f"{share(every['none_patterns']):>8}"
    )
    print(f"time per passage: {per_row_ms:.1f} ms (goals: recall >= 0.98, dropped <= 0.02)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
