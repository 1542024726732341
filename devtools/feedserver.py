"""A local fixture news-feed server: RSS 2.0 and Atom 1.0 feeds built from ``feeds/items.json``.

Used by ``make run`` (LOCAL_FEEDS=1) so digests and research work with no network, and by tests
(``tests/fakes/feed_server.py`` adds failure routes). Never deployed.

Routes:
  GET /feeds/{topic}.xml  RSS 2.0 of the topic's fixture items
  GET /atom/{topic}.xml   the same items as Atom 1.0
  GET /search?q=...       RSS of the items whose title or summary contains q (none when no
                          item names it)

Publication dates are ``now - age_hours``, so the items always look fresh. Every feed carries
an ETag computed without the dates (stable for a given item set) and answers a matching
``If-None-Match`` with 304, so conditional GET is exercised end to end.

    python -m devtools.feedserver --port 8683
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
ITEMS_PATH = Path(__file__).resolve().parent / "feeds" / "items.json"


def load_items(path: Path = ITEMS_PATH) -> list[dict[str, Any]]:
    """The fixture items: guid, topic, title, summary (may hold HTML), link, age_hours."""
    return json.loads(path.read_text(encoding="utf-8"))["items"]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler that sleeps must not hold up shutdown()

    def __init__(self, port: int, owner: FeedServer) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.owner = owner


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        owner = self.server.owner
        parts = urlsplit(self.path)
        owner._record(self.path, {name.lower(): value for name, value in self.headers.items()})
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        try:
            if not owner.route(self, parts.path, query):
                self.send_body(404, b"not found\n", "text/plain; charset=utf-8")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout under test)

    def send_body(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_feed(self, body: bytes, content_type: str, etag: str) -> None:
        """200 with the feed, or 304 when the client already holds this ETag."""
        sent = self.headers.get("If-None-Match", "")
        tags = {tag.strip().removeprefix("W/") for tag in sent.split(",") if tag.strip()}
        if etag in tags or "*" in tags:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send_body(200, body, content_type, {"ETag": etag, "Cache-Control": "no-cache"})

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests and make run have their own output


class FeedServer:
    """The fixture server on 127.0.0.1; ``serve()`` builds and starts one."""

    def __init__(self, port: int = 0, items: list[dict[str, Any]] | None = None) -> None:
        self.items = items if items is not None else load_items()
        self._requests: list[tuple[str, dict[str, str]]] = []
        self._lock = threading.Lock()
        self._httpd = _HTTPServer(port, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},  # shutdown() returns within one poll
            name="feedserver",
            daemon=True,
        )

    def start(self) -> FeedServer:
        self._thread.start()
        return self

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[tuple[str, dict[str, str]]]:
        """(path with query, lower-cased headers) of every request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def shutdown(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FeedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def _record(self, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self._requests.append((path, headers))

    # --- routes (subclasses add theirs and fall back to these) ----------------------------

    def route(self, handler: _Handler, path: str, query: dict[str, str]) -> bool:
        """Answer the request and return True, or return False for a 404."""
        for prefix, render in (("/feeds/", rss), ("/atom/", atom)):
            if path.startswith(prefix) and path.endswith(".xml"):
                topic = path[len(prefix) : -len(".xml")]
                items = [item for item in self.items if item["topic"] == topic]
                if not items:
                    return False
                self._send(handler, render, f"Fixture news: {topic}", items)
                return True
        if path == "/search":
            term = query.get("q", "").strip()
            items = search_items(self.items, term)
            self._send(handler, rss, f'"{term}" - Fixture news search', items)
            return True
        return False

    def _send(
        self,
        handler: _Handler,
        render: Callable[[str, str, list[dict[str, Any]]], bytes],
        title: str,
        items: list[dict[str, Any]],
    ) -> None:
        body = render(title, f"{self.url}{handler.path}", items)
        ctype = "application/rss+xml" if render is rss else "application/atom+xml"
        handler.send_feed(body, f"{ctype}; charset=utf-8", etag_of(handler.path, items))


def serve(port: int = 0) -> FeedServer:
    """Start a fixture server on 127.0.0.1:``port`` (0: a free port) in a daemon thread."""
    return FeedServer(port).start()


def search_items(items: list[dict[str, Any]], term: str) -> list[dict[str, Any]]:
    """Items whose title or summary contains ``term`` (case-insensitive): none for a term no
    item names, as a news search finds nothing on a name nobody reported on.

    A term with double-quoted phrases (``"Priya Raman" "Brightwell Supermarkets"``, as the
    OSINT profiles search) matches the items that contain every phrase, as a search engine's
    phrase search does."""
    phrases = [p.casefold() for p in re.findall(r'"([^"]+)"', term)] or [term.casefold()]
    found = [
        item
        for item in items
        if term
        and all(p in item["title"].casefold() or p in item["summary"].casefold() for p in phrases)
    ]
    return found


def etag_of(key: str, items: list[dict[str, Any]]) -> str:
    """Hash of what the feed says, without the dates that move with the clock."""
    stable = [[i["guid"], i["title"], i["summary"], i["link"], i["age_hours"]] for i in items]
    digest = hashlib.sha256(json.dumps([key, stable]).encode("utf-8")).hexdigest()[:20]
    return f'"{digest}"'


def _published(item: dict[str, Any], now: datetime) -> datetime:
    return (now - timedelta(hours=float(item["age_hours"]))).replace(microsecond=0)


def rss(title: str, self_url: str, items: list[dict[str, Any]]) -> bytes:
    """An RSS 2.0 document (summaries as escaped HTML, as real feeds send them)."""
    now = datetime.now(UTC)
    entries = "".join(
        "<item>"
        f"<title>{escape(item['title'])}</title>"
        f"<link>{escape(item['link'])}</link>"
        f'<guid isPermaLink="false">{escape(item["guid"])}</guid>'
        f"<pubDate>{format_datetime(_published(item, now), usegmt=True)}</pubDate>"
        f"<description>{escape(item['summary'])}</description>"
        "</item>\n"
        for item in items
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>\n'
        f"<title>{escape(title)}</title>"
        "<link>https://news.example.org/</link>"
        f'<atom:link href="{escape(self_url)}" rel="self" type="application/rss+xml"/>'
        "<description>Fictional advocacy news for local runs and tests.</description>"
        "<language>en</language>\n"
        f"{entries}</channel></rss>\n"
    ).encode()


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def atom(title: str, self_url: str, items: list[dict[str, Any]]) -> bytes:
    """An Atom 1.0 document with the same items (summaries as type="html")."""
    now = datetime.now(UTC)
    updated = max((_published(item, now) for item in items), default=now)
    entries = "".join(
        "<entry>"
        f"<title>{escape(item['title'])}</title>"
        f'<link rel="alternate" href="{escape(item["link"])}"/>'
        f"<id>{escape(item['guid'])}</id>"
        f"<updated>{_iso(_published(item, now))}</updated>"
        f"<published>{_iso(_published(item, now))}</published>"
        f'<summary type="html">{escape(item["summary"])}</summary>'
        "</entry>\n"
        for item in items
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"<title>{escape(title)}</title>"
        f"<id>{escape(self_url)}</id>"
        f'<link rel="self" href="{escape(self_url)}"/>'
        f"<updated>{_iso(updated)}</updated>"
        "<author><name>Fixture news</name></author>\n"
        f"{entries}</feed>\n"
    ).encode()


def write_catalog(base_url: str, path: Path) -> Path:
    """A FEED_CATALOG_PATH file giving every topic of the catalog (data/topics.toml) one feed:
    this server's ``/feeds/<topic>.xml``."""
    from common.catalog import topics

    base = base_url.rstrip("/")
    document = {
        "topics": {topic: {"feeds": [f"{base}/feeds/{topic}.xml"]} for topic in topics.ids()}
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path


def search_template(base_url: str) -> str:
    """A NEWS_SEARCH_URL template for this server."""
    return f"{base_url.rstrip('/')}/search?q={{query}}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the fixture news feeds until Ctrl-C.")
    parser.add_argument("--port", type=int, default=8683)
    args = parser.parse_args(argv)
    server = serve(args.port)
    local = Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))
    catalog = write_catalog(server.url, local / "feeds" / "catalog.json")
    print(f"Fixture feeds: {server.url}/feeds/<topic>.xml (Atom: /atom/, search: /search?q=)")
    print(f"Catalog written to {catalog}")
    print("Point the service at them with:")
    print(f"  export FEED_CATALOG_PATH={catalog}")
    print(f"  export NEWS_SEARCH_URL='{search_template(server.url)}'")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
