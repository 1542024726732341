"""What the bench scripts share: the service's environment on a Firestore emulator of their
own (with the local fixture feeds), and an API key allowed far more requests than a bench
makes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any


def environment(emulator: Any, **extra: str) -> None:
    """Point the service at ``emulator`` (offline engines, quiet logs), plus ``extra``."""
    os.environ.update(
        {
            "ENVIRONMENT": "test",
            "FIRESTORE_EMULATOR_HOST": emulator.address,
            "GOOGLE_CLOUD_PROJECT": emulator.project,
            "LOG_LEVEL": "WARNING",
            "EMBEDDINGS_BACKEND": "offline",
            **extra,
        }
    )


def with_fixture_feeds(emulator: Any, folder: Path, **extra: str) -> Any:
    """``environment`` with the research feeds and the news search on the local fixture feed
    server (``devtools.feedserver``), started here, its catalog written in ``folder``; the
    caller shuts the server down."""
    from devtools import feedserver

    feeds = feedserver.serve()
    catalog = feedserver.write_catalog(feeds.url, folder / "feeds.json")
    environment(
        emulator,
        FEED_CATALOG_PATH=str(catalog),
        NEWS_SEARCH_URL=feedserver.search_template(feeds.url),
        **extra,
    )
    return feeds


@contextmanager
def corpus_loaded(project: str, folder: Path) -> Iterator[None]:
    """The offline service on a Firestore emulator of its own (``with_fixture_feeds``, no LLM
    provider) with the whole knowledge corpus and the sample records loaded
    (``bench.quality.load_data``); inside, the service's JSON logs go to stderr, off the
    results."""
    from bench.quality import load_data
    from devtools.emulator import Emulator, free_port

    emulator = Emulator("127.0.0.1", free_port(), project).start()
    feeds = with_fixture_feeds(emulator, folder, LLM_BACKEND="offline")
    try:
        with redirect_stdout(sys.stderr):
            load_data()
            yield
    finally:
        feeds.shutdown()
        emulator.stop()


def api_key(email: str, requests_per_minute: int = 10_000_000) -> str:
    """A new key of the consumer with ``email``, whose rate limit the bench never reaches."""
    from common.accounts import keys
    from common.accounts.consumers import get_or_create_by_email
    from common.adapters.firestore import CONSUMERS, get_db

    consumer, _ = get_or_create_by_email(email)
    limit = {"rate_limit": [requests_per_minute, 60]}
    get_db().collection(CONSUMERS).document(consumer["id"]).update(limit)
    keys.clear_cache()
    return keys.issue_key(consumer["id"]).plaintext
