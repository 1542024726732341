"""Whether a request is about the service's field at all (issue 44, decision 0077): the gate
that keeps a search for a mortgage rate, a recipe or a line of code from being answered with the
nearest guide.

The relevance judge (``common.search.relevance``) reads a request against each candidate, and a
request from another field still shares a word or two with some of them ("UK", "year",
"training", "plan"): about one off-corpus search in fifteen was answered and billed on the
held-apart sets. Whether a request is about animals, their welfare and campaigning for them at
all is a property of the request alone, the same whatever the corpus: an organisation's own
guides and records in production are about the same field as the demo's. So it is judged once
per request, on the request alone.

The model is a logistic regression on the request's MiniLM embedding (the bundled encoder the
judge reads, whatever the retrieval embedder), written by ``devtools/train_domain.py`` into
``data/relevance/domain.json``: P(outside the field) from every labelled request of the judge's
training pairs and of the spent held-apart sets, whose kinds say it (``off_corpus``,
``off_topic``, ``nonsense`` outside; keyword searches, paraphrases, questions, near misses and
topics the corpus does not cover inside: a near miss is about the field, just not answered).
A request that names an animal, or a word of what a candidate found is called (a record's name, a
guide's title), is inside whatever the vector says (``names_an_animal``, ``names_a_title``). The
``threshold`` is chosen out of fold, one set held out at a time: the lowest that gates at most
``MAX_INSIDE_GATED`` of the requests about the field (those naming an animal are never gated). A
search it gates is answered with nothing, and free.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import model_validator

from common.datafiles import DATA, Row, read_json

DOMAIN_PATH = DATA / "relevance" / "domain.json"
DIMENSION = 384  # the judge's encoder (``relevance.DIMENSION``)
# the share of requests about the field the threshold may gate, out of fold (the trainer's rule)
MAX_INSIDE_GATED = 0.0025


class DomainFile(Row):
    """The gate's model: per dimension of the request's MiniLM vector a mean, a scale (not 0)
    and a weight; the bias; the threshold on P(outside); and how it was chosen."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    l2: float
    requests: int

    @model_validator(mode="after")
    def _shaped(self) -> DomainFile:
        for name in ("mean", "scale", "weights"):
            if len(getattr(self, name)) != DIMENSION:
                found = len(getattr(self, name))
                raise ValueError(f"{name}: {found} values, the encoder gives {DIMENSION}")
        if 0.0 in self.scale:
            raise ValueError("scale: a dimension's scale is 0")
        if not 0.0 < self.threshold < 1.0:
            raise ValueError("threshold: must lie between 0 and 1")
        return self


@cache
def model() -> DomainFile:
    """The gate's model file, validated (``ContentError`` names the file and the field)."""
    return read_json(DOMAIN_PATH, DomainFile)


@cache
def _arrays() -> tuple[Any, Any, Any]:
    """The model's mean, scale and weights as arrays, made once and read-only: every request's
    thread reads the same ones."""
    import numpy as np

    found = model()
    mean, scale, weights = (np.array(v) for v in (found.mean, found.scale, found.weights))
    for array in (mean, scale, weights):
        array.setflags(write=False)
    return mean, scale, weights


def probability(vector: Sequence[float] | Any) -> float:
    """P(the request whose MiniLM ``vector`` this is lies outside the field)."""
    import numpy as np

    mean, scale, weights = _arrays()
    z = (np.asarray(vector, dtype=np.float64) - mean) / scale
    return float(1.0 / (1.0 + np.exp(-(z @ weights + model().bias))))


def names_an_animal(request: str) -> bool:
    """Whether the request names an animal (``common.language.species``): then it is about the
    field, whatever the vector says. A one-word search ("mink") is a short vector that the
    encoder places near anything; the field's animals are the field's, in any corpus."""
    from common.language import species

    return bool(species.named(request))


def names_a_title(request: str, titles: Sequence[str]) -> bool:
    """Whether the request holds a search term of one of ``titles`` (what the candidates found
    are called: a record's name, a guide's title). A search for a company, a person or a group
    by name is about what the tables hold, however little the encoder makes of the name: the
    names in production's records are not the demo's."""
    from common.language.index import terms

    asked = set(terms(request))
    return any(asked & set(terms(title)) for title in titles)


def outside(request: str, titles: Sequence[str] = (), vector: Sequence[float] | Any = None) -> bool:
    """Whether ``request`` is about another field altogether: the gate says so, and it names
    neither an animal (``names_an_animal``) nor what a candidate found is called
    (``names_a_title``). Its MiniLM ``vector``, when the caller has it, or embedded here. The
    names are read only of a request the gate puts outside (few are)."""
    if names_an_animal(request):
        return False
    if vector is None:
        from common.search.relevance import embed

        vector = embed([request])[0]
    return probability(vector) >= model().threshold and not names_a_title(request, titles)
