"""The fixture feed server plus the ways real feeds fail, for tests.

Besides the fixture routes of ``devtools.feedserver`` (``/feeds/{topic}.xml``,
``/atom/{topic}.xml``, ``/search?q=``)::

    /broken.xml    200 with text that is not XML
    /error.xml     500
    /slow.xml      answers after ``slow_s`` seconds
    /drip.xml      sends the headers, then a few bytes every ``drip_every_s`` for ``slow_s``
    /huge.xml      a valid-looking RSS body of more than ``huge_bytes``, streamed without a
                   Content-Length (so only the reading side can notice)
    /redirect.xml  302 to /feeds/wildlife.xml
    /raw.xml       200 with ``raw_body`` (a test's hand-crafted feed)

    with FakeFeedServer() as server:
        fetch_feed(f"{server.url}/error.xml")
"""

from __future__ import annotations

import threading
import time
from typing import Any

from devtools.feedserver import FeedServer, _Handler

_RSS_HEAD = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
    b"<title>Huge feed</title><link>https://news.example.org/</link>"
    b"<description>Bigger than any bound.</description>\n"
)


class FakeFeedServer(FeedServer):
    def __init__(
        self,
        *,
        slow_s: float = 3.0,
        huge_bytes: int = 2_100_000,
        raw_body: bytes = b"",
        drip_delay_s: float = 0.0,
        drip_every_s: float = 0.2,
        items: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(0, items)
        self.slow_s = slow_s
        self.huge_bytes = huge_bytes
        self.raw_body = raw_body
        self.drip_delay_s = drip_delay_s
        self.drip_every_s = drip_every_s
        self._stopping = threading.Event()
        self.start()

    def shutdown(self) -> None:
        self._stopping.set()  # wake sleeping handlers so shutdown is quick
        super().shutdown()

    def route(self, handler: _Handler, path: str, query: dict[str, str]) -> bool:
        if path == "/broken.xml":
            handler.send_body(200, b"<<< this is { not a feed at all\n", "application/rss+xml")
        elif path == "/error.xml":
            handler.send_body(500, b"internal error\n", "text/plain")
        elif path == "/slow.xml":
            if self._stopping.wait(self.slow_s):
                return True
            return super().route(handler, "/feeds/wildlife.xml", query)
        elif path == "/drip.xml":
            self._drip(handler)
        elif path == "/huge.xml":
            self._huge(handler)
        elif path == "/redirect.xml":
            handler.send_body(302, b"", "text/plain", {"Location": "/feeds/wildlife.xml"})
        elif path == "/raw.xml":
            handler.send_body(200, self.raw_body, "application/rss+xml; charset=utf-8")
        else:
            return super().route(handler, path, query)
        return True

    def _drip(self, handler: _Handler) -> None:
        """Headers after ``drip_delay_s``, then a few bytes every ``drip_every_s`` until
        ``slow_s``: each read succeeds, so only a whole-fetch deadline stops the client."""
        if self._stopping.wait(self.drip_delay_s):
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/rss+xml")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        handler.close_connection = True
        handler.wfile.write(_RSS_HEAD)
        handler.wfile.flush()
        ends = time.monotonic() + self.slow_s
        while time.monotonic() < ends and not self._stopping.wait(self.drip_every_s):
            handler.wfile.write(b"<!-- . -->\n")
            handler.wfile.flush()

    def _huge(self, handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/rss+xml")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        handler.wfile.write(_RSS_HEAD)
        sent, number = len(_RSS_HEAD), 0
        while sent <= self.huge_bytes:
            number += 1
            chunk = (
                f"<item><title>Filler item {number}</title>"
                f"<link>https://news.example.org/filler/{number}</link>"
                f"<guid>filler-{number}</guid><description>{'x' * 900}</description></item>\n"
            ).encode()
            handler.wfile.write(chunk)
            sent += len(chunk)
        handler.wfile.write(b"</channel></rss>\n")
