"""Importing records into a table: JSON Lines or CSV, upserted by ``id``.

Each row is validated with the table's model; a row that fails is reported with its line number
and reason, and the valid rows still load. Rows are written in batches; a row whose indexed
content has not changed since it was stored is not embedded or written again, so importing the
same file twice writes nothing the second time. ``dry_run`` validates without writing.

CSV: a header row naming the fields; list fields (``topics``, ``focus_areas``) hold values
separated by ``;`` or ``|``; an empty cell is an absent value.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from common import retrieval
from common.embeddings import get_embedder
from common.firestore import get_db
from functions.search.tables import Table

BATCH = 100
MAX_ROWS = 200_000

Progress = Callable[[int, int], None]  # (rows done, rows in all)


@dataclass
class ImportReport:
    table: str
    rows: int = 0
    valid: int = 0
    written: int = 0
    unchanged: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rows": self.rows,
            "valid": self.valid,
            "written": self.written,
            "unchanged": self.unchanged,
            "rejected": [{"line": line, "reason": reason} for line, reason in self.rejected],
            "dryRun": self.dry_run,
        }


class ImportFileError(ValueError):
    """The file as a whole cannot be read (missing, unknown format, no header...)."""


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """``(line number, row)`` for each data row, or ``(line, reason)`` for one that does not
    parse."""
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv"):
        raise ImportFileError(f"{path}: use a .jsonl (JSON Lines) or .csv file.")
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise ImportFileError(f"{path}: {exc.strerror or exc}") from None
    with handle:
        if suffix == ".csv":
            yield from _csv_rows(handle, path)
            return
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                yield number, f"not valid JSON ({exc.msg} at column {exc.colno})"
                continue
            yield number, row if isinstance(row, dict) else "not a JSON object"


def _csv_rows(handle: Any, path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    reader = csv.DictReader(handle)
    if not reader.fieldnames:
        raise ImportFileError(f"{path}: the CSV file has no header row.")
    for row in reader:
        number = reader.line_num
        if None in row:
            yield number, "more cells than header columns"
            continue
        yield number, {k.strip(): _cell(v) for k, v in row.items() if k and _cell(v) is not None}


def _cell(value: str | None) -> Any:
    if value is None or not value.strip():
        return None
    return value.strip()


def validate(table: Table, row: dict[str, Any]) -> dict[str, Any] | str:
    """The row as stored (JSON types), or the reason it is refused."""
    for name in ("topics", "focus_areas"):
        if isinstance(row.get(name), str):  # CSV: "a; b" or "a|b"
            row = {
                **row,
                name: [p.strip() for p in row[name].replace("|", ";").split(";") if p.strip()],
            }
    try:
        record = table.model.model_validate(row)
    except ValidationError as exc:
        return "; ".join(_reason(error) for error in exc.errors(include_url=False)[:3])
    return record.model_dump(mode="json", exclude_none=True)


def _reason(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "row"
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown field"
    if error["type"] == "missing":
        return f"{where}: required"
    return f"{where}: {error['msg']}"


def import_records(
    table: Table, path: Path, *, dry_run: bool = False, progress: Progress | None = None
) -> ImportReport:
    rows = list(read_rows(path))
    if len(rows) > MAX_ROWS:
        raise ImportFileError(f"{path}: at most {MAX_ROWS} rows per file.")
    report = ImportReport(table.name, rows=len(rows), dry_run=dry_run)
    valid: dict[str, dict[str, Any]] = {}  # by id: a later row of the same id wins
    for number, row in rows:
        checked = validate(table, row) if isinstance(row, dict) else row
        if isinstance(checked, str):
            report.rejected.append((number, checked))
        else:
            valid[checked["id"]] = checked
    report.valid = len(valid)
    if dry_run or not valid:
        return report
    embedder = get_embedder()
    retrieval.claim_index(table.collection, embedder)
    records = list(valid.values())
    for start in range(0, len(records), BATCH):
        written = _write(table, records[start : start + BATCH], embedder)
        report.written += written
        report.unchanged += len(records[start : start + BATCH]) - written
        if progress is not None:
            progress(min(start + BATCH, len(records)), len(records))
    return report


def _write(table: Table, records: list[dict[str, Any]], embedder: Any) -> int:
    """Upsert one batch; returns how many documents were written."""
    db = get_db()
    collection = db.collection(table.collection)
    refs = [collection.document(record["id"]) for record in records]
    compared = ["content_hash", "embedding_model"]
    stored = {snap.id: snap for snap in db.get_all(refs, field_paths=compared)}
    changed = []
    for record in records:
        digest = retrieval.content_hash(record)
        old = stored.get(record["id"])
        if (
            old is not None
            and old.exists
            and old.get("content_hash") == digest
            and old.get("embedding_model") == embedder.model_id
        ):
            continue
        changed.append((record, digest))
    if not changed:
        return 0
    texts = [_embedded_text(table, record) for record, _ in changed]
    vectors = embedder.embed(texts, "document")
    batch = db.batch()
    for (record, digest), vector in zip(changed, vectors, strict=True):
        fields = retrieval.index_fields(
            table.title_of(record), table.text_of(record), vector, embedder
        )
        batch.set(collection.document(record["id"]), {**record, **fields, "content_hash": digest})
    batch.commit()
    return len(changed)


def _embedded_text(table: Table, record: dict[str, Any]) -> str:
    return f"{table.title_of(record)}\n{table.text_of(record)}"


def reindex(table: Table, progress: Progress | None = None) -> int:
    """Embed every record of the table again with the current embedder (after a model
    change); returns the count."""
    return retrieval.reindex(
        table.collection,
        lambda record: (table.title_of(record), table.text_of(record)),
        progress=progress,
    )
