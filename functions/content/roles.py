"""Sentence roles (issue 46, decisions 0080 and 0085): whether a sentence of the knowledge base is
a fact about the world, which public copy may quote, or guidance for campaigners ("Close with one
clear ask and a date for a reply"), a caveat that weakens an ask ("cage-free is not
automatically good welfare") or something else.

Two models read each sentence, and their probabilities are combined (the normalised geometric
mean), both trained by ``make train-roles`` (``devtools/train_roles.py``) on
``data/content/roles/``:

- a multinomial logistic regression on the sentence's all-MiniLM-L6-v2 embedding beside its
  words and its section heading's (``common.privacy.classifier``'s features);
- all-MiniLM-L6-v2 with its top layers fine-tuned and a softmax head on its mean-pooled,
  normalised output, reading the section's heading and the sentence as two segments. The tuned
  layers are ``data/content/roles_layers.safetensors``, run by the service's NumPy forward
  pass (``MiniLM.embed_tuned``).

``data/content/roles_model.json`` holds the first, the second's head, and the thresholds
cross-validation chose for the two together: public copy quotes a sentence whose P(fact)
reaches the first and whose P(caveat) stays under the second. The thresholds keep the facts
public copy loses within a bound (``MAX_FACTS_LOST`` of the trainer), so what the models keep
out beside the advice patterns of ``data/content/drafts.toml`` is what they are sure of. A
second, stricter pair (``clearThreshold``, ``clearCaveatThreshold``, chosen the same way with
the trainer's ``MAX_FACTS_SET_ASIDE``) tells a clear fact from a doubtful one, which public copy
quotes only when it has no clear fact left (decision 0087). Loaded on first use, never at
import; a sentence's probability is computed once per process (``judged``).
"""

from __future__ import annotations

import hashlib
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

from common.datafiles import DATA, ContentError, Row, read_json
from common.privacy.classifier import DIMENSION, LinearModelFile, embed, grams

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "content" / "roles_model.json"
LAYERS_PATH = DATA / "content" / "roles_layers.safetensors"
Role = Literal["fact", "guidance", "caveat", "other"]
# What public copy may do with a sentence: quote it, quote it only when no clear fact is left, or
# keep it out.
Verdict = Literal["clear", "doubtful", "out"]
ROLES: tuple[Role, ...] = ("fact", "guidance", "caveat", "other")
_SECTION_WORD = re.compile(r"[a-z0-9']+")
_REMEMBERED = 8192  # sentences whose probability is kept (the corpus has about 2,000)


def heading(section: str) -> str:
    """A passage's own heading: the last of a path such as "Laying hens > Cages" (the
    importer's), which is what the training sets hold."""
    return section.split(" > ")[-1].strip()


def features(sentence: str, section: str) -> set[str]:
    """The words the linear model reads beside the embedding: the sentence's (``grams``) and
    its section heading's (``heading``), marked."""
    words = _SECTION_WORD.findall(heading(section).lower())
    return grams(sentence) | {f"section:{w}" for w in words}


class TrainedOn(Row):
    files: tuple[str, ...] = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    sentences: int = Field(gt=0)


class Check(Row):
    """A sentence, its section and the probabilities the trainer computed for it with the tuned
    model, which the service's forward pass must reproduce."""

    sentence: str
    section: str
    probabilities: tuple[float, ...]


class Tuned(Row):
    """The fine-tuned model: its layers' file beside the model file, that file's digest and the
    weights it holds; the head's one row of ``DIMENSION`` weights and one bias per label."""

    file: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    names: tuple[str, ...] = Field(min_length=1)
    weights: list[list[float]]
    bias: list[float]
    checks: tuple[Check, ...] = Field(min_length=1)


class ModelFile(LinearModelFile):
    """``data/content/roles_model.json`` (decisions 0070 and 0085): the labels of ``ROLES`` in
    that order. The linear model: one row of weights and one bias per label, a row being
    ``DIMENSION`` embedding columns then one per word of ``vocabulary`` (each word once). The
    tuned model (``Tuned``). ``threshold`` is on the two's P(fact), ``caveatThreshold`` on
    their P(caveat); ``clearThreshold`` and ``clearCaveatThreshold`` are the stricter pair a clear
    fact passes (decision 0087)."""

    trainedOn: TrainedOn
    labels: tuple[Role, ...]
    caveatThreshold: float = Field(gt=0.0, le=1.01)  # 1.01: no caveat is kept out by it
    clearThreshold: float = Field(gt=0.0, le=1.0)
    clearCaveatThreshold: float = Field(gt=0.0, le=1.01)
    tuned: Tuned

    @model_validator(mode="after")
    def _shapes(self) -> ModelFile:
        n, width = len(ROLES), DIMENSION + len(self.vocabulary)
        if self.labels != ROLES:
            raise ValueError(f"labels: {list(ROLES)}, in that order")
        if self.clearThreshold < self.threshold or self.clearCaveatThreshold > self.caveatThreshold:
            raise ValueError("clearThreshold and clearCaveatThreshold: no laxer than the others")
        if len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError("vocabulary: a word is listed twice")
        if len(self.bias) != n or len(self.weights) != n:
            raise ValueError(f"weights and bias: one row and one value for each of {n} labels")
        for i, row in enumerate(self.weights):
            if len(row) != width:
                raise ValueError(f"weights[{i}]: {len(row)} values, not {width}")
        if len(self.tuned.bias) != n or len(self.tuned.weights) != n:
            raise ValueError(f"tuned: one row of weights and one bias for each of {n} labels")
        for i, row in enumerate(self.tuned.weights):
            if len(row) != DIMENSION:
                raise ValueError(f"tuned.weights[{i}]: {len(row)} values, not {DIMENSION}")
        return self


def _softmax(logits: np.ndarray) -> np.ndarray:
    import numpy as np

    logits = logits - logits.max(axis=1, keepdims=True)
    found = np.exp(logits)
    return found / found.sum(axis=1, keepdims=True)


def combined(linear: np.ndarray, tuned: np.ndarray) -> np.ndarray:
    """The two models' probabilities of each label together: their geometric mean, normalised
    (the trainer chose the thresholds on this)."""
    import numpy as np

    return _softmax(0.5 * (np.log(linear + 1e-9) + np.log(tuned + 1e-9)))


@dataclass(frozen=True)
class Model:
    weights: np.ndarray  # labels x (DIMENSION + vocabulary): the linear model
    bias: np.ndarray
    vocabulary: dict[str, int]
    alpha: float
    tuned: dict[str, np.ndarray]  # the fine-tuned layers, ``minilm.prepared``
    head: np.ndarray  # labels x DIMENSION
    head_bias: np.ndarray
    threshold: float  # public copy quotes a sentence when P(fact) reaches it
    caveat_threshold: float  # and P(caveat) stays under this
    clear_threshold: float  # a clear fact's P(fact) reaches this (no lower than ``threshold``)
    clear_caveat_threshold: float  # and its P(caveat) stays under this

    def linear(self, rows: Sequence[tuple[str, str]]) -> np.ndarray:
        """The linear model's P of each label of ``ROLES``, a row for each (sentence, section)."""
        import numpy as np

        words = np.zeros((len(rows), len(self.vocabulary)), dtype=np.float32)
        for i, (sentence, section) in enumerate(rows):
            found = features(sentence, section)
            columns = [self.vocabulary[w] for w in found if w in self.vocabulary]
            if columns:
                words[i, columns] = self.alpha / math.sqrt(len(columns))
        vectors = np.hstack([embed([sentence for sentence, _ in rows]), words])
        return _softmax(vectors @ self.weights.T + self.bias)

    def fine_tuned(self, rows: Sequence[tuple[str, str]]) -> np.ndarray:
        """The tuned model's P of each label of ``ROLES``, a row for each (sentence, section)."""
        import numpy as np

        from common.language.minilm import get_model

        if not rows:
            return np.zeros((0, len(ROLES)), dtype=np.float32)
        texts = [encoded(sentence, section) for sentence, section in rows]
        vectors = np.asarray(get_model().embed_tuned(texts, self.tuned), dtype=np.float32)
        return _softmax(vectors @ self.head.T + self.head_bias)

    def probabilities(self, rows: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        """(P(fact), P(caveat)) of each (sentence, section title), the two models together."""
        if not rows:
            return []
        found = combined(self.linear(rows), self.fine_tuned(rows))
        fact, caveat = ROLES.index("fact"), ROLES.index("caveat")
        return [(float(p[fact]), float(p[caveat])) for p in found]

    def verdict(self, probability: tuple[float, float]) -> Verdict:
        fact, caveat = probability
        if fact >= self.clear_threshold and caveat < self.clear_caveat_threshold:
            return "clear"
        if fact >= self.threshold and caveat < self.caveat_threshold:
            return "doubtful"
        return "out"


def encoded(sentence: str, section: str) -> str | tuple[str, str]:
    """What the model reads: the sentence alone, or after its section's own heading (the last
    of a path such as "Laying hens > Cages") as a first segment: the guides put their advice
    under headings such as "Closing ask"."""
    own = heading(section)
    return (own, sentence) if own else sentence


def read(path: Path) -> Model:
    import numpy as np
    from safetensors.numpy import load_file

    from common.language.minilm import prepared

    data = read_json(path, ModelFile)
    layers = path.parent / data.tuned.file
    if hashlib.sha256(layers.read_bytes()).hexdigest() != data.tuned.sha256:
        raise ContentError(f"{layers.name} is not the file {path.name} was written with")
    stored = load_file(str(layers))
    if sorted(stored) != sorted(data.tuned.names):
        raise ContentError(f"{layers.name} does not hold the layers {path.name} names")
    return Model(
        weights=np.asarray(data.weights, dtype=np.float32),
        bias=np.asarray(data.bias, dtype=np.float32),
        vocabulary={word: index for index, word in enumerate(data.vocabulary)},
        alpha=data.alpha,
        tuned=prepared({name: value.astype(np.float32) for name, value in stored.items()}),
        head=np.asarray(data.tuned.weights, dtype=np.float32),
        head_bias=np.asarray(data.tuned.bias, dtype=np.float32),
        threshold=data.threshold,
        caveat_threshold=data.caveatThreshold,
        clear_threshold=data.clearThreshold,
        clear_caveat_threshold=data.clearCaveatThreshold,
    )


@cache
def model() -> Model:
    return read(MODEL_PATH)


_known: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
_lock = threading.Lock()


def quotable(rows: Sequence[tuple[str, str]]) -> list[bool]:
    """Whether public copy may quote each (sentence, section title), clear or doubtful."""
    return [verdict != "out" for verdict in judged(rows)]


def judged(rows: Sequence[tuple[str, str]]) -> list[Verdict]:
    """What public copy may do with each (sentence, section title): the model judges it a
    clear fact (the stricter thresholds), a doubtful one (P(fact) at least the model's
    threshold and P(caveat) under its own) or neither. Each sentence is judged once per process
    (the most recent ``_REMEMBERED`` are kept), the new ones in one batch."""
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
    return [trained.verdict(known[row]) for row in rows]
