"""Whether a candidate fact is on a draft's topic (issue 46, decision 0088): the calibrated
probability that the campaigner who asked would read a sentence as on the request's topic and
ask, not beside the point (a US statute's definition in a post for European investors, the EU's
transport rules in a petition against animal tests for export).

A logistic regression (``data/content/topicality_model.json``, written by
``devtools/train_topicality.py`` from ``data/content/topicality_pairs.jsonl``: the candidate
facts of spent content sets 25 to 33, each labelled ``on`` or ``off`` by a helper that read only
the request and the sentence, ``bench/data/on_topic.brief.md``) reads, of each candidate:

- ``PIPELINE``: what the draft's pipeline knows of it: the relevance judge's probability that
  the sentence answers the draft's subject and that its passage does (as log-odds), the
  passage's score as a share of the best passage's, whether it is of the best passage's guide,
  whether its passage is near the best (``compose.NEAR``), whether the roles model doubts it;
- ``TOPICS``: the catalog's topics (``data/topics.toml``, not the broad ones of
  ``drafts.toml``) that the subject names against those the sentence and its guide's title
  name: others only, or some of the same;
- ``term_share``: the share of the subject's search terms the sentence holds;
- the relevance judge's own features (``common.search.relevance.FEATURES``, the two MiniLM
  vectors' product among them) of the pair (subject and audience, sentence): the places,
  animals and roles the request names that the sentence does not.

The plain features and the vectors' product are regularised apart (the product strongly). The
trainer reports its calibration and AUC out of fold, one spent set left out at a time. The
probability is on this model's scale (P(a reader calls the sentence on topic)), whatever the
retrieval embedder: the judge's features come from the bundled MiniLM. Loaded on first use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from common.datafiles import DATA, ContentError, Row, read_json
from common.language.index import terms
from common.search import relevance

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "content" / "topicality_model.json"
PAIRS_PATH = DATA / "content" / "topicality_pairs.jsonl"
PIPELINE = ("sentence", "passage", "share", "best_document", "near", "doubtful")
TOPICS = (
    "topics_elsewhere",
    "topics_shared",
    "document_topics_elsewhere",
    "document_topics_shared",
)
PLAIN = (*PIPELINE, *TOPICS, "term_share", *relevance.FEATURES[: -relevance.DIMENSION])
FEATURES = (*PLAIN, *relevance.FEATURES[-relevance.DIMENSION :])
_CLIPPED = 1e-4  # a probability is clipped to [this, 1 - this] before its log-odds are taken


@dataclass(frozen=True)
class Seen:
    """A candidate fact as the draft's pipeline sees it."""

    text: str
    title: str  # its guide's
    passage: float  # the relevance judge's score of its passage for the draft's subject
    share: float  # ... as a share of the best passage's
    best_document: bool  # of the best passage's guide
    near: bool  # its passage is near the best (``compose.NEAR``)
    doubtful: bool  # the roles model doubts it is a fact (decision 0087)


def _log_odds(p: float) -> float:
    p = min(max(p, _CLIPPED), 1 - _CLIPPED)
    return math.log(p / (1 - p))


def _topics(text: str) -> frozenset[str]:
    from common.offline.entities import topics_in
    from functions.content.texts import drafts

    return frozenset(topics_in(text)) - frozenset(drafts().committed.broad_topics)


def _of(asked: frozenset[str], named: frozenset[str]) -> tuple[float, float]:
    """(names other topics only, names one of the asked): both 0.0 when either names none."""
    shared = bool(asked & named)
    return float(bool(asked and named) and not shared), float(shared)


def features(about: str, audience: str | None, seen: Sequence[Seen]) -> np.ndarray:
    """One row of ``FEATURES`` per candidate, for a draft on ``about`` (its subject) for
    ``audience``."""
    import numpy as np

    from common.language.acronyms import spelled

    if not seen:
        return np.zeros((0, len(FEATURES)))
    vectors = relevance.embed([s.text for s in seen])
    candidates = [relevance.Candidate(s.text, v) for s, v in zip(seen, vectors, strict=True)]
    sentence = relevance.judged(about, candidates, "topic")
    context = spelled(f"{about} {audience}" if audience else about)
    pairs = relevance.rows(relevance.embed([context])[0], context, candidates)
    asked, wanted = _topics(about), set(terms(about))
    plain = [
        [
            _log_odds(p),
            _log_odds(s.passage),
            s.share,
            float(s.best_document),
            float(s.near),
            float(s.doubtful),
            *_of(asked, _topics(s.text)),
            *_of(asked, _topics(s.title)),
            len(wanted & set(terms(s.text))) / max(1, len(wanted)),
        ]
        for s, p in zip(seen, sentence, strict=True)
    ]
    return np.hstack([np.asarray(plain, dtype=np.float64), pairs])


class ModelFile(Row):
    """``MODEL_PATH``: per feature of ``FEATURES`` a mean, a scale (not 0) and a weight, then
    the bias; and what it was trained on."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    pairs: int = Field(gt=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")  # of ``PAIRS_PATH`` as trained on
    inputs: str = Field(pattern=r"^[0-9a-f]{64}$")  # ``inputs()`` as trained with

    @model_validator(mode="after")
    def _of_the_features(self) -> ModelFile:
        if self.features != FEATURES:
            raise ValueError(
                "features: not this module's FEATURES: run devtools.train_topicality again"
            )
        for name in ("mean", "scale", "weights"):
            if len(getattr(self, name)) != len(FEATURES):
                raise ValueError(f"{name}: {len(getattr(self, name))} values")
        if 0.0 in self.scale:
            raise ValueError("scale: a feature's scale is 0")
        if not all(map(math.isfinite, (*self.mean, *self.scale, *self.weights, self.bias))):
            raise ValueError("a value is not a finite number")
        return self


def inputs() -> str:
    """The SHA-256 of what the features read besides the pair: the relevance judge's model
    file, the topic catalog, the broad topics and the acronyms table. A model belongs to the
    inputs it was trained with."""
    import hashlib

    from common.language.acronyms import PATH as ACRONYMS
    from functions.content.texts import drafts

    digest = hashlib.sha256(relevance.model_digest().encode())
    for path in (DATA / "topics.toml", ACRONYMS):
        digest.update(path.read_bytes())
    digest.update(" ".join(sorted(drafts().committed.broad_topics)).encode())
    return digest.hexdigest()


@cache
def model() -> ModelFile:
    """``MODEL_PATH``, refused (``ContentError``) when trained with other ``inputs()``."""
    found = read_json(MODEL_PATH, ModelFile)
    if found.inputs != inputs():
        raise ContentError(
            f"{MODEL_PATH.name}: trained with another relevance judge, topic catalog or "
            "acronyms table: run devtools.train_topicality"
        )
    return found


def probabilities(rows: np.ndarray, file: ModelFile | None = None) -> list[float]:
    """P(on topic) of each row of ``FEATURES``."""
    import numpy as np

    found = file or model()
    z = (rows - np.asarray(found.mean)) / np.asarray(found.scale)
    logit = z @ np.asarray(found.weights) + found.bias
    return [float(p) for p in 1.0 / (1.0 + np.exp(-logit))]


def on_topic(about: str, audience: str | None, seen: Sequence[Seen]) -> list[float]:
    """P(a reader calls each candidate on the topic) of a draft on ``about`` for ``audience``.
    A draft asks again of the same candidates (a post the best facts do not fit tries the
    lesser ones): the answer is kept (``_judged``), not computed twice."""
    return list(_judged(about, audience, tuple(seen))) if seen else []


@lru_cache(maxsize=256)
def _judged(about: str, audience: str | None, seen: tuple[Seen, ...]) -> tuple[float, ...]:
    """``on_topic``'s answer, kept per process (``lru_cache`` is safe across threads and the
    answer, a tuple, is never changed by a caller)."""
    return tuple(probabilities(features(about, audience, seen)))
