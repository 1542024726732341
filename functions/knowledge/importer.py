"""The knowledge corpus: documents read from Markdown, text or JSON Lines, cut into passages
along headings and paragraphs, embedded and stored (``knowledge_passages``).

A Markdown or text file may start with a front-matter block::

    ---
    id: laying-hen-welfare
    title: Laying hens: cage systems and welfare
    url: https://eur-lex.europa.eu/eli/dir/1999/74/oj
    tags: welfare-science, cage-free
    ---

(without one, the id is the file name, the title the first heading). A JSON Lines file holds one
``{id, title, url, text, tags}`` document per line. A passage is one or more whole paragraphs of
one section, about ``TARGET_CHARS`` long (a paragraph longer than ``MAX_CHARS`` is cut at
sentence ends); its ``section`` is the path of headings above it. A "Sources" or "References"
section is kept as the document's citations, not as passages: its ``- label: URL`` lines are
stored with every passage (``sources``), so each fact quoted is cited to its own source. A
document may say which of them holds each sentence with Markdown footnotes: a marker after the
sentence's stop ("... cannot turn around.[^dir]") and the source as the footnote's definition
in that section ("[^dir]: label: URL"); its passages are stored without the markers, with each
marked sentence's sources (``provenance``, decision 0089).
Importing a document again replaces all its passages (a passage whose text is unchanged is not
embedded again).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from common.adapters.firestore import KNOWLEDGE, get_db, where_eq
from common.language.citations import MARKER, Source, keyed, listed, marked, unmarked
from common.language.sentences import split
from common.search import postings, retrieval
from common.search.embeddings import get_embedder
from functions.knowledge.ids import passage_id, passage_text
from functions.knowledge.models import KnowledgeDocument

TARGET_CHARS = 700
MAX_CHARS = 1200
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_CITATIONS = re.compile(r"^(sources?|references?|further reading)$", re.IGNORECASE)
SUFFIXES = (".md", ".markdown", ".txt", ".jsonl")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Chunk:
    section: str
    text: str
    # each of its sentences its document marks with footnotes, and the URLs of their sources
    given: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass
class KnowledgeReport:
    documents: int = 0
    passages: int = 0
    embedded: int = 0
    removed: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (where, reason)

    def as_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "passages": self.passages,
            "embedded": self.embedded,
            "removed": self.removed,
            "rejected": [{"where": w, "reason": r} for w, r in self.rejected],
        }


# --- reading -----------------------------------------------------------------------------------


def read_documents(paths: list[Path]) -> Iterator[tuple[str, KnowledgeDocument | str]]:
    """``(where, document)`` for each document found under ``paths`` (files or directories),
    or ``(where, reason)`` for one that cannot be used."""
    for path in paths:
        files = (
            sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES)
            if path.is_dir()
            else [path]
        )
        for file in files:
            if file.name.lower() == "readme.md":
                continue
            if file.suffix.lower() not in SUFFIXES:
                yield str(file), "use .md, .txt or .jsonl files"
                continue
            try:
                text = file.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                yield str(file), f"cannot be read ({type(exc).__name__})"
                continue
            if file.suffix.lower() == ".jsonl":
                yield from _jsonl(file, text)
            else:
                yield str(file), _markdown(file, text)


def _jsonl(file: Path, text: str) -> Iterator[tuple[str, KnowledgeDocument | str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield where, f"not valid JSON ({exc.msg})"
            continue
        yield where, _document(data)


def _markdown(file: Path, text: str) -> KnowledgeDocument | str:
    meta: dict[str, Any] = {}
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        try:
            end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
        except StopIteration:
            return "the front matter has no closing ---"
        for line in lines[1:end]:
            key, sep, value = line.partition(":")
            if not sep or not key.strip():
                return f"front matter line not 'key: value': {line[:60]!r}"
            meta[key.strip().lower()] = value.strip()
        lines = lines[end + 1 :]
    body = "\n".join(lines).strip()
    if "title" not in meta:
        heading = next((m.group(2) for line in lines if (m := _HEADING.match(line))), None)
        meta["title"] = heading or file.stem.replace("-", " ").replace("_", " ")
    meta.setdefault("id", re.sub(r"[^a-z0-9-]+", "-", file.stem.lower()).strip("-"))
    tags = meta.get("tags", "")
    meta["tags"] = (
        [t.strip() for t in tags.split(",") if t.strip()] if isinstance(tags, str) else tags
    )
    return _document({**meta, "text": body})


def _document(data: Any) -> KnowledgeDocument | str:
    if not isinstance(data, dict):
        return "not a JSON object"
    try:
        document = KnowledgeDocument.model_validate(data)
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'document'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:3]
        )
    return _unnamed(document) or document


def _unnamed(document: KnowledgeDocument) -> str | None:
    """What is wrong with a document's footnotes (decision 0089): a marker whose key its Sources
    section does not define would cite its sentence to no source, silently."""
    defined = keyed(_source_lines(document))
    if not defined:
        return None  # no footnotes: its markers, if any, are text
    missing = sorted({key for key in MARKER.findall(document.text) if key not in defined})
    if not missing:
        return None
    named = ", ".join(f"[^{key}]" for key in missing[:5])
    return f"footnote markers with no '[^key]: label: URL' line under Sources: {named}"


# --- chunking ----------------------------------------------------------------------------------


def chunks(document: KnowledgeDocument) -> list[Chunk]:
    """The document's passages, in order (see the module's doc), without footnote markers: a
    sentence a marker follows ("... cannot turn around.[^dir]") is given the source of the
    "Sources" section's "[^dir]: label: URL" (decision 0089)."""
    urls = {key: source.url for key, source in keyed(_source_lines(document)).items()}
    given: dict[str, tuple[str, ...]] = {}
    found: list[Chunk] = []
    headings: list[tuple[int, str]] = []
    paragraphs: list[str] = []

    def flush() -> None:
        if paragraphs and not (headings and _CITATIONS.match(headings[-1][1])):
            section = " > ".join(title for _, title in headings) or document.title
            for text in _group(paragraphs):
                said = (s for line in text.split("\n") for s in split(line))
                own = tuple((s, given[s]) for s in dict.fromkeys(said) if s in given)
                found.append(Chunk(section, text, own))
        paragraphs.clear()

    current: list[str] = []
    for line in [*document.text.splitlines(), ""]:
        heading = _HEADING.match(line)
        if heading or not line.strip():
            if current:
                text, marks = unmarked(" ".join(part.strip() for part in current))
                paragraphs.append(text)
                for sentence, keys in marked(split(text), text, marks).items():
                    given[sentence] = tuple(urls[key] for key in keys if key in urls)
                current = []
            if heading:
                flush()
                level = len(heading.group(1))
                headings = [(lvl, title) for lvl, title in headings if lvl < level]
                headings.append((level, heading.group(2).strip()))
            continue
        current.append(line)
    flush()
    return found


def footnoted(document: KnowledgeDocument) -> bool:
    """Whether the document lists its sources as footnotes ("[^key]: label: URL"), saying by
    their markers which sentences each holds: an unmarked sentence of it is then one no source
    of its list holds (decision 0089), even when no sentence is marked (a guide of advice)."""
    return bool(keyed(_source_lines(document)))


def sources(document: KnowledgeDocument) -> list[Source]:
    """The sources the document lists in its "Sources" section (``- label: URL`` lines, or
    footnotes' ``[^key]: label: URL``), each stored with every passage so a fact can be cited
    to its own (decision 0042)."""
    return listed(_source_lines(document))


def _source_lines(document: KnowledgeDocument) -> list[str]:
    lines: list[str] = []
    inside = False
    for line in document.text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            inside = _CITATIONS.match(heading.group(2).strip()) is not None
        elif inside:
            lines.append(line)
    return lines


def _group(paragraphs: list[str]) -> list[str]:
    """Whole paragraphs gathered up to about TARGET_CHARS; a long one cut at sentence ends."""
    pieces: list[str] = []
    for paragraph in paragraphs:
        pieces += _split(paragraph) if len(paragraph) > MAX_CHARS else [paragraph]
    grouped: list[str] = []
    for piece in pieces:
        if grouped and len(grouped[-1]) + 1 + len(piece) <= TARGET_CHARS:
            grouped[-1] = f"{grouped[-1]}\n{piece}"
        else:
            grouped.append(piece)
    return grouped


def _split(paragraph: str) -> list[str]:
    parts: list[str] = []
    for sentence in _SENTENCE_END.split(paragraph):
        if parts and len(parts[-1]) + 1 + len(sentence) <= TARGET_CHARS:
            parts[-1] = f"{parts[-1]} {sentence}"
        else:
            parts += [sentence[i : i + MAX_CHARS] for i in range(0, len(sentence), MAX_CHARS)]
    return parts


# --- storing -----------------------------------------------------------------------------------


def import_knowledge(
    paths: list[Path], *, dry_run: bool = False, progress: Progress | None = None
) -> KnowledgeReport:
    report = KnowledgeReport()
    documents: dict[str, KnowledgeDocument] = {}
    for where, found in read_documents(paths):
        if isinstance(found, str):
            report.rejected.append((where, found))
        else:
            documents[found.id] = found
    report.documents = len(documents)
    if dry_run or not documents:
        report.passages = sum(len(chunks(d)) for d in documents.values())
        return report
    embedder = get_embedder()
    retrieval.claim_index(KNOWLEDGE, embedder)
    for number, document in enumerate(documents.values(), start=1):
        passages, embedded, removed = _store(document, embedder)
        report.passages += passages
        report.embedded += embedded
        report.removed += removed
        if progress is not None:
            progress(number, len(documents))
    return report


def _store(document: KnowledgeDocument, embedder: Any) -> tuple[int, int, int]:
    """Write the document's passages, replacing those it had; (passages, embedded, removed)."""
    db = get_db()
    collection = db.collection(KNOWLEDGE)
    parts = chunks(document)
    listed_sources = [{"title": s.title, "url": s.url} for s in sources(document)]
    # a document with footnotes says which source holds each sentence (decision 0089); one
    # without them stores nothing more, so its passages are not embedded again
    marks = footnoted(document)
    ids = [passage_id(document.id, index) for index in range(len(parts))]
    records = [
        {
            "doc_id": document.id,
            "title": document.title,
            "url": document.url,
            "section": part.section,
            "passage": part.text,
            "tags": document.tags,
            "sources": listed_sources,
            "chunk": index,
            **(
                {
                    "footnoted": True,
                    "provenance": [{"sentence": t, "urls": list(u)} for t, u in part.given],
                }
                if marks
                else {}
            ),
        }
        for index, part in enumerate(parts)
    ]
    compared = retrieval.compared_fields()
    stored = {
        snap.id: snap.to_dict() or {}
        for snap in db.get_all([collection.document(i) for i in ids], field_paths=compared)
    }
    changed = []
    for key, record in zip(ids, records, strict=True):
        digest = retrieval.content_hash(record)
        if not retrieval.fresh(stored.get(key) or {}, digest, embedder):
            changed.append((key, record, digest))
    texts = [_embedded(r) for _, r, _ in changed]
    vectors = embedder.embed(texts, "document") if changed else []
    judged = retrieval.judge_vectors(texts, vectors, embedder)
    indexed = [postings.Indexed.of(*_title_and_text(r), digest) for _, r, digest in changed]
    # Passages the new version no longer has (it got shorter).
    existing = collection.where(filter=where_eq("doc_id", document.id)).select(compared).stream()
    kept = set(ids)
    gone = [doc for doc in existing if doc.id not in kept]
    stale = [doc.reference for doc in gone]
    postings.apply(  # the postings first (functions.search.importer says why)
        KNOWLEDGE,
        [
            *(
                postings.Change(pid, postings.Indexed.stored(stored.get(pid) or {}), entry)
                for (pid, _, _), entry in zip(changed, indexed, strict=True)
            ),
            *(
                postings.Change(d.id, postings.Indexed.stored(d.to_dict() or {}), None)
                for d in gone
            ),
        ],
    )
    for start in range(0, len(changed), 200):
        batch = db.batch()
        for (key, record, digest), vector, entry, judge in zip(
            changed[start : start + 200],
            vectors[start : start + 200],
            indexed[start : start + 200],
            judged[start : start + 200],
            strict=True,
        ):
            fields = retrieval.index_fields(vector, embedder, entry, judge)
            batch.set(collection.document(key), {**record, **fields, "content_hash": digest})
        batch.commit()
    for start in range(0, len(stale), 400):
        batch = db.batch()
        for ref in stale[start : start + 400]:
            batch.delete(ref)
        batch.commit()
    return len(parts), len(changed), len(stale)


def _title_and_text(record: dict[str, Any]) -> tuple[str, str]:
    return f"{record['title']} — {record['section']}", record["passage"]


def _embedded(record: dict[str, Any]) -> str:
    return passage_text(record)


def reindex(progress: Progress | None = None, embed: bool = True) -> int:
    return retrieval.reindex(KNOWLEDGE, _title_and_text, progress=progress, embed=embed)


def stale_terms() -> tuple[int, list[str]]:
    return retrieval.stale_terms(KNOWLEDGE, _title_and_text)
