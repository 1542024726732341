"""Record a configured LLM provider's intent answers on the held-out sets (issue 29), for
``bench/intent.py --provider`` to replay through the loopback fake.

    LLM_BACKEND=openai LLM_BASE_URL=... LLM_MODEL=... LLM_API_KEY=... \\
        .venv/bin/python -m devtools.record_intents [--out PATH]

Each message of ``data/intents/holdout.jsonl`` and ``bench/data/intent_holdout_styles.jsonl``
is sent once, as the service sends it (``functions.chat.service.provider_intent``: the
``intent.v1`` prompt, the offline engine's output schema). Each line of the output:
``{"text", "model", "intent", "extractedInfo", "confidence"}``, or ``{"text", "model",
"error"}`` when the provider failed. Nothing here reads the answers back or tunes anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from common.adapters.llm import get_provider
from common.errors import ProviderError
from functions.chat.service import provider_intent

ROOT = Path(__file__).resolve().parent.parent
SETS = (
    ROOT / "data" / "intents" / "holdout.jsonl",
    ROOT / "bench" / "data" / "intent_holdout_styles.jsonl",
)
ANSWERS = ROOT / "bench" / "data" / "intent_provider_answers.jsonl"


def messages(paths: Iterable[Path] = SETS) -> list[str]:
    texts: list[str] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return list(dict.fromkeys(texts))


def record(texts: Iterable[str], out: Path) -> dict[str, int]:
    provider = get_provider()
    if provider is None:
        raise SystemExit("No provider is configured: set LLM_BACKEND=openai and its settings.")
    counts = {"answered": 0, "failed": 0}
    with out.open("w", encoding="utf-8") as handle:
        for text in texts:
            row: dict[str, Any] = {"text": text, "model": provider.name}
            try:
                intent, info, confidence = provider_intent(provider, text)
            except ProviderError as exc:
                row["error"] = str(exc)[:300]
                counts["failed"] += 1
            else:
                row |= {"intent": intent, "extractedInfo": info, "confidence": confidence}
                counts["answered"] += 1
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ANSWERS)
    args = parser.parse_args(argv)
    counts = record(messages(), args.out)
    print(json.dumps({**counts, "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
