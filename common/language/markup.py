"""Text of an HTML fragment: what a person would read of it, on one line.

Third-party text (feed items, news results) and caller text that ends up in a draft (a content
request's topic, audience and call to action, issue 46) are read as HTML: tags are dropped with
what script, style and template elements hold, entities are decoded ("&amp;" is "&"), and the
characters that show nothing or turn the text around are removed (decision 0058), so no markup
survives into an email subject, a page or an assistant's context. What the text says is kept.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from common.language import clip
from common.language.safety import without_invisible

_WHITESPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]*>")
_LEFT_TAG = re.compile(r"<[A-Za-z/!?][^<>]*>?")  # a tag left after the last reading
ROUNDS = 3  # readings of a text whose decoded entities spell markup
CLIPPED = 8  # of a limit: the most characters of markup read


class _TextExtractor(HTMLParser):
    """Text of an HTML fragment: tags dropped, entities unescaped, script/style skipped."""

    _BLOCK = frozenset({"br", "p", "div", "li", "tr", "td", "h1", "h2", "h3", "h4", "img"})
    _SKIP = frozenset({"script", "style", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag in self._BLOCK:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def plain(markup: str, limit: int | None = None, *, strict: bool = False) -> str:
    """Plain text of ``markup`` on one line, at most ``limit`` characters when one is given.
    ``strict`` (a caller's own text that a draft repeats: a topic, an audience): markup that
    entities spell ("&lt;script&gt;") is markup once decoded and is read again, and what is
    still a tag after ``ROUNDS`` readings is cut out. Otherwise (an article's text) what
    entities spell is the text's own: an article about XML may quote "<!ENTITY ...>"."""
    if not markup:
        return ""
    # Python's HTMLParser slows down quadratically on some hostile input ("<a" repeated):
    # what is kept is at most ``limit``, so more than a few times that is never read
    text = markup if limit is None else markup[: limit * CLIPPED]
    for _ in range(ROUNDS if strict else 1):
        if "<" not in text and "&" not in text:
            break
        text = _read(text)
    if strict:
        text = _LEFT_TAG.sub(" ", text)
    # Entities are decoded by now ("&#8203;" is a zero-width space): what shows nothing, or
    # turns the text around, never reaches a client (decision 0058).
    text = _WHITESPACE.sub(" ", without_invisible(text)).strip()
    return text if limit is None else clip(text, limit)


def _read(markup: str) -> str:
    extractor = _TextExtractor()
    try:
        extractor.feed(markup)
        extractor.close()
        return "".join(extractor.parts)
    except Exception:  # HTMLParser is lenient; this is belt and braces for hostile input
        return _TAG.sub(" ", markup)
