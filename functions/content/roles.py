"""Sentence roles (issue 46, decision 0080): whether a sentence of the knowledge base is a fact
about the world, which public copy may quote, or guidance for campaigners ("Close with one
clear ask and a date for a reply"), a caveat that weakens an ask ("cage-free is not
automatically good welfare") or something else.

Multinomial logistic regression on the sentence's all-MiniLM-L6-v2 embedding beside its words
and the words of its section's title (``common.privacy.classifier``'s features: the guides put
their advice under titles such as "Closing ask"), trained by ``python -m devtools.train_roles``
on ``data/content/roles/`` and stored as ``data/content/roles_model.json`` with the thresholds
cross-validation chose: public copy quotes a sentence whose P(fact) reaches the first and whose
P(caveat) stays under the second.
The threshold keeps the facts public copy loses within a bound (``MAX_FACTS_LOST`` of the
trainer), so what it keeps out beside the advice patterns of ``data/content/drafts.toml`` is
what the model is sure of. Loaded on first use, never at import; a sentence's probability is
computed once per process (``quotable``).
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from common.datafiles import DATA, Row, read_json
from common.privacy.classifier import DIMENSION, LinearModelFile, embed, grams

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "content" / "roles_model.json"
Role = Literal["fact", "guidance", "caveat", "other"]
ROLES: tuple[Role, ...] = ("fact", "guidance", "caveat", "other")
_SECTION_WORD = re.compile(r"[a-z0-9']+")
_REMEMBERED = 8192  # sentences whose probability is kept (the corpus has about 2,000)


def features(sentence: str, section: str) -> set[str]:
    """The words the model reads beside the embedding: the sentence's (``grams``) and its
    section title's, marked."""
    return grams(sentence) | {f"section:{w}" for w in _SECTION_WORD.findall(section.lower())}


class TrainedOn(Row):
    files: tuple[str, ...] = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    sentences: int = Field(gt=0)


class ModelFile(LinearModelFile):
    """``data/content/roles_model.json`` (decision 0070): the labels of ``ROLES`` in that
    order; one row of weights and one bias per label, a row being ``DIMENSION`` embedding
    columns then one per word of ``vocabulary`` (each word once); the threshold is on P(fact)."""

    trainedOn: TrainedOn
    labels: tuple[Role, ...]
    caveatThreshold: float = Field(gt=0.0, le=1.01)  # 1.01: no caveat is kept out by it

    @model_validator(mode="after")
    def _shapes(self) -> ModelFile:
        n, width = len(ROLES), DIMENSION + len(self.vocabulary)
        if self.labels != ROLES:
            raise ValueError(f"labels: {list(ROLES)}, in that order")
        if len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError("vocabulary: a word is listed twice")
        if len(self.bias) != n or len(self.weights) != n:
            raise ValueError(f"weights and bias: one row and one value for each of {n} labels")
        for i, row in enumerate(self.weights):
            if len(row) != width:
                raise ValueError(f"weights[{i}]: {len(row)} values, not {width}")
        return self


@dataclass(frozen=True)
class Model:
    weights: np.ndarray  # labels x (DIMENSION + vocabulary)
    bias: np.ndarray
    vocabulary: dict[str, int]
    alpha: float
    threshold: float  # public copy quotes a sentence when P(fact) reaches it
    caveat_threshold: float  # and P(caveat) stays under this

    def probabilities(self, rows: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        """(P(fact), P(caveat)) of each (sentence, section title)."""
        import numpy as np

        words = np.zeros((len(rows), len(self.vocabulary)), dtype=np.float32)
        for i, (sentence, section) in enumerate(rows):
            found = features(sentence, section)
            columns = [self.vocabulary[w] for w in found if w in self.vocabulary]
            if columns:
                words[i, columns] = self.alpha / math.sqrt(len(columns))
        vectors = np.hstack([embed([sentence for sentence, _ in rows]), words])
        logits = vectors @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        fact, caveat = ROLES.index("fact"), ROLES.index("caveat")
        return [(float(p[fact]), float(p[caveat])) for p in probabilities]

    def quotes(self, probability: tuple[float, float]) -> bool:
        return probability[0] >= self.threshold and probability[1] < self.caveat_threshold


def read(path: Path) -> Model:
    import numpy as np

    data = read_json(path, ModelFile)
    return Model(
        weights=np.asarray(data.weights, dtype=np.float32),
        bias=np.asarray(data.bias, dtype=np.float32),
        vocabulary={word: index for index, word in enumerate(data.vocabulary)},
        alpha=data.alpha,
        threshold=data.threshold,
        caveat_threshold=data.caveatThreshold,
    )


@cache
def model() -> Model:
    return read(MODEL_PATH)


_known: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
_lock = threading.Lock()


def quotable(rows: Sequence[tuple[str, str]]) -> list[bool]:
    """Whether public copy may quote each (sentence, section title): the model judges it a
    fact (P(fact) at least the model's threshold) and not a caveat (P(caveat) under its own).
    Each sentence is judged once per process (the most recent ``_REMEMBERED`` are kept), the
    new ones in one batch."""
    trained = model()
    with _lock:
        known = {row: _known[row] for row in rows if row in _known}
    missing = list(dict.fromkeys(row for row in rows if row not in known))
    if missing:
        found = dict(zip(missing, trained.probabilities(missing), strict=True))
        known.update(found)
        with _lock:
            _known.update(found)
            while len(_known) > _REMEMBERED:
                _known.popitem(last=False)
    return [trained.quotes(known[row]) for row in rows]
