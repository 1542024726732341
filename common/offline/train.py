"""Train the offline intent model: ``python -m common.offline.train``.

Reads data/intents/train.jsonl (never the holdout), fits the temperature on cross-validated
predictions, writes data/intents/model.json and prints the holdout accuracy. Deterministic:
the same data gives the same file (a test checks the committed model is up to date).
"""

from __future__ import annotations

import sys
from pathlib import Path

from common.offline.classifier import accuracy, fit_temperature, read_jsonl, train

DATA = Path(__file__).resolve().parents[2] / "data" / "intents"


def build(data: Path = DATA):
    examples = read_jsonl(data / "train.jsonl")
    model = train(examples)
    model.temperature = fit_temperature(train, examples)
    return model


def main() -> int:
    model = build()
    (DATA / "model.json").write_text(model.to_json() + "\n")
    holdout = read_jsonl(DATA / "holdout.jsonl")
    print(f"temperature={model.temperature} holdout_accuracy={accuracy(model, holdout):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
