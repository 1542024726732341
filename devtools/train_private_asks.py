"""Train the classifier of requests for a person's private details (``functions.chat.private``)
and write ``data/offline/private_asks.json``; print its figures out of fold and on the tuning set.

It learns from ``data/offline/private_asks.jsonl``, written here from the spent held-apart chat
sets of ``bench/relevance.py`` (``SPENT``; measured, so their labels may teach): every message,
private when its row expects ``"private"``; and from ``data/offline/private_asks_written.jsonl``,
written by a helper from the label definitions alone, most of its messages close calls that ask
for none (a person's public role, a press office's email, the writer's own address, where
animals are kept), which the spent sets hardly hold; and from the intent engine's training
messages, as asking for nothing private (the service's ordinary work: a profile of a person
in their public role is one). The tuning set (``relevance_dev_chat``)
stays out: the threshold is chosen on it: 0.5 (more likely than not), or above the best score
of its other messages when one reaches that. Five folds; L2 chosen out of fold (lowest log loss).

Run: ``.venv/bin/python -m devtools.train_private_asks [--check]`` (``--check``: report, write
nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from devtools.train_relevance import ROOT, fit, predict, report

SPENT = ("relevance_holdout", "relevance_holdout2", "relevance_holdout3", "relevance_holdout4")
TUNING = "relevance_dev"
L2S = (1.0, 3.0, 10.0, 30.0, 100.0)
FOLDS = 5


def _messages(stem: str) -> list[tuple[str, bool]]:
    path = ROOT / "bench" / "data" / f"{stem}_chat.jsonl"
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [(row["message"], row["expect"] == "private") for row in rows]


def _features(messages: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each message's features, whether the rule declines it, whether the classifier reads it:
    it names a person or a private detail)."""
    from common.language.minilm import get_model
    from functions.chat.assist import private_signals
    from functions.chat.private import features, masked

    signals = [private_signals(m) for m in messages]
    vectors = get_model().embed(
        [masked(m, found.names) for m, found in zip(messages, signals, strict=True)]
    )
    x = np.vstack([features(v, s.person, s.detail) for v, s in zip(vectors, signals, strict=True)])
    return (
        x,
        np.asarray([s.rule for s in signals]),
        np.asarray([s.person or s.detail for s in signals]),
    )


def _requests_of_every_intent() -> list[Any]:
    """The intent engine's training messages (``data/intents/train.jsonl``), as asking for
    nothing private: the service's ordinary work, profiles of people in their public role
    among it ("Give me a profile of Priya Raman from Brightwell Supermarkets"). One the rule
    declines is left out (it may ask for a detail)."""
    from common.datafiles import read_jsonl
    from common.offline.intents import Example as Request
    from functions.chat.assist import private_signals
    from functions.chat.private import Example

    return [
        Example(message=row.text, private=False, source="intents/train.jsonl")
        for row in read_jsonl(ROOT / "data" / "intents" / "train.jsonl", Request)
        if not private_signals(row.text).rule
    ]


def main(argv: list[str] | None = None) -> int:
    from common.datafiles import read_jsonl
    from functions.chat.private import MODEL_PATH, TRAINING_PATH, WRITTEN_PATH, Example, Model

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report; write nothing")
    args = parser.parse_args(argv)
    spent = [
        Example(message=m, private=p, source=stem) for stem in SPENT for m, p in _messages(stem)
    ]
    spent = list({e.message: e for e in spent}.values())  # a message once
    examples = [*spent, *read_jsonl(WRITTEN_PATH, Example), *_requests_of_every_intent()]
    examples = list({e.message: e for e in examples}.values())
    x, _, _ = _features([e.message for e in examples])
    y = np.asarray([1.0 if e.private else 0.0 for e in examples])
    folds = np.arange(len(y)) % FOLDS
    chosen: dict[str, Any] = {}
    for l2 in L2S:
        out = np.zeros(len(y))
        for fold in range(FOLDS):
            out[folds == fold] = predict(
                fit(x[folds != fold], y[folds != fold], l2), x[folds == fold]
            )
        found = report(out, y)
        if not chosen or found["log_loss"] < chosen["report"]["log_loss"]:
            chosen = {"l2": l2, "report": found}
    mean, scale, weights, bias = fit(x, y, chosen["l2"])
    tuning = _messages(TUNING)
    tx, rule, read = _features([m for m, _ in tuning])
    wanted = np.asarray([p for _, p in tuning])
    scores = np.where(read, predict((mean, scale, weights, bias), tx), 0.0)
    others = scores[~wanted & ~rule]  # what the classifier alone would decline wrongly
    # more likely than not, unless one of the tuning set's other messages scores that
    threshold = max(0.5, min(0.95, round(float(others.max(initial=0.0)) + 0.005, 3)))
    declined = rule | (scores >= threshold)
    figures = {
        "examples": len(y),
        "private": int(y.sum()),
        "l2": chosen["l2"],
        "out_of_fold": {k: v for k, v in chosen["report"].items() if k != "deciles"},
        "threshold": threshold,
        "tuning": {
            "private": int(wanted.sum()),
            "declined_by_rule": int((rule & wanted).sum()),
            "declined": int((declined & wanted).sum()),
            "others_declined": int((declined & ~wanted).sum()),
            "others": int((~wanted).sum()),
        },
    }
    print(json.dumps(figures, indent=1))
    if not args.check:
        body = Model(
            mean=tuple(mean.tolist()),
            scale=tuple(scale.tolist()),
            weights=tuple(weights.tolist()),
            bias=bias,
            threshold=threshold,
        )
        MODEL_PATH.write_text(body.model_dump_json() + "\n", encoding="utf-8")
        TRAINING_PATH.write_text(
            "".join(e.model_dump_json() + "\n" for e in spent), encoding="utf-8"
        )
        print(f"wrote {MODEL_PATH} and {TRAINING_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
