"""Which legal-guidance requests are recognised (issue 44, decision 0068): the activity check
of ``functions.legal.recognition`` measured on real requests and on requests the service must
refuse, and the thresholds a tuning set would choose for it.

The whole corpus (``data/knowledge``) is loaded into a Firestore emulator of its own with the
offline embedder. For each request (its prompt and situation together) the bench records the
check's steps (search terms, the share of its words the encoder knows, the guide's
activities, the judge's best activity section and best legal passage) and the check's answer
with its time.

- **tuning**: the intent model's training questions labelled LEGAL_HELP (recognised) against
  the relevance judge's training requests (``data/relevance/train_pairs*.jsonl``) of the kinds
  off_corpus and nonsense (refused). The thresholds it chooses: the highest score of a
  refused request that reaches the step, rounded up to the next 0.05 (a margin over the
  highest one, not the midpoint to the nearest real request: nonsense accepted costs a
  caller $1.00).
- **holdout**, nothing tuned on it: the intent holdout sets' LEGAL_HELP questions and the
  legal requests of the quality sets (recognised); the relevance chat sets' off-topic
  messages (``relevance_holdout_chat`` and ``relevance_dev_chat``, written by helpers) and
  ``bench/data/legal_unrecognised_holdout.jsonl`` (keyboard mash, paths and code; everyday
  requests; legal questions about something other than advocacy; written before the rule
  was measured) (refused).
- **not_covered** (reported, not scored): the relevance chat sets' requests on subjects the
  corpus does not cover, many of them legal questions.

Prints JSON: the service's thresholds and the tuning set's choice; per set the requests
recognised; the real requests refused and the others recognised (their text); the check's
p50 and p99 in milliseconds.

Run: ``.venv/bin/python bench/legal.py`` (a few minutes, most of it embedding the corpus).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.emulated import environment  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

DATA = ROOT / "bench" / "data"
# the pairs written for training (the spent held-apart sets' pairs, train_pairs_spent.jsonl, are
# relevance sets, and their off-corpus requests include the relevance holdout chat set above)
TRAINING_PAIRS = [
    p
    for p in sorted((ROOT / "data" / "relevance").glob("train_pairs*.jsonl"))
    if "spent" not in p.name
]
MARGIN = 0.05


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _legal_help(path: Path) -> list[str]:
    from common.offline.intents import examples

    return [row.text for row in examples(path) if row.intent == "LEGAL_HELP"]


def _quality_requests() -> list[str]:
    found = []
    for name in ("quality_requests.jsonl", "quality_holdout.jsonl"):
        for row in _rows(DATA / name):
            if row.get("kind") == "legal" or row.get("path") == "/v1/legal/guidance":
                body = row["body"]
                found.append("\n".join(p for p in (body.get("prompt"), body.get("situation")) if p))
    return found


def sets() -> dict[str, dict[str, list[str]]]:
    """{set: {group: texts}}; a group's name says whether its requests are to be recognised."""
    from common.datafiles import read_jsonl
    from devtools.train_relevance import Pair

    pairs = [p for path in TRAINING_PAIRS for p in read_jsonl(path, Pair)]  # validated (0070)
    chat = _rows(DATA / "relevance_holdout_chat.jsonl") + _rows(DATA / "relevance_dev_chat.jsonl")
    refused = _rows(DATA / "legal_unrecognised_holdout.jsonl")
    from functions.legal import content

    return {
        "tuning": {
            "recognise:legal_help_train": _legal_help(ROOT / "data" / "intents" / "train.jsonl"),
            "refuse:off_corpus": sorted({p.request for p in pairs if p.kind == "off_corpus"}),
            "refuse:nonsense": sorted({p.request for p in pairs if p.kind == "nonsense"}),
        },
        "holdout": {
            "recognise:legal_help_holdout": _legal_help(ROOT / "data" / "intents" / "holdout.jsonl")
            + _legal_help(DATA / "intent_holdout_styles.jsonl"),
            "recognise:quality_legal_requests": _quality_requests(),
            "recognise:activity_examples": [
                e for activity in content.activities() for e in activity.examples
            ],
            "refuse:chat_off_topic": [r["message"] for r in chat if r["expect"] == "off_topic"],
            **{
                f"refuse:{kind}": [r["text"] for r in refused if r["kind"] == kind]
                for kind in dict.fromkeys(r["kind"] for r in refused)
            },
        },
        "reported": {
            "not_covered": [r["message"] for r in chat if r["expect"] == "not_covered"],
        },
    }


def steps(text: str) -> dict[str, Any]:
    """What each step of the check sees, and the check's answer and time."""
    from common.language.index import terms
    from functions.legal import content, recognition

    began = time.perf_counter()
    answer = recognition.recognised(text)
    elapsed = (time.perf_counter() - began) * 1000
    section, note = recognition.best_scores(text)
    return {
        "text": text,
        "terms": bool(terms(text)),
        "words_known": recognition.words_known(text),
        "activity": bool(content.detect(text)),
        "section": section,
        "note": note,
        "recognised": answer,
        "ms": elapsed,
    }


def _reaches(row: dict[str, Any], step: str) -> bool:
    from functions.legal import recognition

    passed = row["terms"] and row["words_known"] >= recognition.MIN_WORDS_KNOWN
    if step == "section":
        return passed and not row["activity"]
    return passed and not row["activity"] and row["section"] < recognition.SECTION_MIN


def chosen(rows: list[dict[str, Any]], step: str) -> float:
    """The highest score of a request to be refused that reaches ``step``, rounded up to the
    next MARGIN."""
    highest = max((r[step] for r in rows if _reaches(r, step)), default=0.0)
    return round(math.floor(highest / MARGIN + 1) * MARGIN, 2)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def main() -> None:
    from functions.knowledge.importer import import_knowledge
    from functions.legal import recognition

    began = time.perf_counter()
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-legal").start()
    environment(emulator, LLM_BACKEND="offline")
    results: dict[str, Any] = {
        "service": {
            "MIN_WORDS_KNOWN": recognition.MIN_WORDS_KNOWN,
            "SECTION_MIN": recognition.SECTION_MIN,
            "NOTE_MIN": recognition.NOTE_MIN,
            "PASSAGES": recognition.PASSAGES,
        }
    }
    try:
        with redirect_stdout(sys.stderr):
            documents = sorted(
                p for p in (ROOT / "data" / "knowledge").glob("*.md") if p.name != "README.md"
            )
            import_knowledge(documents)
            recognition.warm()
            measured = {
                name: {group: [steps(t) for t in texts] for group, texts in groups.items()}
                for name, groups in sets().items()
            }
        tuning = measured["tuning"].items()
        refused = [r for group, rows in tuning if group.startswith("refuse") for r in rows]
        results["tuning_choice"] = {
            "SECTION_MIN": chosen(refused, "section"),
            "NOTE_MIN": chosen(refused, "note"),
        }
        times: dict[str, list[float]] = {"recognised": [], "refused": []}
        for name, groups in measured.items():
            results[name] = {}
            for group, rows in groups.items():
                wanted = group.startswith("recognise")
                wrong = [r["text"][:120] for r in rows if r["recognised"] != wanted]
                results[name][group] = {
                    "requests": len(rows),
                    "recognised": sum(r["recognised"] for r in rows),
                    **({"wrong": wrong} if wrong and name != "reported" else {}),
                }
                for r in rows:
                    times["recognised" if r["recognised"] else "refused"].append(r["ms"])
        results["check_ms"] = {
            kind: {
                "p50": round(statistics.median(values), 1),
                "p99": _percentile(values, 0.99),
            }
            for kind, values in times.items()
            if values
        }
        results["seconds"] = round(time.perf_counter() - began, 1)
        print(json.dumps(results, indent=2))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
