"""Train the gate on the field (``common.search.domain``) and write ``data/relevance/domain.json``;
print how it does out of fold.

Requests: every labelled request of the judge's training pairs (``data/relevance/train_pairs*``)
and of the tuning and spent held-apart sets of ``bench/relevance.py`` (``sets``: their search
queries, topics and chat messages, as ``devtools.spent_pairs.rows`` reads them), each once.
Outside the field: the kinds ``off_corpus``, ``off_topic`` and ``nonsense``; a chat message
asking for someone's private details is the screen's to judge and is left out; every other kind
(keyword searches, paraphrases, questions, near misses, topics or questions the corpus does not
cover) is inside.

Out of fold, one source at a time (a set, or a training file), so that a threshold is never
chosen on requests written by the helper who wrote those it is tested on: the L2 penalty with
the lowest log loss (``PENALTIES``), then the lowest threshold (``THRESHOLDS``) that gates at
most ``domain.MAX_INSIDE_GATED`` of the requests inside the field, as the gate serves them (a
request naming an animal is never gated). The report gives, at that threshold, the share of
each kind gated.

A fresh held-apart set is never read: ``bench/data/relevance_sets.json`` says which are spent
(``bench/relevance.py`` reads it too); move a set to ``measured`` once it has been measured.

Run: ``.venv/bin/python -m devtools.train_domain [--check]`` (``--check``: report only).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from common.datafiles import numbered_rows
from devtools import spent_pairs
from devtools.train_relevance import PAIRS, Pair, fit, predict, report

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "data"
SETS_PATH = BENCH / "relevance_sets.json"  # which held-apart sets are spent (and fresh)
OUTSIDE = frozenset({"off_corpus", "off_topic", "nonsense"})
PENALTIES = (1.0, 3.0, 10.0, 30.0)
THRESHOLDS = tuple(round(0.5 + 0.01 * i, 2) for i in range(50))  # 0.50 .. 0.99


def sets() -> tuple[str, ...]:
    """The tuning sets and the spent held-apart sets (``SETS_PATH``'s ``measured``), never a
    fresh one."""
    return ("dev", *json.loads(SETS_PATH.read_text(encoding="utf-8"))["measured"])


def requests() -> tuple[list[str], list[str], list[str]]:
    """(request, kind, source) of every labelled request, each request once (its first row)."""
    seen: dict[str, tuple[str, str]] = {}
    for name in sets():  # first: a spent set's requests are in the pairs too, and it is a source
        for request, *_, kind in spent_pairs.rows([f"relevance_{name}"]):
            seen.setdefault(request, (kind, name))
    for path in PAIRS:
        for _, pair in numbered_rows(path, Pair):
            seen.setdefault(pair.request, (pair.kind, path.stem))
    asked = list(seen)
    return asked, [seen[r][0] for r in asked], [seen[r][1] for r in asked]


def main(argv: list[str] | None = None) -> int:
    from common.search.domain import DOMAIN_PATH, MAX_INSIDE_GATED, DomainFile, names_an_animal
    from common.search.relevance import embed

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report; write nothing")
    args = parser.parse_args(argv)
    asked, kinds, sources = requests()
    x = embed(asked).astype(np.float64)
    y = np.asarray([kind in OUTSIDE for kind in kinds], dtype=float)
    groups = np.asarray(sources)
    kind_of = np.asarray(kinds)

    def out_of_fold(l2: float) -> np.ndarray:
        p = np.zeros(len(y))
        for source in np.unique(groups):
            held = groups == source
            p[held] = predict(fit(x[~held], y[~held], l2), x[held])
        return p

    folds = {l2: out_of_fold(l2) for l2 in PENALTIES}
    reports = {l2: report(p, y) for l2, p in folds.items()}
    l2 = min(PENALTIES, key=lambda value: reports[value]["log_loss"])
    p = folds[l2].copy()
    p[[names_an_animal(request) for request in asked]] = 0.0  # never gated, as served
    inside = y == 0
    threshold = next(
        (t for t in THRESHOLDS if (p[inside] >= t).mean() <= MAX_INSIDE_GATED), THRESHOLDS[-1]
    )
    gated = {
        kind: round(float((p[kind_of == kind] >= threshold).mean()), 3)
        for kind in sorted(set(kinds))
    }
    print(
        json.dumps(
            {
                "requests": len(y),
                "outside": int(y.sum()),
                "sources": len(set(sources)),
                "log_loss_by_l2": {str(k): r["log_loss"] for k, r in reports.items()},
                "l2": l2,
                "auc": reports[l2]["auc"],
                "threshold": threshold,
                "inside_gated": round(float((p[inside] >= threshold).mean()), 4),
                "outside_gated": round(float((p[~inside] >= threshold).mean()), 3),
                "gated_by_kind": gated,
            },
            indent=1,
        )
    )
    if not args.check:
        mean, scale, weights, bias = fit(x, y, l2)
        document = DomainFile(
            mean=tuple(mean.tolist()),
            scale=tuple(scale.tolist()),
            weights=tuple(weights.tolist()),
            bias=bias,
            threshold=threshold,
            l2=l2,
            requests=len(y),
        )
        DOMAIN_PATH.write_text(document.model_dump_json() + "\n", encoding="utf-8")
        print(f"wrote {DOMAIN_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
