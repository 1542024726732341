"""Characters no request text may carry.

Whatever a caller stores can end up in an email, a log line or a page. Control characters
(NUL and the rest of C0 except tab, line feed and carriage return; DEL; C1) and the Unicode bidi
embedding, override and isolate controls (which can make text display as something other than
what it is, "Trojan Source") are refused at input with a 400 naming the field
(``common.http.validate.unsafe_text``), instead of being stripped somewhere downstream.
"""

from __future__ import annotations

import re
from typing import Any

# The refused characters as a regex class body, written with escapes so that the same text is a
# valid Python and ECMA-262 (JSON Schema) class.
UNSAFE_CLASS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
# Characters that show nothing: format characters (the soft hyphen, zero-width spaces and
# joiners, directional marks, word joiner and invisible operators, byte order mark, variation
# selectors, interlinear annotation) and the letters and pattern that render as a blank (Hangul
# fillers, Khmer inherent vowels, the blank Braille cell). A name or a query made only of them
# and spaces is blank (issue 27: such API key names were accepted).
INVISIBLE_CLASS = (
    r"\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
)
# The pattern of request text that must not be blank: it holds a visible character.
NOT_BLANK = rf"[^\s{INVISIBLE_CLASS}]"
NOT_BLANK_MESSAGE = "Must contain a visible character, not only spaces or invisible characters."
# What /openapi.json documents for request text: any text without the refused characters, and
# (for fields that must not be blank, ``NOT_BLANK``) with a visible character.
SAFE_TEXT_PATTERN = f"^[^{UNSAFE_CLASS}]*$"
SAFE_NONBLANK_PATTERN = (
    rf"^[^{UNSAFE_CLASS}]*[^\s{UNSAFE_CLASS}{INVISIBLE_CLASS}][^{UNSAFE_CLASS}]*$"
)
MAX_ERRORS = 20
# What third-party text (feed items, news search results) loses before it reaches a client:
# the refused and invisible characters above, Unicode tag characters (which can smuggle text
# an assistant reads but a person does not see), and every other format or private-use
# character; a control character that is whitespace becomes a space.
_HIDDEN = re.compile(f"[{UNSAFE_CLASS}{INVISIBLE_CLASS}\U000e0000-\U000e007f]")


def without_invisible(text: str) -> str:
    """``text`` without characters that show nothing or change how the rest displays
    (``_HIDDEN``, and any other format, control or private-use character), whitespace
    controls read as spaces. Run after HTML entities are decoded: "&#8203;" is one too."""
    import unicodedata

    text = _HIDDEN.sub(lambda m: " " if m.group(0).isspace() else "", text)
    if text.isascii():
        return text
    return "".join(
        char
        for char in text
        if char.isspace() or unicodedata.category(char) not in ("Cf", "Cc", "Co", "Cs")
    )


def document_rule(schema: Any) -> None:
    """Add the rule to the JSON Schema of a request body, in place: every string without a
    pattern, format or enum gets ``SAFE_TEXT_PATTERN``; the not-blank pattern ``NOT_BLANK``
    becomes ``SAFE_NONBLANK_PATTERN``. (Patterns of identifiers and emails already exclude them.)"""
    if isinstance(schema, list):
        for item in schema:
            document_rule(item)
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not {"format", "enum", "const"} & set(schema):
        if "pattern" not in schema:
            schema["pattern"] = SAFE_TEXT_PATTERN
        elif schema["pattern"] == NOT_BLANK:
            schema["pattern"] = SAFE_NONBLANK_PATTERN
    for key, value in schema.items():
        if key not in ("pattern", "description", "title", "examples", "default"):
            document_rule(value)
