"""Whether a chat message asks for a person's private details (decision 0067): the words of the
rule (``functions.chat.assist.asks_private``: a person named and a private detail asked) or a
classifier of such requests, on the bundled MiniLM encoder.

The rule is words: the kinds of request its writers saw. A request it has not seen ("what
medication is prof owen marsh taking", "can u get me the personal cell of whoever owns Sabor
Grill") is read by a logistic regression on the message's MiniLM vector, its people's names
masked (``masked``), and the rule's two halves (a person named, a private detail named),
trained by ``devtools/train_private_asks.py`` on ``data/offline/private_asks.jsonl`` (the
spent held-apart chat sets' messages, private or not) and ``private_asks_written.jsonl``
(close calls that ask for nothing private), with the intent engine's training messages as
ordinary work. Its threshold (``MODEL_PATH``'s ``threshold``) is 0.5, more likely than not,
unless a message of the tuning set that asks for nothing private scores that: then just
above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from common.datafiles import DATA, Row, read_json

if TYPE_CHECKING:
    import numpy as np

MODEL_PATH = DATA / "offline" / "private_asks.json"
TRAINING_PATH = DATA / "offline" / "private_asks.jsonl"  # from the spent sets
WRITTEN_PATH = DATA / "offline" / "private_asks_written.jsonl"  # close calls, by a helper
DIMENSION = 384
SIGNALS = ("person_named", "detail_named")  # the rule's halves, after the vector


class Example(Row):
    """A training row: a chat message, and whether it asks for a person's private details."""

    message: str = Field(min_length=1)
    private: bool
    source: str = Field(min_length=1)  # the set it came from


class Model(Row):
    """``MODEL_PATH``: standardised features (the vector, then ``SIGNALS``) -> P(private)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float = Field(gt=0.0, lt=1.0)

    @model_validator(mode="after")
    def _shape(self) -> Model:
        wanted = DIMENSION + len(SIGNALS)
        for name in ("mean", "scale", "weights"):
            found = len(getattr(self, name))
            if found != wanted:
                raise ValueError(f"{name}: {found} values for {wanted} features")
        if 0.0 in self.scale:
            raise ValueError("scale: a feature's scale is 0")
        return self

    def probability(self, features: np.ndarray) -> float:
        import numpy as np

        z = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        return float(1.0 / (1.0 + np.exp(-(z @ np.asarray(self.weights) + self.bias))))


@cache
def model() -> Model:
    return read_json(MODEL_PATH, Model)


def features(vector: np.ndarray | list[float], person: bool, detail: bool) -> np.ndarray:
    import numpy as np

    return np.concatenate([np.asarray(vector, dtype=np.float64), [float(person), float(detail)]])


MASK = "someone"  # a person's name, as the classifier reads it


def masked(message: str, names: Sequence[tuple[int, int]]) -> str:
    """The message with each of its names (spans) read as ``MASK``: the classifier judges what
    is asked of a person, not of whom (a name seen in a private request while it learned would
    otherwise make a question about that person's public role look private)."""
    merged: list[list[int]] = []  # overlapping spans as one
    for start, end in sorted(names):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        message = f"{message[:start]}{MASK}{message[end:]}"
    return message


def probability(message: str, person: bool, detail: bool) -> float:
    """P(``message``, its names masked, asks for a person's private details), given the
    rule's halves."""
    from common.language.minilm import get_model

    return model().probability(features(get_model().embed([message])[0], person, detail))
