"""The intents the service tells apart, and the schemas of the intent model's files (decision
0070): its labelled messages (``data/intents/*.jsonl``, one ``Example`` a line) and the trained
model (``data/intents/model.json``, a ``ModelFile``).

``Intent`` is the service's own list (the chat group's answers name one: ``functions.chat``
imports it from here); a training row labelled with anything else is refused, naming its file
and line, rather than training a new class. The model's readers are
``common.offline.classifier`` (``read_jsonl``, ``Model.load``); the schemas are here, not there,
because the model names a fingerprint of the classifier's and the trainer's bytes
(``common.offline.train.fingerprint``), and what a file must hold is not how a model is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import Field, model_validator

from common.datafiles import NotBlank, Row, read_json, read_jsonl

Intent = Literal[
    "CREATE_CONTENT",
    "INVESTIGATE_COMPANY",
    "RESEARCH_INDIVIDUAL",
    "LEGAL_HELP",
    "TRACK_ISSUES",
    "GENERAL_CHAT",
]
INTENTS: tuple[str, ...] = get_args(Intent)
DIMENSION = 384  # the offline encoder's (common.language.minilm), which ``meaning`` reads


class Example(Row):
    """A labelled message. The held-out sets of company names (``holdout_entities``,
    ``holdout_companies``, and ``bench/data/intent_holdout_styles.jsonl``) add the company an
    INVESTIGATE_COMPANY message names (``companyName``: None when it names none) and other
    spellings accepted for it (``alsoAccepted``)."""

    text: NotBlank
    intent: Intent
    companyName: NotBlank | None = None
    alsoAccepted: tuple[NotBlank, ...] = ()


def examples(path: Path) -> list[Example]:
    """The rows of a labelled set, each validated (``ContentError`` names file:line)."""
    return read_jsonl(path, Example)


Probability = Annotated[float, Field(ge=0.0, le=1.0)]


class MeaningFile(Row):
    """The embedding model (``classifier.Meaning``): one row of weights per dimension."""

    weights: list[list[float]]
    bias: list[float]
    mix: Probability
    scale: Annotated[float, Field(gt=0.0)]
    words_sure: Probability


class ModelFile(Row):
    """``data/intents/model.json`` as ``classifier.Model.load`` reads it: every label an
    intent, once; one bias and one weight per label for each feature; the embedding model's
    weights ``DIMENSION`` x labels."""

    labels: list[Intent] = Field(min_length=2)
    bias: list[float]
    temperature: Annotated[float, Field(gt=0.0)]
    weights: dict[str, list[float]]
    meaning: MeaningFile | None = None
    trainedOn: str = ""  # common.offline.train.fingerprint() of what built it

    @model_validator(mode="after")
    def _shapes(self) -> ModelFile:
        n = len(self.labels)
        if len(set(self.labels)) != n:
            raise ValueError(f"labels: an intent is named twice ({self.labels})")
        if len(self.bias) != n:
            raise ValueError(f"bias: {len(self.bias)} values for {n} labels")
        for feature, row in self.weights.items():
            if len(row) != n:
                raise ValueError(f"weights.{feature}: {len(row)} values for {n} labels")
        if self.meaning is not None:
            meaning = self.meaning
            if len(meaning.weights) != DIMENSION:
                raise ValueError(
                    f"meaning.weights: {len(meaning.weights)} rows for the encoder's {DIMENSION}"
                )
            for i, row in enumerate(meaning.weights):
                if len(row) != n:
                    raise ValueError(f"meaning.weights[{i}]: {len(row)} values for {n} labels")
            if len(meaning.bias) != n:
                raise ValueError(f"meaning.bias: {len(meaning.bias)} values for {n} labels")
        return self


def read_model(path: Path) -> ModelFile:
    """The model file, validated (``ContentError`` names the file and the field)."""
    return read_json(path, ModelFile)
