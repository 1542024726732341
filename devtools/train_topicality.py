"""Train the topicality model (``functions.content.topicality``) on
``data/content/topicality_pairs.jsonl`` and write ``data/content/topicality_model.json``; print
how it does out of fold, one spent content set left out at a time.

A pair is one candidate fact of one request of a spent content set (``request``: "c25-01", its
set before the dash; a request's pairs together), as ``compose.facts`` ranked them at c3f35d2
before it chose among them (best first; every guide's, not ``PER_DOCUMENT`` of each; written by
``python -m devtools.topicality_candidates``), with what the pipeline knew of each then (the
passage's judged score, its share of the best, ...) and a helper's label (``on``/``off``,
``bench/data/on_topic.brief.md``, reading only the request and the sentence). The text features
are computed again here, by the service's own code; the model file records ``topicality.inputs()``
and the service refuses it when they change.

Out of fold the report gives the AUC, the log loss, the calibration per decile and, for the
rule ``compose`` applies (quote the candidates the model gives at least ``ON_TOPIC`` while any
does, else those at ``ON_TOPIC_LEAST``, else none: the draft is refused), per pair of
thresholds: the requests drafted, those whose first facts (as many as the content type and
length quote, at most ``compose.PER_DOCUMENT`` of a guide) are all on the topic, and the facts
quoted as a share of those wanted. These are figures on the tuning data: ``bench/
content_rubric.py`` and a reader measure drafts on fresh sets.

Run: ``.venv/bin/python -m devtools.train_topicality [--check]`` (``--check``: report only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from itertools import groupby
from typing import Any, Literal

import numpy as np
from pydantic import Field

from common.datafiles import NotBlank, Row, numbered_rows
from devtools import train_relevance
from devtools.train_relevance import deciles, predict

PLAIN_L2 = 30.0  # out of fold, of 3, 10, 30, 100 with the product at 300: 30 (log loss 0.369)
PRODUCT_L2 = 300.0  # ... of 300, 1000: 300
THRESHOLDS = ((0.8, 0.2), (0.8, 0.3), (0.8, 0.4), (0.7, 0.3), (0.9, 0.3))


class Pair(Row):
    request: NotBlank
    topic: NotBlank
    contentType: NotBlank
    length: Literal["short", "medium", "long"]
    about: NotBlank
    audience: str | None = None
    sentence: NotBlank
    title: NotBlank
    passage: float = Field(ge=0.0, le=1.0)
    share: float = Field(ge=0.0, le=1.0)
    bestDocument: bool
    near: bool
    doubtful: bool
    label: Literal["on", "off"]


def read_pairs() -> list[Pair]:
    from functions.content.topicality import PAIRS_PATH

    return [row for _, row in numbered_rows(PAIRS_PATH, Pair)]


def load(pairs: Sequence[Pair]) -> np.ndarray:
    from functions.content.topicality import FEATURES, Seen, features

    requests = [key for key, _ in groupby(pairs, key=lambda p: p.request)]
    if len(requests) != len(set(requests)):
        raise SystemExit("topicality_pairs.jsonl: a request's pairs are not together")
    blocks = []
    for _, group in groupby(pairs, key=lambda p: p.request):
        rows = list(group)
        seen = [
            Seen(p.sentence, p.title, p.passage, p.share, p.bestDocument, p.near, p.doubtful)
            for p in rows
        ]
        blocks.append(features(rows[0].about, rows[0].audience, seen))
    found = np.vstack(blocks)
    assert found.shape[1] == len(FEATURES)
    return found


def fit(x: np.ndarray, y: np.ndarray, plain: int) -> tuple[Any, Any, Any, float]:
    """(mean, scale, weights, bias): ``train_relevance.fit`` with the first ``plain`` features
    penalised by ``PLAIN_L2``, the rest (the vectors' product) by ``PRODUCT_L2``."""
    penalty = np.r_[np.full(plain, PLAIN_L2), np.full(x.shape[1] - plain, PRODUCT_L2)]
    return train_relevance.fit(x, y, per_feature=penalty)


def auc(p: np.ndarray, y: np.ndarray) -> float:
    """The area under the ROC curve, tied scores given their mean rank."""
    _, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    mean_rank = np.cumsum(counts) - (counts - 1) / 2.0
    ranks = mean_rank[inverse]
    positive = y == 1
    n1, n0 = positive.sum(), (~positive).sum()
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def rule(pairs: Sequence[Pair], p: np.ndarray, on: float, least: float) -> dict[str, Any]:
    """``compose``'s rule on the pairs out of fold (see the module's docstring)."""
    from functions.content.compose import PER_DOCUMENT
    from functions.content.texts import drafts

    wanted_of = drafts().facts
    drafted = clean = quoted = wanted = refused = 0
    at = 0
    for _, group in groupby(pairs, key=lambda q: q.request):
        rows = list(group)
        scores = p[at : at + len(rows)]
        at += len(rows)
        first = rows[0]
        near = [i for i, r in enumerate(rows) if r.near] or list(range(len(rows)))
        kept = [i for i in near if scores[i] >= on] or [i for i in near if scores[i] >= least]
        if not kept:
            refused += 1
            continue
        want = wanted_of[first.contentType][("short", "medium", "long").index(first.length)]
        per: dict[str, int] = {}
        taken: list[int] = []
        for i in kept:
            if per.get(rows[i].title, 0) >= PER_DOCUMENT or len(taken) >= want:
                continue
            per[rows[i].title] = per.get(rows[i].title, 0) + 1
            taken.append(i)
        drafted += 1
        clean += all(rows[i].label == "on" for i in taken)
        quoted, wanted = quoted + len(taken), wanted + want
    return {
        "onTopic": on,
        "onTopicLeast": least,
        "refused": refused,
        "drafted": drafted,
        "draftsAllOnTopic": round(clean / max(1, drafted), 3),
        "factsQuotedOfWanted": round(quoted / max(1, wanted), 3),
    }


def baseline(pairs: Sequence[Pair]) -> dict[str, Any]:
    """No rule: every candidate of the near passages, in the pipeline's order."""
    return rule(pairs, np.ones(len(pairs)), 0.5, 0.5) | {"onTopic": None, "onTopicLeast": None}


def _figure(value: float) -> float:
    """A value to 7 significant figures (a small scale is not rounded to 0)."""
    return float(f"{float(value):.7g}")


def main(argv: list[str] | None = None) -> int:
    from functions.content.topicality import FEATURES, MODEL_PATH, PAIRS_PATH, PLAIN, inputs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report only; write nothing")
    args = parser.parse_args(argv)
    pairs = read_pairs()
    x = load(pairs)
    y = np.asarray([p.label == "on" for p in pairs], dtype=float)
    sets = np.asarray([p.request.split("-")[0] for p in pairs])
    out = np.zeros(len(y))
    for held in sorted(set(sets)):
        apart = sets == held
        out[apart] = predict(fit(x[~apart], y[~apart], len(PLAIN)), x[apart])
    clipped = np.clip(out, 1e-6, 1 - 1e-6)
    report = {
        "pairs": len(pairs),
        "off": int((y == 0).sum()),
        "sets": sorted(set(sets.tolist())),
        "outOfFold": {
            "auc": round(auc(out, y), 3),
            "logLoss": round(
                float(-np.mean(y * np.log(clipped) + (1 - y) * np.log(1 - clipped))), 4
            ),
            "deciles": deciles(out, y),
            "baseline": baseline(pairs),
            "rules": [rule(pairs, out, on, least) for on, least in THRESHOLDS],
        },
    }
    print(json.dumps(report, indent=2))
    if args.check:
        return 0
    mean, scale, weights, bias = fit(x, y, len(PLAIN))
    body = {
        "features": list(FEATURES),
        "mean": [_figure(v) for v in mean],
        "scale": [_figure(v) for v in scale],
        "weights": [_figure(v) for v in weights],
        "bias": _figure(bias),
        "pairs": len(pairs),
        "sha256": hashlib.sha256(PAIRS_PATH.read_bytes()).hexdigest(),
        "inputs": inputs(),
    }
    MODEL_PATH.write_text(json.dumps(body) + "\n")
    print(f"wrote {MODEL_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
