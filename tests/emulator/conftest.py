"""Fixtures of the emulator tests: two consumers (with their auth headers), fixture feeds, a
fake SendGrid, the legal notes imported, and each text embedded once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from common import container
from common.datafiles import DATA
from common.search import embeddings
from tests.fakes.feed_server import FakeFeedServer
from tests.fakes.sendgrid_server import DEFAULT_KEY, FakeSendGridServer
from tests.helpers import bearer, new_consumer


@pytest.fixture(scope="package", autouse=True)
def _each_text_embedded_once() -> Iterator[None]:
    """The offline model is deterministic, so the emulator tests embed each text once: they
    import the same guides and sample records again and again, and embedding them was most
    of their setup. Every new text goes through the model's code unchanged; the model's own
    tests (tests/unit/test_embeddings.py) run without this."""
    from common.language import minilm

    original = minilm.MiniLM.embed
    known: dict[str, list[float]] = {}

    def embed(self: minilm.MiniLM, texts: list[str]) -> list[list[float]]:
        new = [text for text in dict.fromkeys(texts) if text not in known]
        if new:
            known.update(zip(new, original(self, new), strict=True))
        return [list(known[text]) for text in texts]

    minilm.MiniLM.embed = embed  # type: ignore[method-assign]
    yield
    minilm.MiniLM.embed = original  # type: ignore[method-assign]


@pytest.fixture
def alice(db) -> tuple[dict, dict[str, str]]:
    consumer, key = new_consumer("alice@example.org")
    return consumer, bearer(key)


@pytest.fixture
def bob(db) -> tuple[dict, dict[str, str]]:
    consumer, key = new_consumer("bob@example.org")
    return consumer, bearer(key)


@pytest.fixture(scope="session")
def _feed_server() -> Iterator[FakeFeedServer]:
    server = FakeFeedServer(slow_s=3.0)
    yield server
    server.shutdown()


@pytest.fixture
def feeds(_feed_server: FakeFeedServer, settings_env, tmp_path) -> FakeFeedServer:
    """The catalog and the news search point at the loopback fixture feeds."""
    from common.adapters.feeds import CACHE
    from common.catalog.topics import FEED_CATALOGS
    from devtools.feedserver import search_template, write_catalog

    catalog = write_catalog(_feed_server.url, tmp_path / "feeds.json")
    settings_env(
        FEED_CATALOG_PATH=str(catalog),
        NEWS_SEARCH_URL=search_template(_feed_server.url),
        FEED_TIMEOUT_S="1.5",
    )
    container.reset(CACHE)
    container.reset(FEED_CATALOGS)
    _feed_server.clear_requests()
    yield _feed_server
    container.reset(CACHE)
    container.reset(FEED_CATALOGS)


@pytest.fixture
def sendgrid(settings_env) -> Iterator[FakeSendGridServer]:
    """EMAIL_BACKEND=sendgrid against a loopback fake of /v3/mail/send."""
    from common.adapters.email import CLIENTS as EMAIL_CLIENTS

    with FakeSendGridServer() as server:
        settings_env(
            EMAIL_BACKEND="sendgrid",
            SENDGRID_HOST=server.url,
            SENDGRID_API_KEY=DEFAULT_KEY,
            SENDGRID_TIMEOUT_S="1",
            PUBLIC_BASE_URL="https://api.example.org",
        )
        container.reset(EMAIL_CLIENTS)
        yield server
    container.reset(EMAIL_CLIENTS)


LEGAL_NOTES = ("gb-protest-law", "us-ag-gag-iowa")


@pytest.fixture
def legal_corpus(db, settings_env) -> Iterator[None]:
    """The knowledge base's legal notes on protest law (England and Wales) and ag-gag (Iowa),
    the real guides imported with the offline embedder."""
    from functions.knowledge.importer import import_knowledge

    container.reset(embeddings.EMBEDDER)
    settings_env(EMBEDDINGS_BACKEND="offline")
    report = import_knowledge([DATA / "knowledge" / f"{name}.md" for name in LEGAL_NOTES])
    assert (report.documents, report.rejected) == (2, [])
    yield
    container.reset(embeddings.EMBEDDER)
