"""Language: the text toolkit shared by the groups, the offline engine, the screen and search
(the lowest room of ``common``; it imports only ``common.datafiles``). One line, a clipped line,
an and-list here; beside it sentences (``sentences``), the characters refused in callers' text
(``safety``), the text index (``index``, ``synonyms``), look-alike letters (``confusables``),
organisations' names (``organisations``), spelling (``spelling``), citations (``citations``),
the offline word lists (``lexicon``), the companies known by name (``gazetteer``), the names
of people and companies profiled (``names``), the bundled sentence encoder (``minilm``) and one
message annotated once for all its readers (``message``)."""

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
