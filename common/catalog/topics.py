"""The topic catalog (``data/topics.toml``): the topics a subscription or a research request may
name, with what people see (name, description), the terms that mark a news item as being about
a topic, the words that point at it in a chat message, and its feeds.

One file, so a topic is added or changed in one place, by someone who need not read Python
(decision 0019). It is read and checked on first use, never at import, and kept for the life of
the process (``common.datafiles``, decision 0020).

``FEED_CATALOG_PATH``, when set, names a JSON file ``{"topics": {"<id>": {"feeds": [url, ...]}}}``
whose feeds replace the catalog's (a topic it leaves out has none): `make run` and the tests
point the feeds at local fixture servers that way (``devtools.feedserver.write_catalog``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from common import container
from common.config import get_settings
from common.datafiles import Content, ContentError, Line, LowerLine, load

ROOT = Path(__file__).resolve().parents[2]

TopicId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=100)]


def _distinct(values: tuple[str, ...]) -> tuple[str, ...]:
    if len(set(values)) != len(values):
        raise ValueError("lists the same entry twice")
    return values


FeedUrl = Annotated[str, StringConstraints(pattern=r"^https?://[^\s/]+/\S*$")]
PublicFeedUrl = Annotated[str, StringConstraints(pattern=r"^https://[^\s/]+/\S*$")]


class Topic(Content):
    """One ``[topic.<id>]`` table; data/topics.toml's header says what each field is for."""

    name: Line = Field(max_length=60)
    description: Line = Field(max_length=200)
    terms: Annotated[
        tuple[LowerLine, ...], Field(min_length=4, max_length=10), AfterValidator(_distinct)
    ]
    mentions: Annotated[tuple[LowerLine, ...], Field(min_length=1), AfterValidator(_distinct)]
    unless: Annotated[tuple[LowerLine, ...], AfterValidator(_distinct)] = ()
    feeds: Annotated[
        tuple[PublicFeedUrl, ...], Field(min_length=1, max_length=3), AfterValidator(_distinct)
    ]


class Catalog(Content):
    """data/topics.toml: ``[topic.<id>]`` tables, in the order the API lists them."""

    topic: dict[TopicId, Topic] = Field(min_length=1)


class _Feeds(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    feeds: tuple[FeedUrl, ...]


class FeedCatalog(BaseModel):
    """A FEED_CATALOG_PATH file: the feeds of each topic, replacing the catalog's."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    topics: dict[TopicId, _Feeds]


@cache
def catalog() -> dict[str, Topic]:
    """Topic id -> topic, in catalog order."""
    return load("topics.toml", Catalog).topic


def ids() -> tuple[str, ...]:
    return tuple(catalog())


def is_topic(value: str) -> bool:
    return value in catalog()


def name_of(topic_id: str) -> str:
    """The topic's name; an id that is not (or no longer) in the catalog stands for itself."""
    topic = catalog().get(topic_id)
    return topic.name if topic is not None else topic_id


def feeds() -> dict[str, tuple[str, ...]]:
    """Topic id -> the feeds to read for it: the catalog's, or FEED_CATALOG_PATH's."""
    configured = get_settings().feed_catalog_path
    if not configured:
        return _catalog_feeds()
    path = Path(configured)
    return _feed_catalogs.get()(str(path if path.is_absolute() else ROOT / path))


@cache
def _catalog_feeds() -> dict[str, tuple[str, ...]]:
    return {topic_id: topic.feeds for topic_id, topic in catalog().items()}


def _feed_catalog(path: str) -> dict[str, tuple[str, ...]]:
    try:
        document = FeedCatalog.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:  # unreadable, not JSON, or not a feed catalog
        detail = exc.strerror if isinstance(exc, OSError) else _problem(exc)
        raise ContentError(f"FEED_CATALOG_PATH {path}: {detail}") from None
    unknown = sorted(set(document.topics) - set(catalog()))
    if unknown:
        raise ContentError(f"FEED_CATALOG_PATH {path}: topics not in the catalog: {unknown}")
    return {topic_id: entry.feeds for topic_id, entry in document.topics.items()}


def _problem(exc: ValueError) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
            for error in exc.errors()
        )
    return f"is not valid JSON: {exc}"


# The feed catalogs loaded so far, by path; ``container.reset(FEED_CATALOGS)`` forgets them (tests
# that rewrite a FEED_CATALOG_PATH file in place).
FEED_CATALOGS = "catalog.feed_catalogs"
_feed_catalogs: container.Entry[Callable[[str], dict[str, tuple[str, ...]]]] = container.register(
    FEED_CATALOGS, lambda: cache(_feed_catalog)
)
