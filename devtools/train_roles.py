"""Train the classifier of sentence roles (functions/content/roles.py, decision 0080).

Reads ``data/content/roles/corpus.jsonl`` (sentences of ``data/knowledge`` a draft could quote,
with their guide's section, each labelled fact, guidance, caveat or other by helpers who read
only ``bench/data/roles.brief.md``) and the written sets (``WRITTEN``: sentences helpers wrote
about the guides' topics, labelled the same way; the corpus has few caveats). Embeds each
sentence with the offline all-MiniLM-L6-v2, adds its words and its section title's
(``roles.features``), and fits a class-weighted softmax regression (the privacy trainer's).

Two thresholds, on P(fact) and on P(caveat), are chosen by five-fold cross-validation over all
the sentences: those that keep the most guidance and caveats out of public copy, the advice
patterns of ``data/content/drafts.toml`` included, with the facts public copy loses at most
``MAX_FACTS_LOST`` over all the sentences and over the corpus's (decision 0080). Then the
model is fitted on everything and written to ``data/content/roles_model.json`` with its
cross-validated figures.

Run: ``PYTHONPATH=. .venv/bin/python -m devtools.train_roles``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from common.datafiles import DATA, NotBlank, Row, read_jsonl
from common.privacy import classifier
from devtools.train_privacy import FOLDS, Bag, fit, linear_body, probabilities, vocabulary
from functions.content import roles
from functions.content.texts import advice

CORPUS = DATA / "content" / "roles" / "corpus.jsonl"
# Sentences written about the guides' topics, labelled the same way (``WrittenSentence``): two
# helpers' training sets and the held-apart sets decision 0080 (roles_holdout2) and 0084
# (roles_holdout3) were measured on once (spent), the rows their two labellers agreed on.
WRITTEN = tuple(
    DATA / "content" / "roles" / name
    for name in ("written.jsonl", "written2.jsonl", "held_apart.jsonl", "held_apart2.jsonl")
)
# Of the facts, cross-validated, advice patterns included: over the corpus's sentences and over
# all of them. The goal is 0.02 on a held-apart set. A margin below it (0.012, decision
# 0080) was a difference of two or three of the corpus's 380 facts, which the folds' draw moves:
# with roles_holdout3 added it chose P(fact) >= 0.03 and no caveat threshold (guidance kept out
# 0.79), while the held-apart sets lost no fact at 0.08 (decision 0084). The bound is the goal.
MAX_FACTS_LOST = 0.02
L2_CHOICES = (1e-4, 1e-3)
FACT_THRESHOLDS = np.linspace(0.01, 0.6, 60)
CAVEAT_THRESHOLDS = (1.01, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15)  # 1.01: off


class CorpusSentence(Row):
    """A row of ``corpus.jsonl``: a sentence of a guide, where it stands, its role and why."""

    id: str
    guide: str
    section: str
    sentence: NotBlank
    role: roles.Role
    why: str


class WrittenSentence(Row):
    """A row of a written set: a sentence written about a topic, and its role."""

    id: str
    topic: str
    sentence: NotBlank
    role: roles.Role


def figures(y: np.ndarray, out: np.ndarray) -> dict[str, float]:
    fact, guidance, caveat = (roles.ROLES.index(r) for r in ("fact", "guidance", "caveat"))
    return {
        "factsLost": round(float(out[y == fact].mean()), 4),
        "guidanceKeptOut": round(float(out[y == guidance].mean()), 4),
        "caveatsKeptOut": round(float(out[y == caveat].mean()), 4),
    }


def choose(
    y: np.ndarray,
    rule_hit: np.ndarray,
    p: np.ndarray,
    corpus: int,
    bound: float = MAX_FACTS_LOST,
) -> tuple[tuple[float, float], dict[str, dict[str, float]]]:
    """((fact threshold, caveat threshold), figures over all rows and over the first
    ``corpus``): the most guidance and caveats kept out together, with the facts lost within
    ``bound`` over both. A sentence is kept out when the patterns match it, its P(fact) is
    under the first threshold or its P(caveat) reaches the second."""
    fact, caveat = roles.ROLES.index("fact"), roles.ROLES.index("caveat")
    best: tuple[tuple[float, float], dict[str, dict[str, float]]] = ((0.0, 1.01), {})
    best_score = -1.0
    for t in FACT_THRESHOLDS:
        for c in CAVEAT_THRESHOLDS:
            out = rule_hit | (p[:, fact] < t) | (p[:, caveat] >= c)
            every, own = figures(y, out), figures(y[:corpus], out[:corpus])
            if max(every["factsLost"], own["factsLost"]) > bound:
                continue
            score = every["guidanceKeptOut"] + every["caveatsKeptOut"]
            if score > best_score:
                best_score = score
                best = ((round(float(t), 4), c), {"all": every, "corpus": own})
    return best


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    corpus = read_jsonl(CORPUS, CorpusSentence)
    written = [row for path in WRITTEN for row in read_jsonl(path, WrittenSentence)]
    rows = [(r.sentence, r.section, r.role) for r in corpus] + [
        (r.sentence, "", r.role) for r in written
    ]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in (CORPUS, *WRITTEN))).hexdigest()
    y = np.array([roles.ROLES.index(role) for _, _, role in rows])
    x = classifier.embed([sentence for sentence, _, _ in rows])
    grams = [roles.features(sentence, section) for sentence, section, _ in rows]
    n = len(corpus)
    rule_hit = np.array([advice().search(sentence.lower()) is not None for sentence, _, _ in rows])
    folds = np.arange(len(rows)) % FOLDS
    np.random.default_rng(7).shuffle(folds)
    results = {}
    for l2 in L2_CHOICES:
        p = np.zeros((len(rows), len(roles.ROLES)))
        for fold in range(FOLDS):
            train, held = np.where(folds != fold)[0], np.where(folds == fold)[0]
            vocab = vocabulary([grams[i] for i in train])
            w, b = fit(x[train], Bag.of(grams, train, vocab), y[train], len(roles.ROLES), l2)
            p[held] = probabilities(x[held], Bag.of(grams, held, vocab), w, b)
        results[l2] = choose(y, rule_hit, p, n)
        print(f"l2={l2:g}: thresholds {results[l2][0]} {results[l2][1]}")
        for bound in (0.005, 0.01, 0.02, 0.03):
            print(f"    facts lost within {bound:.3f}: {choose(y, rule_hit, p, n, bound)}")

    def kept_out(k: float) -> float:
        every = results[k][1]["all"]
        return every["guidanceKeptOut"] + every["caveatsKeptOut"]

    if not any(results[k][1] for k in L2_CHOICES):
        raise SystemExit(f"no thresholds keep the facts lost within {MAX_FACTS_LOST}")
    l2 = max((k for k in L2_CHOICES if results[k][1]), key=kept_out)
    (threshold, caveat_threshold), chosen = results[l2]
    vocab = vocabulary(grams)
    w, b = fit(x, Bag.of(grams, np.arange(len(rows)), vocab), y, len(roles.ROLES), l2)
    files = [str(path.relative_to(DATA.parent)) for path in (CORPUS, *WRITTEN)]
    model = {
        "about": "data/content/roles_model.json: written by `python -m devtools.train_roles`",
        "trainedOn": {"files": files, "sha256": digest, "sentences": len(rows)},
        "crossValidated": {
            "folds": FOLDS,
            "l2": l2,
            **chosen,
            "patternsAlone": figures(y, rule_hit),
        },
        "labels": list(roles.ROLES),
        "threshold": threshold,
        "caveatThreshold": caveat_threshold,
        **linear_body(vocab, w, b),
    }
    print(f"chosen: l2={l2:g}, thresholds {threshold:.2f} {caveat_threshold}: {chosen}")
    roles.MODEL_PATH.write_text(json.dumps(model, indent=None) + "\n", encoding="utf-8")
    print(f"wrote {roles.MODEL_PATH.relative_to(DATA.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
