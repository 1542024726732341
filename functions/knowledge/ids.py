"""A passage's document id: its document's id, ``--``, its place in it (000, 001...). Apart from
the importer, so that the search path reads it without importing the importer."""

from __future__ import annotations

from typing import Any

PASSAGE_SEPARATOR = "--"


def passage_id(doc_id: str, index: int) -> str:
    """The id of the document's passage at ``index``."""
    return f"{doc_id}{PASSAGE_SEPARATOR}{index:03d}"


def document_of(passage: str) -> str:
    """The id of the document a passage (by ``passage_id``) belongs to."""
    return passage.rsplit(PASSAGE_SEPARATOR, 1)[0]


def passage_text(record: dict[str, Any]) -> str:
    """A stored passage as it is embedded and judged: its document's title, its section, its
    text."""
    return f"{record['title']} — {record.get('section') or record['title']}\n{record['passage']}"
