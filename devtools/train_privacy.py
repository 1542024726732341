"""Train the personal-data classifier (common/privacy/classifier.py, decision 0037).

    .venv/bin/python -m devtools.train_privacy

Reads ``data/privacy/train.jsonl`` ({"text", "label"}; "none" or a personal label), embeds
each sentence with the offline all-MiniLM-L6-v2, adds its words (``classifier.grams`` seen at
least twice in the training part, weighted by ``ALPHA``), and fits a class-weighted multinomial
logistic regression by full-batch gradient descent (deterministic). The L2 strength and the decision
threshold are chosen by 5-fold cross-validation on the training set alone, for the screen as a
whole (patterns OR classifier, the classifier asked only about sentences that refer to a
person): the threshold is the highest whose cross-validated share of "none" sentences dropped
stays within ``MAX_FALSE_DROPS``, which is what maximises recall under that bound. Writes
``data/privacy/model.json`` with the figures it was chosen by. The held-apart set
(``bench/data/privacy_holdout_11.jsonl``) is never read here: ``bench/guardrails.py`` measures it.

The stored model names the training file's SHA-256; a test fails when the two disagree, so an
edit of the training set is never shipped without its model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from common.datafiles import DATA, NotBlank, Row, read_jsonl
from common.privacy import classifier
from common.privacy.rules import LABELS
from common.privacy.screen import NOBODY, _by_rules

TRAIN = DATA / "privacy" / "train.jsonl"
# Of "none" sentences, cross-validated, patterns included. Held-apart sets written later ran
# 0.004-0.009 above the cross-validated share (sets 9 and 10), so the bound keeps that margin
# below the goal of 0.02 (decision 0037, fifth round).
MAX_FALSE_DROPS = 0.012
L2_CHOICES = (0.0, 1e-4)
ALPHA = 2.0  # weight of the words beside the embedding (cross-validated: 0.5-3 tried)
MIN_COUNT = 2  # a word is in the vocabulary when this many training sentences have it
FOLDS = 5
STEPS = 1500
RATE = 2.0


class Sentence(Row):
    """A row of ``data/privacy/train.jsonl`` (and of ``train_pending.jsonl``, kept for a later
    training): a sentence and its label, "none" or a personal label of
    ``common.privacy.rules.Label`` (``classifier.Verdict``). Decision 0070."""

    text: NotBlank
    label: classifier.Verdict


def load(path: Path) -> tuple[list[str], list[str], str]:
    """The texts, their labels, and the SHA-256 of the bytes they were read from; every row
    validated (``Sentence``: ContentError names file:line and the field)."""
    rows = read_jsonl(path, Sentence)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return [row.text for row in rows], [row.label for row in rows], digest


@dataclass(frozen=True)
class Bag:
    """The rows' words as a sparse matrix NumPy can use without SciPy: one entry per (row,
    word), kept in row order for products with the weights and in column order for the
    gradient. It replaces a dense words-by-sentences matrix (5,469 x 18,588 floats): a step of
    the descent on it now costs about 45 ms here, and a whole training run 17 minutes."""

    rows: np.ndarray  # entry -> its row, ascending
    columns: np.ndarray  # entry -> its word
    values: np.ndarray  # entry -> its value (float32)
    height: int  # the number of rows
    width: int  # the vocabulary's size
    by_column: np.ndarray  # the entries in column order
    column_starts: np.ndarray  # where each present column's run begins in ``by_column``

    @classmethod
    def of(cls, grams: list[set[str]], rows: np.ndarray, vocab: dict[str, int]) -> Bag:
        found = [sorted(vocab[g] for g in grams[i] if g in vocab) for i in rows]
        lengths = np.array([len(f) for f in found], dtype=np.int64)
        row_of = np.repeat(np.arange(len(rows)), lengths)
        columns = np.array([c for f in found for c in f], dtype=np.int64)
        values = np.repeat(ALPHA / np.sqrt(np.maximum(lengths, 1)), lengths).astype(np.float32)
        order = np.argsort(columns, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(columns[order]) != 0]) if len(order) else order
        return cls(row_of, columns, values, len(rows), len(vocab), order, starts)

    def times(self, w: np.ndarray) -> np.ndarray:
        """rows x classes: the bag times ``w.T`` (w: classes x width)."""
        out = np.zeros((self.height, w.shape[0]), dtype=np.float32)
        if len(self.columns):
            contributions = np.ascontiguousarray(w.T)[self.columns] * self.values[:, None]
            starts = np.flatnonzero(np.r_[True, np.diff(self.rows) != 0])
            out[self.rows[starts]] = np.add.reduceat(contributions, starts, axis=0)
        return out

    def gradient(self, g: np.ndarray) -> np.ndarray:
        """classes x width: ``g.T`` (rows x classes) times the bag."""
        out = np.zeros((self.width, g.shape[1]), dtype=np.float32)
        if len(self.columns):
            order = self.by_column
            contributions = g[self.rows[order]] * self.values[order][:, None]
            present = self.columns[order][self.column_starts]
            out[present] = np.add.reduceat(contributions, self.column_starts, axis=0)
        return out.T


def fit(
    x: np.ndarray, bag: Bag, y: np.ndarray, classes: int, l2: float
) -> tuple[np.ndarray, np.ndarray]:
    """Class-weighted softmax regression by gradient descent with momentum, on the dense
    embedding ``x`` beside the sparse ``bag``; the weights are [embedding | words]."""
    n, d = x.shape
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    sample_weight = (n / (classes * np.maximum(counts, 1)))[y]
    sample_weight /= sample_weight.sum()
    onehot = np.eye(classes, dtype=np.float32)[y]
    sample_weight = sample_weight.astype(np.float32)
    w = np.zeros((classes, d + bag.width), dtype=np.float32)
    b = np.zeros(classes, dtype=np.float32)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(STEPS):
        logits = x @ w[:, :d].T + bag.times(w[:, d:]) + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * sample_weight[:, None]
        gw = np.hstack([g.T @ x, bag.gradient(g)]) + l2 * w
        gb = g.sum(axis=0)
        vw = 0.9 * vw + gw
        vb = 0.9 * vb + gb
        w -= RATE * vw
        b -= RATE * vb
    return w, b


def probabilities(x: np.ndarray, bag: Bag, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(label) of each row, the columns in the labels' order."""
    logits = x @ w[:, : x.shape[1]].T + bag.times(w[:, x.shape[1] :]) + b
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def p_none(x: np.ndarray, bag: Bag, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return probabilities(x, bag, w, b)[:, 0]


def linear_body(vocab: Sequence[str], w: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """A linear model file's vocabulary, weights and bias, as written (``LinearModelFile``)."""
    return {
        "alpha": ALPHA,
        "vocabulary": list(vocab),
        "weights": [[round(float(v), 5) for v in row] for row in w],
        "bias": [round(float(v), 5) for v in b],
    }


def choose(
    labels: list[str],
    rule_hit: np.ndarray,
    refers: np.ndarray,
    scores: np.ndarray,
    bound: float = MAX_FALSE_DROPS,
) -> tuple[float, float, float]:
    """(threshold, recall, false-drop share) of the screen as a whole, best recall with the
    false drops within ``bound``."""
    personal = np.array([label != classifier.NONE for label in labels])
    best = (0.0, 0.0, 0.0)
    for threshold in np.linspace(0.02, 0.98, 97):
        dropped = rule_hit | (refers & (scores < threshold))
        false = float(dropped[~personal].mean())
        recall = float(dropped[personal].mean())
        if false <= bound and recall >= best[1]:
            best = (float(threshold), recall, false)
    return best


def vocabulary(grams: list[set[str]]) -> dict[str, int]:
    counts = Counter(g for found in grams for g in found)
    kept = sorted(g for g, n in counts.items() if n >= MIN_COUNT)
    return {g: i for i, g in enumerate(kept)}


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    texts, labels, digest = load(TRAIN)
    names = [classifier.NONE, *LABELS]
    y = np.array([names.index(label) for label in labels])
    x = classifier.embed(texts)  # float32: twice as fast as float64, as precise as needed
    grams = [classifier.grams(text) for text in texts]
    rules = [_by_rules(text, NOBODY) for text in texts]
    rule_hit = np.array([verdict is not None for verdict, _ in rules])
    refers = np.array([refers for _, refers in rules])
    folds = np.arange(len(texts)) % FOLDS
    np.random.default_rng(7).shuffle(folds)
    results = {}
    for l2 in L2_CHOICES:
        scores = np.ones(len(texts))
        for fold in range(FOLDS):
            train, held = np.where(folds != fold)[0], np.where(folds == fold)[0]
            vocab = vocabulary([grams[i] for i in train])
            w, b = fit(x[train], Bag.of(grams, train, vocab), y[train], len(names), l2)
            scores[held] = p_none(x[held], Bag.of(grams, held, vocab), w, b)
        results[l2] = (choose(labels, rule_hit, refers, scores), scores)
        threshold, recall, false = results[l2][0]
        print(f"l2={l2:g}: threshold {threshold:.2f}, recall {recall:.3f}, false drops {false:.3f}")
        for bound in (0.008, 0.010, 0.012, 0.015, 0.020):
            _, at, fa = choose(labels, rule_hit, refers, scores, bound)
            print(f"    within {bound:.3f}: recall {at:.3f} (false drops {fa:.3f})")
    l2 = max(L2_CHOICES, key=lambda k: (results[k][0][1], -results[k][0][2]))
    (threshold, recall, false), _ = results[l2]
    vocab = vocabulary(grams)
    w, b = fit(x, Bag.of(grams, np.arange(len(texts)), vocab), y, len(names), l2)
    personal = np.array([label != classifier.NONE for label in labels])
    model = {
        "about": "data/privacy/model.json: written by `python -m devtools.train_privacy`",
        "trainedOn": {
            "file": "data/privacy/train.jsonl",
            "sha256": digest,
            "sentences": len(texts),
            "personal": int(personal.sum()),
        },
        "crossValidated": {
            "folds": FOLDS,
            "l2": l2,
            "recall": round(recall, 4),
            "falseDrops": round(false, 4),
            "patternsAlone": {
                "recall": round(float(rule_hit[personal].mean()), 4),
                "falseDrops": round(float(rule_hit[~personal].mean()), 4),
            },
        },
        "labels": names,
        "threshold": round(threshold, 4),
        **linear_body(vocab, w, b),
    }
    print(f"chosen: l2={l2:g}, threshold {threshold:.2f}: recall {recall:.3f}, false {false:.3f}")
    classifier.MODEL_PATH.write_text(json.dumps(model, indent=None) + "\n", encoding="utf-8")
    print(f"wrote {classifier.MODEL_PATH.relative_to(DATA.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
