"""The digest email of one tracking run: subject, plain text and HTML, plus RFC 8058 headers.

Everything that comes from a feed or a subscriber is untrusted: the HTML template autoescapes
it, whitespace is collapsed so a feed cannot forge extra lines in the text part, and only
http(s) URLs ever become links.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from common.adapters.templates import render
from common.catalog.topics import name_of as topic_name
from common.config import get_settings
from common.language import clip, one_line

SUMMARY_MAX_CHARS = 400
OVERVIEW_MAX_CHARS = 600
TITLE_MAX_CHARS = 300
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class DigestItem:
    """One feed item chosen for a digest."""

    title: str
    link: str
    source: str
    published: datetime | None
    summary: str


def render_digest(
    subscription: dict,
    items: list[DigestItem],
    pause_link: str,
    *,
    unsubscribe_link: str,
    own_address: bool,
    overview: str = "",
) -> tuple[str, str, str]:
    """Return ``(subject, text, html)`` of the digest of ``items`` for ``subscription``.

    ``own_address``: the digest goes to the owner's own address (it then says how to resume
    a paused subscription with the API); otherwise to a recipient who confirmed, who is told
    who subscribed them. Of the owner's own text only the keywords appear (what is tracked);
    ``specific_interests`` steers the ranking and is never shown. ``overview``: the "What's
    new" paragraph shown first (``functions.research.overview``, made from the items only)."""
    subject = _subject(subscription.get("frequency", "daily"), len(items))
    context = _context(subscription, items, pause_link, subject)
    context.update(
        unsubscribe_link=unsubscribe_link,
        own_address=own_address,
        overview=clip(one_line(overview), OVERVIEW_MAX_CHARS),
    )
    return subject, render("digest.txt.j2", **context), render("digest.html.j2", **context)


def list_unsubscribe_headers(pause_link: str) -> dict[str, str]:
    """One-click unsubscribe headers (RFC 8058): mail clients show an unsubscribe button that
    POSTs ``List-Unsubscribe=One-Click`` to the pause link."""
    return {
        "List-Unsubscribe": f"<{pause_link}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def safe_link(url: str) -> str | None:
    """``url`` if it is an absolute http(s) URL, else None (javascript:, data:, relative...)."""
    url = (url or "").strip()
    if not url or any(ord(char) < 32 or char.isspace() for char in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return url


def format_date(value: datetime | None) -> str:
    """``21 Nov 2026``, independent of the process locale; "" when unknown."""
    if value is None:
        return ""
    return f"{value.day} {_MONTHS[value.month - 1]} {value.year}"


def _subject(frequency: str, count: int) -> str:
    if frequency == "realtime":
        return f"New advocacy research: {count} item{'s' if count != 1 else ''}"
    new_items = f"{count} new item{'s' if count != 1 else ''}" if count else "no new items"
    return f"Your {frequency} advocacy research digest: {new_items}"


def _context(
    subscription: dict, items: list[DigestItem], pause_link: str, subject: str
) -> dict[str, Any]:
    settings = get_settings()
    topics = [topic_name(topic) for topic in subscription.get("topics") or []]
    return {
        "subject": subject,
        "frequency": subscription.get("frequency", "daily"),
        "items": [_item(item) for item in items],
        "topics": [one_line(topic) for topic in topics],
        "keywords": [one_line(keyword) for keyword in subscription.get("custom_keywords") or []],
        "pause_link": pause_link,
        "resume_url": f"{settings.public_base_url}/v1/tracking/subscriptions/"
        + quote(str(subscription["id"]), safe=""),
    }


def _item(item: DigestItem) -> dict[str, Any]:
    return {
        "title": clip(one_line(item.title), TITLE_MAX_CHARS) or "(untitled)",
        "link": safe_link(item.link),
        "source": one_line(item.source),
        "date": format_date(item.published),
        "summary": clip(one_line(item.summary), SUMMARY_MAX_CHARS),
    }
