"""The text toolkit shared by the groups and the offline engine: one line, a clipped line, an
and-list here; sentences (``sentences``), callers' text checks (``safety``), the text index
(``index``) beside it."""

from __future__ import annotations

ELLIPSIS = "\u2026"


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one falls in the
    second half, with an ellipsis (and no dangling punctuation before it) when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.-") + ELLIPSIS


def one_line(text: str | None) -> str:
    """``text`` on one line: every run of whitespace (newlines included) one space."""
    return " ".join((text or "").split())


def and_list(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
