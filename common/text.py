"""Small text helpers shared by the groups and the offline engine."""

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
