"""`make run`'s demo search data: the fictional sample tables of data/sample/ and the knowledge
corpus of data/knowledge/, loaded into the local emulator in one process (the embedding model
loads once). Unchanged records are not embedded again, so later runs take a second."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
KNOWLEDGE = ROOT / "data" / "knowledge"


def main() -> int:
    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    started = time.monotonic()
    summary: dict[str, object] = {}
    for name, table in TABLES.items():
        report = import_records(table, SAMPLE / f"{name}.jsonl")
        if report.rejected:
            print(f"{name}: rejected rows {report.rejected}", file=sys.stderr)
            return 1
        summary[name] = {"records": report.valid, "written": report.written}
    report = import_knowledge([KNOWLEDGE])
    if report.rejected:
        print(f"knowledge: rejected {report.rejected}", file=sys.stderr)
        return 1
    summary["knowledge"] = {
        "documents": report.documents,
        "passages": report.passages,
        "embedded": report.embedded,
    }
    summary["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
