"""The personal-data classifier: multinomial logistic regression on a sentence's
all-MiniLM-L6-v2 embedding (the offline encoder the project already runs, common.language.minilm)
beside its words (unigrams, bigrams and stemmed search terms seen at least twice in training,
binary, L2-normalised, weighted by ``alpha``: the words a small training set has seen carry
what the embedding blurs, +0.04 recall at the same false drops in cross-validation), trained by
``python -m devtools.train_privacy`` on ``data/privacy/train.jsonl`` and stored as
``data/privacy/model.json`` (vocabulary, weights, bias, the decision threshold and the
cross-validated figures it was chosen by). Loaded on first use, never at import.

A sentence is personal when the probability of "none" falls below the threshold; its category
is then the most probable personal label. The offline encoder is used whatever
EMBEDDINGS_BACKEND is: the weights were fitted on its vectors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, model_validator

from common.datafiles import DATA, Row, read_json
from common.privacy.rules import Label

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "privacy" / "model.json"
NONE = "none"
Verdict = Literal["none", Label]  # a training sentence's label, and the model's: none first
DIMENSION = 384  # the offline encoder's (common.language.minilm), the first columns of a row


_WORD = re.compile(r"[a-z0-9']+")


def grams(text: str) -> set[str]:
    """The words the classifier reads beside the embedding."""
    from common.language.index import terms

    words = _WORD.findall(text.lower())
    return (
        set(words)
        | {f"{a} {b}" for a, b in pairwise(words)}
        | {f"t:{term}" for term in terms(text)}
    )


def bag(texts: Sequence[str], vocabulary: dict[str, int], alpha: float) -> np.ndarray:
    """The texts' words as rows of binary, L2-normalised, ``alpha``-weighted features."""
    import numpy as np

    rows = np.zeros((len(texts), len(vocabulary)), dtype=np.float32)
    for row, text in enumerate(texts):
        columns = [vocabulary[g] for g in grams(text) if g in vocabulary]
        if columns:
            rows[row, columns] = alpha / math.sqrt(len(columns))
    return rows


@dataclass(frozen=True)
class Model:
    labels: tuple[str, ...]  # "none" first
    weights: np.ndarray  # labels x (384 + vocabulary)
    bias: np.ndarray  # labels
    threshold: float  # personal when P(none) < threshold
    vocabulary: dict[str, int]
    alpha: float

    def features(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        return np.hstack([embed(texts), bag(texts, self.vocabulary, self.alpha)])

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        import numpy as np

        logits = vectors @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def verdicts(self, vectors: np.ndarray) -> list[tuple[str | None, float]]:
        """(personal label or None, P(personal)) per row."""
        probabilities = self.probabilities(vectors)
        out: list[tuple[str | None, float]] = []
        for row in probabilities:
            personal = 1.0 - float(row[0])
            label = None
            if float(row[0]) < self.threshold:
                label = self.labels[1 + int(row[1:].argmax())]
            out.append((label, personal))
        return out


class TrainedOn(Row):
    """What the model was trained from (a test compares ``sha256`` with the training set's)."""

    file: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    sentences: int = Field(gt=0)
    personal: int = Field(ge=0)


class LinearModelFile(Row):
    """What a model file of a linear classifier on the encoder's embedding and a vocabulary
    holds beside its labels and what it was trained on (this one, and the content's sentence
    roles): a threshold strictly between 0 and 1, the words' weight, the vocabulary, one row
    of weights and one bias per label. ``about`` and ``crossValidated`` are for the reader."""

    about: str
    crossValidated: dict[str, float | dict[str, float]]
    threshold: Annotated[float, Field(gt=0.0, lt=1.0)]
    alpha: Annotated[float, Field(gt=0.0)]
    vocabulary: tuple[str, ...]
    weights: list[list[float]]
    bias: list[float]


class ModelFile(LinearModelFile):
    """``data/privacy/model.json`` as ``read`` uses it (decision 0070): labels "none" first,
    then personal labels of ``rules.Label``, each once; one row of weights and one bias per
    label, a row being ``DIMENSION`` embedding columns then one per word of ``vocabulary``
    (each word once)."""

    trainedOn: TrainedOn
    labels: tuple[Verdict, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _shapes(self) -> ModelFile:
        n, width = len(self.labels), DIMENSION + len(self.vocabulary)
        if self.labels[0] != NONE or len(set(self.labels)) != n:
            raise ValueError(f"labels: {NONE!r} first, then each personal label once")
        if len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError("vocabulary: a word is listed twice")
        if len(self.bias) != n:
            raise ValueError(f"bias: {len(self.bias)} values for {n} labels")
        if len(self.weights) != n:
            raise ValueError(f"weights: {len(self.weights)} rows for {n} labels")
        for i, row in enumerate(self.weights):
            if len(row) != width:
                raise ValueError(
                    f"weights[{i}]: {len(row)} values, not {width} ({DIMENSION} for the "
                    f"embedding and {len(self.vocabulary)} for the vocabulary)"
                )
        return self


def read(path: Path) -> Model:
    """The model file, validated by ``ModelFile`` (ContentError names the file and the
    field); read once (``model``)."""
    import numpy as np

    data = read_json(path, ModelFile)
    return Model(
        labels=data.labels,
        weights=np.asarray(data.weights, dtype=np.float32),
        bias=np.asarray(data.bias, dtype=np.float32),
        threshold=data.threshold,
        vocabulary={gram: index for index, gram in enumerate(data.vocabulary)},
        alpha=data.alpha,
    )


@cache
def model() -> Model:
    return read(MODEL_PATH)


def embed(texts: Sequence[str]) -> np.ndarray:
    import numpy as np

    from common.language.minilm import get_model

    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.asarray(get_model().embed(list(texts)), dtype=np.float32)


def classify(texts: Sequence[str]) -> list[tuple[str | None, float]]:
    """(personal label or None, P(personal)) for each text."""
    if not texts:
        return []
    found = model()
    return found.verdicts(found.features(texts))
