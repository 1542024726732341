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

from common.adapters.firestore import get_db, retried, write_batched
from common.errors import ImportFileError
from common.search import postings, retrieval
from common.search.embeddings import get_embedder
from functions.search.tables import Table

BATCH = 500  # records a batch reads, embeds, indexes and writes (one pass over the index)
MAX_ROWS = 200_000

Progress = Callable[[int, int], None]  # (rows done, rows in all)


@dataclass
class ImportReport:
    table: str
    rows: int = 0
    valid: int = 0
    written: int = 0
    unchanged: int = 0
    index_writes: int = 0  # documents of the text index written (decision 0048)
    rejected: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rows": self.rows,
            "valid": self.valid,
            "written": self.written,
            "unchanged": self.unchanged,
            "indexWrites": self.index_writes,
            "rejected": [{"line": line, "reason": reason} for line, reason in self.rejected],
            "dryRun": self.dry_run,
        }


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


def count_rows(path: Path) -> int:
    """The file's data rows, counted without parsing (non-empty lines; a CSV's header and the
    line breaks inside its quoted cells make this an upper bound): for progress and the
    ``MAX_ROWS`` check."""
    try:
        with path.open("rb") as handle:
            lines = sum(1 for line in handle if line.strip())
    except OSError as exc:
        raise ImportFileError(f"{path}: {exc.strerror or exc}") from None
    return max(0, lines - 1) if path.suffix.lower() == ".csv" else lines


def import_records(
    table: Table, path: Path, *, dry_run: bool = False, progress: Progress | None = None
) -> ImportReport:
    """Upsert the file's valid rows, streamed: rows are read, validated and written a batch
    (``BATCH``) at a time, so memory holds one batch and the ids seen. A later row of the same
    id wins. An import that stops (an interrupt, a failure) can be run again: what it wrote is
    unchanged and is skipped without embedding, the rest is written; nothing is written
    twice and nothing lost."""
    total = count_rows(path)
    if total > MAX_ROWS:
        raise ImportFileError(f"{path}: at most {MAX_ROWS} rows per file.")
    report = ImportReport(table.name, dry_run=dry_run)
    seen: set[str] = set()
    embedder = None
    pending: dict[str, dict[str, Any]] = {}  # the batch, by id: a later row of the same id wins

    def flush() -> None:
        nonlocal embedder
        if not pending:
            return
        if embedder is None:
            embedder = get_embedder()
            retrieval.claim_index(table.collection, embedder)
        records = list(pending.values())
        written, index_writes = _write(table, records, embedder)
        report.written += written
        report.index_writes += index_writes
        report.unchanged += len(records) - written
        pending.clear()

    for number, row in read_rows(path):
        report.rows += 1
        checked = validate(table, row) if isinstance(row, dict) else row
        if isinstance(checked, str):
            report.rejected.append((number, checked))
        else:
            seen.add(checked["id"])
            if not dry_run:
                pending[checked["id"]] = checked
        if len(pending) >= BATCH:
            flush()
        if progress is not None and report.rows % BATCH == 0:
            progress(report.rows, max(total, report.rows))
    flush()
    report.valid = len(seen)
    if progress is not None:
        progress(report.rows, report.rows)
    return report


def _write(table: Table, records: list[dict[str, Any]], embedder: Any) -> tuple[int, int]:
    """Upsert one batch; returns how many records were written, and index documents."""
    db = get_db()
    collection = db.collection(table.collection)
    refs = [collection.document(record["id"]) for record in records]
    compared = retrieval.compared_fields()
    read = retried(lambda: list(db.get_all(refs, field_paths=compared)))
    stored = {snap.id: snap.to_dict() or {} for snap in read}
    changed = []
    for record in records:
        digest = retrieval.content_hash(record)
        old = stored.get(record["id"]) or {}
        if retrieval.fresh(old, digest, embedder):
            continue
        changed.append((record, digest))
    if not changed:
        return 0, 0
    texts = [table.indexed_text(record) for record, _ in changed]
    vectors = embedder.embed(texts, "document")
    judged = retrieval.judge_vectors(texts, vectors, embedder)
    indexed = [
        postings.Indexed.of(table.title_of(record), table.text_of(record), digest)
        for record, digest in changed
    ]
    # the postings first: a record written without them could not be found by its words,
    # and an import that stops between the two writes it again (its postings_format is old)
    index_writes = postings.apply(
        table.collection,
        [
            postings.Change(
                record["id"], postings.Indexed.stored(stored.get(record["id"]) or {}), i
            )
            for (record, _), i in zip(changed, indexed, strict=True)
        ],
    )
    documents = []
    for (record, digest), vector, entry, judge in zip(
        changed, vectors, indexed, judged, strict=True
    ):
        fields = retrieval.index_fields(vector, embedder, entry, judge)
        document = {**record, **fields, "filter_keys": table.filter_keys(record)}
        documents.append(
            (collection.document(record["id"]), {**document, "content_hash": digest}, False)
        )
    write_batched(documents)
    return len(changed), index_writes


def stale_terms(table: Table) -> tuple[int, list[str]]:
    """Records whose stored search terms differ from those their text gives now."""
    return retrieval.stale_terms(
        table.collection, lambda record: (table.title_of(record), table.text_of(record))
    )


def reindex(table: Table, progress: Progress | None = None, embed: bool = True) -> int:
    """Embed every record of the table again with the current embedder (after a model
    change) and rebuild its text index (``embed`` False: the text index only); returns the
    count."""
    return retrieval.reindex(
        table.collection,
        lambda record: (table.title_of(record), table.text_of(record)),
        progress=progress,
        embed=embed,
        extra=lambda record: {"filter_keys": table.filter_keys(record)},
    )
