"""A small multinomial logistic-regression text classifier in pure Python.

Features: lower-cased word unigrams and bigrams, 5-letter stems of longer words, cue words of
each intent (a small lexicon), and the message's shape (a capitalised two-word name, a question
mark, its length), binary and L2-normalised per message. Trained by seeded SGD with L2
regularisation, so training is deterministic; the feature set, epochs and regularisation were
chosen by 5-fold cross-validation on the training split alone (0.926), never on the holdout.
Each example's loss is weighted by the inverse of its intent's share of the training set, so
adding examples of one intent (such as the strategy and persuasion questions labelled
GENERAL_CHAT, decision record 0028) teaches words, not a bias towards that intent (5-fold
cross-validation 0.921 with them). Probabilities are calibrated with a temperature fitted on
cross-validated predictions of the training set. The trained model is a JSON file
(``data/intents/model.json``), loaded on first use, never at import.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from common.language.message import Message, annotate
from common.offline import intents

TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_CUES = {
    name: re.compile(pattern)
    for name, pattern in {
        "content": r"\b(write|draft|compose|create|caption|tweet|post|thread|press release|"
        r"newsletter|op-ed|blog|flyer|script|slogan|copy|headline|petition text|"
        r"talking points|hashtags?|email to supporters|letter)\b",
        "track": r"\b(alerts?|notify|notification|updates?|monitor|track|tracking|keep (me )?"
        r"(posted|updated|tabs)|watch|follow|digest|subscribe|subscription|weekly|daily|"
        r"every (day|week|morning)|as soon as|ping me|let me know (when|if))\b",
        "legal": r"\b(legal|legally|illegal|laws?|lawful|allowed|permit|permission|sued?|"
        r"lawsuit|liab(le|ility)|defamation|trespass|arrest(ed)?|police|rights|court|"
        r"attorney|lawyer|ag-gag|foia|can (we|i))\b",
        "person": r"\b(who is|profile|background|biography|bio|career|voting record|votes?|"
        r"statements?|senator|rep\.|representative|minister|mp|ceo|cfo|founder|director|"
        r"commissioner|mayor|governor|spokesperson|official|chair(man|woman)?)\b",
        "company": r"\b(company|companies|corporation|corp|inc|ltd|llc|brand|suppliers?|"
        r"supply chain|sourcing|practices|polic(y|ies)|pledge|commitment|compliance|audit|"
        r"investigate|dig into|look into|research|report on|foods|farms|poultry|dairy|group)\b",
        "chat": r"\b(hi|hello|hey|thanks|thank you|what is|what are|why|how does|explain|"
        r"who are you|can you|are you)\b",
    }.items()
}


def features(text: str | Message) -> dict[str, float]:
    """The message's features, computed once per message (``common.language.message``): the
    intent's detection and ``engine.reads`` share them."""
    return annotate(text).read(_features)


def _features(message: Message) -> dict[str, float]:
    text, lowered = message.text, message.lowered
    named = _names_a_company(message)
    tokens = TOKEN.findall(lowered)
    grams = set(tokens) | {f"{a} {b}" for a, b in pairwise(tokens)}
    grams |= {"stem:" + token[:5] for token in tokens if len(token) > 5}
    grams |= {"cue:" + name for name, cue in _CUES.items() if cue.search(lowered)}
    if named:
        grams.add("entity:company")
        if len(tokens) <= 4:  # the message is little more than the name ("Tyson?")
            grams.add("entity:company_alone")
    if re.search(r"\b[A-Z][a-z]+ [A-Z][a-z]+", text):
        grams.add("shape:name")
    if text.strip().endswith("?"):
        grams.add("shape:question")
    grams.add(f"shape:length{min(len(tokens) // 5, 6)}")
    weight = 1.0 / math.sqrt(len(grams))
    return dict.fromkeys(grams, weight)


def _names_a_company(message: Message) -> bool:
    """Whether the message surely names a company (``common.offline.companies``: one the
    gazetteer knows, or a name ending in a company word): the model learns what that means
    from the training set's names and applies it to any other company ("Review Kroger's
    ...", where no word says "company")."""
    from common.offline.companies import sure_company

    return sure_company(message) is not None


@dataclass
class Model:
    labels: list[str]
    weights: dict[str, list[float]]  # feature -> one weight per label
    bias: list[float]
    temperature: float = 1.0
    # The model on the message's sentence embedding (``Meaning``), mixed in with ``mix``.
    meaning: Meaning | None = None
    trained_on: str = ""  # common.offline.train.fingerprint() of what built it

    def scores(self, text: str | Message) -> list[float]:
        scores = list(self.bias)
        for feature, value in features(text).items():
            row = self.weights.get(feature)
            if row is not None:
                for i, weight in enumerate(row):
                    scores[i] += weight * value
        return scores

    def word_probabilities(self, text: str | Message) -> list[float]:
        """The word model's probabilities, per label."""
        return softmax(self.scores(text), self.temperature)

    def needs_meaning(self, words: list[float]) -> bool:
        """Whether the embedding model is asked: the word model is below ``words_sure``."""
        return self.meaning is not None and max(words) < self.meaning.words_sure

    def probabilities(self, text: str | Message) -> dict[str, float]:
        message = annotate(text)
        words = self.word_probabilities(message)
        if self.meaning is not None and self.needs_meaning(words):
            words = self.meaning.mixed(words, message)
        return dict(zip(self.labels, words, strict=True))

    def predict(self, text: str | Message) -> tuple[str, float]:
        probabilities = self.probabilities(text)
        label = max(probabilities, key=probabilities.__getitem__)
        return label, probabilities[label]

    def to_json(self) -> str:
        rounded = {f: [round(w, 5) for w in row] for f, row in sorted(self.weights.items())}
        document: dict[str, object] = {
            "labels": self.labels,
            "bias": [round(b, 5) for b in self.bias],
            "temperature": round(self.temperature, 4),
            "weights": rounded,
        }
        if self.meaning is not None:
            document["meaning"] = self.meaning.as_dict()
        if self.trained_on:
            document["trainedOn"] = self.trained_on
        return json.dumps(document, separators=(",", ":"))

    @classmethod
    def load(cls, path: Path) -> Model:
        """The model file, validated by ``intents.ModelFile`` (ContentError names the field)."""
        data = intents.read_model(path)
        found = data.meaning
        meaning = None
        if found is not None:
            meaning = Meaning(found.weights, found.bias, found.mix, found.scale, found.words_sure)
        return cls(
            list(data.labels), data.weights, data.bias, data.temperature, meaning, data.trainedOn
        )


@dataclass
class Meaning:
    """A logistic regression on the message's sentence embedding (the offline MiniLM, 384
    dimensions, ``common.language.minilm``): it reads what a message asks for in words the
    word model has not seen (issue 29). Its log-probabilities are mixed with the word model's,
    ``mix`` on this side (chosen by cross-validation on the training split). A message the
    word model is at least ``words_sure`` sure of is not embedded: the embedding is most of a
    detection's time, and there the word model is as right as the mix (decision 0054)."""

    weights: list[list[float]]  # dimension -> one weight per label
    bias: list[float]
    mix: float
    scale: float = 4.0  # the unit vector scaled, so that the weights need not be large
    words_sure: float = 1.0  # the word model's probability from which it answers alone

    def mixed(self, words: list[float], text: str | Message) -> list[float]:
        vector = annotate(text).embedding
        scores = list(self.bias)
        for value, row in zip(vector, self.weights, strict=True):
            for k, weight in enumerate(row):
                scores[k] += weight * value * self.scale
        meaning = softmax(scores)
        logs = [
            (1 - self.mix) * math.log(max(w, 1e-12)) + self.mix * math.log(max(m, 1e-12))
            for w, m in zip(words, meaning, strict=True)
        ]
        return softmax(logs)

    def as_dict(self) -> dict[str, object]:
        return {
            "weights": [[round(w, 5) for w in row] for row in self.weights],
            "bias": [round(b, 5) for b in self.bias],
            "mix": self.mix,
            "scale": self.scale,
            "words_sure": self.words_sure,
        }


def train_meaning(
    vectors: Sequence[Sequence[float]],
    labels_of: Sequence[int],
    labels: int,
    *,
    mix: float,
    scale: float = 4.0,
    l2: float = 1e-3,
    steps: int = 400,
    rate: float = 2.0,
    words_sure: float = 1.0,
) -> Meaning:
    """Full-batch gradient descent with NumPy, each example weighted by the inverse of its
    intent's share (as the word model is): deterministic for the same vectors."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float64) * scale
    y = np.asarray(labels_of)
    n, d = x.shape
    balance = (n / (labels * np.bincount(y, minlength=labels)))[y]
    target = np.eye(labels)[y]
    weights, bias = np.zeros((d, labels)), np.zeros(labels)
    for _ in range(steps):
        scores = x @ weights + bias
        scores -= scores.max(axis=1, keepdims=True)
        probabilities = np.exp(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        gradient = (probabilities - target) * balance[:, None] / n
        weights -= rate * (x.T @ gradient + l2 * weights)
        bias -= rate * gradient.sum(axis=0)
    return Meaning(weights.tolist(), bias.tolist(), mix, scale, words_sure)


def softmax(scores: Sequence[float], temperature: float = 1.0) -> list[float]:
    top = max(scores)
    exps = [math.exp((s - top) / temperature) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def train(
    examples: Sequence[tuple[str, str]],
    *,
    epochs: int = 20,
    rate: float = 0.5,
    l2: float = 1e-2,
    seed: int = 7,
) -> Model:
    labels = sorted({label for _, label in examples})
    index = {label: i for i, label in enumerate(labels)}
    counts = Counter(label for _, label in examples)
    share = {label: len(examples) / (len(labels) * counts[label]) for label in labels}
    data = [(features(text), index[label], share[label]) for text, label in examples]
    weights: dict[str, list[float]] = {}
    bias = [0.0] * len(labels)
    order = list(range(len(data)))
    rng = random.Random(seed)  # noqa: S311 - reproducible shuffling, not security
    for epoch in range(epochs):
        rng.shuffle(order)
        step = rate / (1 + epoch * 0.1)
        for i in order:
            x, y, balance = data[i]
            scores = list(bias)
            for feature, value in x.items():
                row = weights.get(feature)
                if row is not None:
                    for k, weight in enumerate(row):
                        scores[k] += weight * value
            probabilities = softmax(scores)
            for k in range(len(labels)):
                gradient = balance * (probabilities[k] - (1.0 if k == y else 0.0))
                bias[k] -= step * gradient
                for feature, value in x.items():
                    row = weights.setdefault(feature, [0.0] * len(labels))
                    row[k] -= step * (gradient * value + l2 * row[k])
    return Model(labels, weights, bias)


def fit_temperature(model_factory, examples: Sequence[tuple[str, str]], folds: int = 5) -> float:
    """The temperature that minimises the log loss of cross-validated predictions."""
    held_out: list[tuple[list[float], int, list[str]]] = []
    for fold in range(folds):
        train_part = [e for i, e in enumerate(examples) if i % folds != fold]
        test_part = [e for i, e in enumerate(examples) if i % folds == fold]
        model = model_factory(train_part)
        held_out += [
            (model.scores(text), model.labels.index(label), model.labels)
            for text, label in test_part
            if label in model.labels
        ]

    def log_loss(t: float) -> float:
        return -sum(math.log(max(softmax(s, t)[y], 1e-12)) for s, y, _ in held_out)

    candidates = [round(0.05 * k, 2) for k in range(1, 81)]  # 0.05 .. 4.0
    return min(candidates, key=log_loss)


def read_jsonl(path: Path) -> list[tuple[str, str]]:
    """(text, intent) of a labelled set, each row validated (``intents.Example``: an intent
    the service knows; ContentError names file:line)."""
    return [(row.text, row.intent) for row in intents.examples(path)]


def accuracy(model: Model, examples: Iterable[tuple[str, str]]) -> float:
    examples = list(examples)
    return sum(model.predict(text)[0] == label for text, label in examples) / len(examples)
