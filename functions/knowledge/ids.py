"""A passage's document id: its document's id, ``--``, its place in it (000, 001...). Apart from
the importer, so that the search path reads it without importing the importer."""

from __future__ import annotations

PASSAGE_SEPARATOR = "--"


def passage_id(doc_id: str, index: int) -> str:
    """The id of the document's passage at ``index``."""
    return f"{doc_id}{PASSAGE_SEPARATOR}{index:03d}"


def document_of(passage: str) -> str:
    """The id of the document a passage (by ``passage_id``) belongs to."""
    return passage.rsplit(PASSAGE_SEPARATOR, 1)[0]
