"""Fetching and parsing RSS/Atom feeds: the news sources of research and tracking digests.

A feed is someone else's server, so every failure (timeout, HTTP error, garbage, a body too big
to hold) becomes ``FeedResult.error`` instead of an exception: one bad source must never sink a
digest built from twenty good ones. Each fetch has a hard deadline (``FEED_TIMEOUT_S``) covering
connect, redirects and the body, and a byte bound (``FEED_MAX_BYTES``) checked while streaming.

Feeds are polled repeatedly by digests, so ETag / Last-Modified validators and the parsed items
are kept in a small in-process LRU: a ``304 Not Modified`` answer costs the source almost
nothing and returns the cached items.
"""

from __future__ import annotations

import calendar
import contextlib
import hashlib
import io
import logging
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from common import container
from common.config import get_settings
from common.language import clip
from common.language.markup import plain
from common.language.safety import without_invisible

if TYPE_CHECKING:
    import httpx

USER_AGENT = "AdvocacyResearchService/1.0 (+feeds)"
ACCEPT = (
    "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
)
MAX_REDIRECTS = 3
TITLE_MAX_CHARS = 300
SUMMARY_MAX_CHARS = 1000

log = logging.getLogger("ars.feeds")


@dataclass(frozen=True)
class FeedItem:
    """One entry of a feed, reduced to plain text so nothing downstream has to distrust HTML."""

    id: str
    title: str
    link: str
    source: str
    published: datetime | None
    summary: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (NDJSON events, Firestore results)."""
        return {
            "id": self.id,
            "title": self.title,
            "link": self.link,
            "source": self.source,
            "published": self.published.isoformat() if self.published else None,
            "summary": self.summary,
        }


@dataclass
class FeedResult:
    """What one fetch produced: items, or a short reason why there are none."""

    url: str
    items: list[FeedItem] = field(default_factory=list)
    error: str | None = None
    not_modified: bool = False


class _FetchError(Exception):
    """A source failure; ``reason`` is the short text of ``FeedResult.error``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Download:
    body: bytes | None  # None when the source answered 304
    etag: str | None = None
    last_modified: str | None = None
    final_url: str = ""
    content_type: str = ""


@dataclass(frozen=True)
class _CacheEntry:
    etag: str | None
    last_modified: str | None
    items: tuple[FeedItem, ...]


class _LruCache:
    """A bounded, thread-safe url -> validators + items map (fetch_all runs in threads)."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, _CacheEntry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> _CacheEntry | None:
        with self._lock:
            entry = self._entries.get(url)
            if entry is not None:
                self._entries.move_to_end(url)
            return entry

    def put(self, url: str, entry: _CacheEntry, capacity: int) -> None:
        with self._lock:
            if capacity <= 0:
                self._entries.clear()
                return
            self._entries[url] = entry
            self._entries.move_to_end(url)
            while len(self._entries) > capacity:
                self._entries.popitem(last=False)

    def discard(self, url: str) -> None:
        with self._lock:
            self._entries.pop(url, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


# The process's cache of feeds and its pooled HTTP client, built on first use (decision 0072).
# ``container.reset(CACHE)`` forgets every cached feed (tests; a fresh process starts empty).
CACHE = "feeds.cache"
CLIENT = "feeds.client"
_cached: container.Entry[_LruCache] = container.register(CACHE, _LruCache)


def fetch_all(urls: list[str], max_workers: int = 8) -> list[FeedResult]:
    """Fetch ``urls`` in parallel; results are in the order of ``urls``.

    Each fetch has its own deadline, so the whole call takes about
    ``ceil(len(urls) / max_workers) * FEED_TIMEOUT_S`` at worst. A URL listed twice is fetched
    once (topics often share a feed).
    """
    unique = list(dict.fromkeys(urls))
    if not unique:
        return []
    workers = max(1, min(max_workers, len(unique)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="feeds") as pool:
        by_url = dict(zip(unique, pool.map(fetch_feed, unique), strict=True))
    return [by_url[url] for url in urls]


def fetch_feed(url: str) -> FeedResult:
    """Fetch and parse one feed. Never raises for a source failure: see ``FeedResult.error``."""
    settings = get_settings()
    if not _is_http_url(url):
        return _failed(url, "unsupported URL")
    deadline = time.monotonic() + settings.feed_timeout_s
    cached = _cached.get().get(url) if settings.feed_cache_entries > 0 else None
    try:
        download = _download(url, cached, deadline, settings.feed_max_bytes)
        if download.body is None:
            if cached is None:  # 304 to a request that had no validators: nonsense
                raise _FetchError("HTTP 304")
            return FeedResult(url, _fresh(cached.items), not_modified=True)
        items = _parse(download.body, download.final_url or url, download.content_type)
    except _FetchError as exc:
        return _failed(url, exc.reason)
    except Exception as exc:  # a library bug or an exotic failure must not sink a digest
        log.warning(
            "feed %s failed unexpectedly: %s",
            _host(url),
            type(exc).__name__,
            extra={"feedHost": _host(url), "reason": "unexpected"},
        )
        return FeedResult(url, [], error="fetch failed")
    if download.etag or download.last_modified:
        entry = _CacheEntry(download.etag, download.last_modified, tuple(items))
        _cached.get().put(url, entry, settings.feed_cache_entries)
    else:
        _cached.get().discard(url)
    return FeedResult(url, _fresh(items))


def _failed(url: str, reason: str) -> FeedResult:
    # Only the host: a search feed's query string carries a subscriber's keywords.
    log.warning(
        "feed %s failed: %s", _host(url), reason, extra={"feedHost": _host(url), "reason": reason}
    )
    return FeedResult(url, [], error=reason)


def _fresh(items: Iterable[FeedItem]) -> list[FeedItem]:
    """Drop items older than FEED_MAX_AGE_DAYS (undated items are kept: some feeds never date)."""
    cutoff = datetime.now(UTC) - timedelta(days=get_settings().feed_max_age_days)
    return [item for item in items if item.published is None or item.published >= cutoff]


# --- HTTP ---------------------------------------------------------------------------------


def _http_client() -> httpx.Client:
    """One pooled client per process (keep-alive across feeds of the same host)."""
    return _client.get()


def _build_http_client() -> httpx.Client:
    import httpx

    from common.logging import quiet_libraries

    quiet_libraries()  # httpx logs each URL at INFO: a search feed's has keywords
    return httpx.Client(
        headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
        follow_redirects=False,  # followed by hand: each hop gets what is left
        max_redirects=MAX_REDIRECTS,
        limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
    )


_client: container.Entry[httpx.Client] = container.register(
    CLIENT, _build_http_client, close=lambda client: client.close()
)


def _is_public(host: str) -> bool:
    """True when every address ``host`` resolves to is a global one (not loopback, private,
    link-local such as the metadata server, or reserved). Unresolvable hosts count as public:
    fetching them fails anyway."""
    import ipaddress
    import socket

    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return True
    return all(ipaddress.ip_address(info[4][0]).is_global for info in infos)


def _download(url: str, cached: _CacheEntry | None, deadline: float, max_bytes: int) -> _Download:
    client = _http_client()
    headers: dict[str, str] = {}
    if cached is not None and cached.etag:
        headers["If-None-Match"] = cached.etag
    if cached is not None and cached.last_modified:
        headers["If-Modified-Since"] = cached.last_modified
    request = client.build_request("GET", url, headers=headers)
    for _hop in range(MAX_REDIRECTS + 1):
        response = _send(client, request, deadline)
        try:
            if response.has_redirect_location and response.next_request is not None:
                target = response.next_request
                if not _is_http_url(str(target.url)):
                    raise _FetchError("unsupported URL")
                if _is_public(request.url.host) and not _is_public(target.url.host):
                    # A public feed may not send us to loopback, private or metadata addresses.
                    raise _FetchError("redirect to a private address")
                request = target
                continue
            if response.status_code == 304:
                return _Download(None)
            if not 200 <= response.status_code < 300:
                raise _FetchError(f"HTTP {response.status_code}")
            body = _read_body(response, deadline, max_bytes)
            return _Download(
                body,
                etag=response.headers.get("etag"),
                last_modified=response.headers.get("last-modified"),
                final_url=str(response.url),
                content_type=response.headers.get("content-type", ""),
            )
        finally:
            response.close()
    raise _FetchError("too many redirects")


def _send(client: httpx.Client, request: httpx.Request, deadline: float) -> httpx.Response:
    """The response's head, for what is left of the deadline.

    A kept-alive connection that the other end dropped while it sat in the pool (a source's idle
    timeout, a proxy's reset) fails the request before a byte of the answer arrives: the request
    is sent once more, on a new connection, as browsers do for a GET (decision 0074). Only a
    dropped connection is retried; a refusal, a timeout or a bad URL is the source's answer.
    """
    import httpx

    for attempt in range(2):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _FetchError("timeout")
        request.extensions = {**request.extensions, "timeout": httpx.Timeout(remaining).as_dict()}
        try:
            return client.send(request, stream=True, follow_redirects=False)
        except httpx.TimeoutException as exc:
            raise _FetchError("timeout") from exc
        except httpx.UnsupportedProtocol as exc:
            raise _FetchError("unsupported URL") from exc
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            if attempt == 0 and time.monotonic() < deadline:
                log.info("feed %s dropped the connection; sending again", request.url.host)
                continue
            raise _FetchError(_transport_reason(deadline)) from exc
        except (httpx.TransportError, httpx.InvalidURL) as exc:
            raise _FetchError(_transport_reason(deadline)) from exc
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _read_body(response: httpx.Response, deadline: float, max_bytes: int) -> bytes:
    """Stream the body, holding to the deadline and the byte bound.

    httpx's read timeout is per read, so a source dripping a byte a second would never trip it;
    a watchdog shuts the socket down at the deadline, which wakes the blocked read. A body over
    the bound is an error, never a truncated parse.
    """
    import httpx

    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _FetchError("too large")
    watchdog = _Watchdog(response, deadline)
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise _FetchError("too large")
            if time.monotonic() > deadline:
                raise _FetchError("timeout")
            chunks.append(chunk)
    except httpx.TimeoutException as exc:
        raise _FetchError("timeout") from exc
    except httpx.DecodingError as exc:
        raise _FetchError("bad encoding") from exc
    except (httpx.TransportError, OSError, ValueError) as exc:
        reason = "timeout" if watchdog.fired else _transport_reason(deadline)
        raise _FetchError(reason) from exc
    finally:
        watchdog.cancel()
    if watchdog.fired:
        raise _FetchError("timeout")
    return b"".join(chunks)


class _Watchdog:
    """Shuts the response's socket down at the deadline (a no-op when the socket is unknown)."""

    def __init__(self, response: httpx.Response, deadline: float) -> None:
        self.fired = False
        self._cancelled = False
        # Held while firing and while cancelling: once cancel() returns, the socket is never shut
        # down, so a connection whose body was read in time goes back to the pool intact.
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            self._timer = threading.Timer(
                max(0.0, deadline - time.monotonic()), self._fire, (sock,)
            )
            self._timer.daemon = True
            self._timer.start()

    def _fire(self, sock: socket.socket) -> None:
        with self._lock:
            if self._cancelled:
                return
            self.fired = True
            # The base class method: SSLSocket.shutdown would also drop the TLS state under the
            # reading thread's feet.
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
        if self._timer is not None:
            self._timer.cancel()


def _transport_reason(deadline: float) -> str:
    return "timeout" if time.monotonic() >= deadline else "connection failed"


# --- parsing ------------------------------------------------------------------------------


# A DTD internal subset ("<!DOCTYPE rss [ ... ]>") or an entity declaration, in the prolog.
# What expat says of a document that ends inside an element or a tag: a feed cut off in
# transfer (a proxy's limit, a server that stopped writing) rather than one with a markup slip.
_CUT_OFF = ("no element found", "unclosed token")


def _cut_off(error: Any) -> bool:
    message = str(getattr(error, "getMessage", lambda: "")() or "")
    return any(message.startswith(sign) for sign in _CUT_OFF)


_DTD = re.compile(rb"<!DOCTYPE[^>\[]*\[|<!ENTITY", re.IGNORECASE)
_FIRST_ELEMENT = re.compile(rb"<\w")  # where feedparser ends the prolog it reads entities from


def _declares_entities(body: bytes, content_type: str) -> bool:
    """True when the document's prolog has a DTD internal subset or declares an entity.

    feedparser's lenient fallback expands a declared entity wherever it is referenced, without
    limit: a 56 kB feed with one 50 kB entity referenced 2,000 times took 315 MB (a 115 kB one,
    1.46 GB). No feed needs a DTD, so one is refused (decision 0016); an external DOCTYPE with no
    internal subset (old RSS 0.91) is harmless and kept. The prolog is read in the encoding
    feedparser will use (a byte scan would miss a UTF-16 or UTF-7 document's markup)."""
    from feedparser.encodings import convert_to_utf8

    headers = {"content-type": content_type} if content_type else {}
    text = convert_to_utf8(headers, body, {})
    first = _FIRST_ELEMENT.search(text)
    return _DTD.search(text[: first.start()] if first else text) is not None


def _parse(body: bytes, base_url: str, content_type: str) -> list[FeedItem]:
    """The items of a feed body, or _FetchError. The work is bounded by FEED_MAX_BYTES: with no
    DTD, nothing the parser builds is larger than the body (about 5 s of CPU per MB at worst,
    measured on pathological markup)."""
    import feedparser

    if _declares_entities(body, content_type):
        raise _FetchError("refused: DTD")
    # A BytesIO, never raw bytes: feedparser treats a bytes/str argument that names a file or a
    # URL as something to open, and the body is untrusted.
    parsed = feedparser.parse(
        io.BytesIO(body),
        response_headers={"content-type": content_type} if content_type else None,
    )
    feed = parsed.get("feed") or {}
    entries = parsed.get("entries") or []
    feed_title = plain(feed.get("title", ""), TITLE_MAX_CHARS)
    if not entries and not feed_title and (parsed.get("bozo") or not parsed.get("version")):
        raise _FetchError("not a feed")
    if parsed.get("bozo") and _cut_off(parsed.get("bozo_exception")):
        # What the lenient parser recovered may end in a half item; the whole feed comes
        # with the next fetch, so the source is reported as failed rather than half used.
        raise _FetchError("cut off")
    items: list[FeedItem] = []
    for entry in entries:
        item = _item(entry, feed_title, base_url)
        if item is not None:
            items.append(item)
    return items


def _item(entry: Any, feed_title: str, base_url: str) -> FeedItem | None:
    link = _absolute_http_url(entry.get("link") or "", base_url)
    if link is None:
        return None
    summary_html = entry.get("summary") or ""
    if not summary_html and entry.get("content"):
        summary_html = entry["content"][0].get("value", "")
    summary = plain(summary_html, SUMMARY_MAX_CHARS)
    title = plain(entry.get("title", ""), TITLE_MAX_CHARS) or clip(summary, TITLE_MAX_CHARS)
    if not title:
        return None  # nothing a reader could recognise
    key = (entry.get("id") or "").strip() or link or title
    return FeedItem(
        id=hashlib.sha256(key.encode("utf-8")).hexdigest()[:32],
        title=title,
        link=link,
        source=feed_title or (urlsplit(link).hostname or ""),
        published=_published(entry),
        summary=summary,
    )


def _published(entry: Any) -> datetime | None:
    for name in ("published_parsed", "updated_parsed", "created_parsed"):
        value = entry.get(name)
        if value:
            try:
                return datetime.fromtimestamp(calendar.timegm(value), UTC)
            except (OverflowError, ValueError, TypeError, OSError):
                continue
    return None


def _absolute_http_url(link: str, base_url: str) -> str | None:
    link = link.strip()
    if not link or any(ord(char) < 32 or char.isspace() for char in link):
        return None
    if without_invisible(link) != link:
        return None  # a link with hidden characters is not one a reader can check
    if link.startswith("/"):  # root- or scheme-relative; a bare word is a guid, not a path
        try:
            link = urljoin(base_url, link)
        except ValueError:
            return None
    return link if _is_http_url(link) else None


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or "?"
    except ValueError:
        return "?"
