"""A relevance judge (issue 44): the calibrated probability that a candidate (a passage, a record,
a sentence) answers a request, from what ships in every environment, whatever the retrieval
embedder (MiniLM in `make run`, Vertex in production), so one threshold holds in both.

Features of a (request, candidate) pair (``features``):

- the cosine of the two texts' vectors from the bundled MiniLM encoder;
- the share of the request's search terms (``common.text.index.terms``: stemmed, stop words
  out) that the candidate holds, and the share of its term pairs (in order) it holds;
- the names, places and figures of the request (capitalised words past the first, numbers)
  found in the candidate, and whether it names some and the candidate holds none;
- the request's length in terms;
- the cosine times the term share.

A logistic regression on those (``data/relevance/model.json``, written by
``devtools/train_relevance.py`` from ``data/relevance/train_pairs.jsonl``: requests written by
helpers from the corpus and the sample records, each with hard candidates labelled 2 / 1 / 0)
gives P(the candidate is relevant: labelled 1 or 2). Its calibration is measured out of fold
(per decile) by the trainer. Not yet asked by any door: decision record to come with the
wiring (issue 44).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from common.datafiles import DATA
from common.text.index import terms

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "relevance" / "model.json"
FEATURES = (
    "cosine",
    "term_share",
    "pair_share",
    "names_found",
    "names_missing",
    "figures_found",
    "request_terms",
    "cosine_x_term_share",
)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'&-]+")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def _share(wanted: Sequence[Hashable], present: AbstractSet[Hashable]) -> float:
    return sum(item in present for item in wanted) / len(wanted) if wanted else 1.0


def _pairs(words: Sequence[str]) -> list[tuple[str, str]]:
    return list(pairwise(words))


def pair_features(request: str, candidate: str, cosine: float) -> list[float]:
    """The features of one pair, ``cosine`` given (``features`` embeds the texts)."""
    asked, held = terms(request), terms(candidate)
    held_set = set(held)
    held_pairs = set(_pairs(held))
    names = [n.lower() for n in _NAME.findall(request)]
    lowered = candidate.lower()
    found_names = [n for n in names if n in lowered]
    figures = _FIGURE.findall(request)
    term_share = _share(asked, held_set)
    return [
        cosine,
        term_share,
        _share(_pairs(asked), held_pairs) if len(asked) > 1 else term_share,
        len(found_names) / len(names) if names else 1.0,
        1.0 if names and not found_names else 0.0,
        _share(figures, set(_FIGURE.findall(candidate))),
        math.log1p(len(asked)),
        cosine * term_share,
    ]


def features(request: str, candidates: Sequence[str]) -> np.ndarray:
    """One row of ``FEATURES`` per candidate."""
    import numpy as np

    from common.offline.minilm import get_model

    vectors = np.asarray(get_model().embed([request, *candidates]), dtype=np.float32)
    cosines = vectors[1:] @ vectors[0]
    return np.asarray(
        [pair_features(request, c, float(s)) for c, s in zip(candidates, cosines, strict=True)],
        dtype=np.float64,
    )


@dataclass(frozen=True)
class Judge:
    """Standardised features -> logistic regression."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        import numpy as np

        z = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.weights) + self.bias)))

    def to_json(self) -> str:
        body = {
            "features": FEATURES,
            "mean": self.mean,
            "scale": self.scale,
            "weights": self.weights,
            "bias": self.bias,
        }
        return json.dumps(body, indent=1) + "\n"


def read(path: Path = MODEL_PATH) -> Judge:
    document = json.loads(path.read_text(encoding="utf-8"))
    if tuple(document["features"]) != FEATURES:
        raise ValueError(f"{path} was trained on other features: run devtools.train_relevance")
    return Judge(
        tuple(document["mean"]),
        tuple(document["scale"]),
        tuple(document["weights"]),
        float(document["bias"]),
    )


@cache
def judge() -> Judge:
    return read()


def relevance(request: str, candidates: Sequence[str]) -> list[float]:
    """P(relevant) of each candidate for ``request``, in order."""
    if not candidates:
        return []
    return [float(p) for p in judge().probabilities(features(request, candidates))]
