"""The offline engine's entry points, with the trained intent model loaded on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common import container
from common.language.message import Message, annotate
from common.offline.classifier import Model, features
from common.offline.entities import extract

MODEL_PATH = Path(__file__).resolve().parents[2] / "data" / "intents" / "model.json"
NAME = "offline"

_model: container.Entry[Model] = container.register(
    "offline.intent_model", lambda: Model.load(MODEL_PATH)
)


def model() -> Model:
    """The trained intent model, loaded on first use."""
    return _model.get()


def warm() -> None:
    """Load the intent model and the entities' word lists (``common.http.warmup``)."""
    detect_intent("How do I start a campaign asking a supermarket to go cage-free?")


def reads(message: str | Message) -> bool:
    """Whether the message has a feature the intent model has learnt other than its shape (a
    word, a stem, a cue, a company named): one with none ("." or keyboard mash) is classified
    by the bias and its length alone, which says nothing about it. The features are those
    the detection read, when given the message it detected on (``common.language.message``)."""
    weights = model().weights
    return any(f in weights for f in features(message) if not f.startswith("shape:"))


def detect_intent(message: str | Message) -> tuple[str, float, dict[str, Any]]:
    """(intent, calibrated confidence, extractedInfo) for one message: the classifier and the
    entity rules read one annotation of it (the companies it names are scanned once)."""
    annotated = annotate(message)
    intent, confidence = model().predict(annotated)
    return intent, confidence, extract(intent, annotated)
