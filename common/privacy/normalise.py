"""What the screen reads: the text as shown (``clean``) and the text as matched
(``for_matching``), where obfuscations people use to slip contact details past a filter are read
as what they spell. No I/O but the data file.

- ``clean``: compatibility-normalised (NFKC: a fullwidth at sign is "@", circled letters are
  letters), invisible characters (zero-width spaces and joiners, controls, private use)
  removed, whitespace collapsed. This is the text a sentence is shown as.
- ``for_matching``: ``clean``, then look-alike letters of other scripts read as Latin (Cyrillic
  "\u0435" as "e"), "name at host dot com" and "name (at) host [dot] com" as an address,
  four or more spelled-out digits ("seven seven zero zero", "double seven") and runs of single
  digits with spaces or dots between ("0 7 7 0 0") as the digits.
- ``deobfuscated``: the matched text with words disguised against a filter read as the words
  they spell: digits and symbols for letters inside a word ("c4nc3r", "pr3gn@nt",
  "Wh1tfield"), and letters with dots, spaces or hyphens between them ("c.a.n.c.e.r",
  "p r e g n a n t"). The screen reads a sentence this way only when it found nothing as
  written (a plate or a postcode mixes letters and digits too).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from common.language.confusables import latin
from common.privacy.rules import rules

_INVISIBLE = {"Cf", "Cc", "Co", "Cs"}  # format (zero-width...), control, private use, surrogates
_SPACED_DIGITS = re.compile(r"(?<![\w.])\d(?:[ .\-\u00a0]\d){4,}(?![\w])")


def visible(text: str) -> str:
    """The text without invisible characters, whitespace collapsed, otherwise as written
    (typography such as an ellipsis kept): how a kept sentence of a text is shown."""
    kept = [
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _INVISIBLE
    ]
    return " ".join("".join(kept).split())


def clean(text: str) -> str:
    """The text a sentence is screened and shown as (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    kept = [
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _INVISIBLE
    ]
    return " ".join("".join(kept).split())


@cache
def _homoglyphs() -> dict[int, str]:
    return rules().normalise.homoglyph_table()


@cache
def _email() -> re.Pattern[str]:
    normalise = rules().normalise
    at = "|".join(re.escape(w) for w in sorted(normalise.at_words, key=len, reverse=True))
    # Bracketed forms ("(at)", "[at]") may touch the words around them; a plain "at" must
    # stand alone, or every "legislation.gov.uk" would read as legisl@ion.gov.uk.
    bracketed = "|".join(
        re.escape(w) for w in sorted(normalise.at_words, key=len, reverse=True) if not w.isalpha()
    )
    dot = "|".join(re.escape(w) for w in sorted(normalise.dot_words, key=len, reverse=True))
    separator = rf"(?:\s*(?:{dot})\s*|\.)"
    return re.compile(
        rf"(?<![\w.@])(?P<user>[a-z0-9](?:[a-z0-9._%+-]*(?:{separator}[a-z0-9_%+-]+)*)?)"
        rf"\s*(?:@|\s(?:{at})\s|(?:{bracketed}))\s*"
        rf"(?P<host>[a-z0-9-]+(?:{separator}[a-z0-9-]+)*{separator}(?P<tld>[a-z]{{2,6}}))"
        rf"(?![\w@/])",
        re.IGNORECASE,
    )


@cache
def _digits() -> tuple[re.Pattern[str], dict[str, str]]:
    values = dict(rules().normalise.number_words)
    alternation = "|".join(sorted(map(re.escape, values), key=len, reverse=True))
    one = rf"(?:(?:double|triple)[\s-]+)?(?:{alternation})"
    pattern = re.compile(rf"(?<!\w){one}(?:[\s,-]+{one}){{3,}}(?!\w)", re.IGNORECASE)
    return pattern, values


def _spell(match: re.Match[str], values: dict[str, str]) -> str:
    out: list[str] = []
    repeat = 1
    for word in re.split(r"[\s,-]+", match.group(0).lower()):
        if word in ("double", "triple"):
            repeat = 2 if word == "double" else 3
            continue
        out.append(values[word] * repeat)
        repeat = 1
    return "".join(out)


def _address(match: re.Match[str]) -> str:
    dot = rules().normalise.dot_words
    separator = re.compile(
        r"\s*(?:" + "|".join(re.escape(w) for w in dot) + r")\s*|\.", re.IGNORECASE
    )
    user = ".".join(p for p in separator.split(match.group("user")) if p)
    host = ".".join(p for p in separator.split(match.group("host")) if p)
    return f"{user}@{host}"


def for_matching(text: str) -> str:
    """The cleaned text with obfuscations read as what they spell (module docstring)."""
    text = latin(clean(text)).translate(_homoglyphs())
    pattern, values = _digits()
    text = pattern.sub(lambda m: _spell(m, values), text)
    text = _SPACED_DIGITS.sub(lambda m: re.sub(r"[ .\-\u00a0]", "", m.group(0)), text)
    return _email().sub(_address, text)


# Digits and symbols written for letters inside a word (leetspeak).
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b",
                       "@": "a", "$": "s", "!": "i", "|": "l"})  # fmt: skip
# A word of letters and such characters, with a lower-case letter (an upper-case code such as
# "AB12", "B12" or "G7" is no disguised word): "c4nc3r", "h0me", "Wh1tfield", "7w0", "pr3gn@nt".
_LEET_WORD = re.compile(
    r"(?<![\w@$!|])(?=[\w@$!|]*[a-z])(?=[\w@$!|]*[0134578@$!|])[A-Za-z0134578@$!|][\w@$!|]*"
)
# Letters with dots, spaces, hyphens or underscores between: "c.a.n.c.e.r", "p r e g n a n t".
_SPACED_LETTERS = re.compile(r"(?<![\w.])[A-Za-z](?:[ ._\-\u00a0*]{1,3}[A-Za-z]){3,}(?![\w])")
# Between spaced letters, a separator of several characters with a hyphen in it stands for the
# word's own hyphen ("t.h.i.r.t.y.-.t.w.o" is "thirty-two").
_SEPARATOR = re.compile(r"[ ._\-\u00a0*]{1,3}")


def deobfuscated(matched: str) -> str:
    """``matched`` (``for_matching``'s text) with disguised words read as the words they
    spell (module docstring)."""
    text = _SPACED_LETTERS.sub(
        lambda m: _SEPARATOR.sub(
            lambda s: "-" if len(s.group(0)) > 1 and "-" in s.group(0) else "", m.group(0)
        ),
        matched,
    )
    return _LEET_WORD.sub(_unleet, text)


def _unleet(match: re.Match[str]) -> str:
    word = match.group(0)
    if word.isdigit() or not re.search(r"[A-Za-z]", word):
        return word
    return word.translate(_LEET)


def deshouted(text: str) -> str:
    """A sentence written in capitals ("JEDEDIAH STONE CONVERTED TO CATHOLICISM") as if written
    in mixed case ("Jedediah Stone Converted To Catholicism"), letter for letter, so that
    patterns that want a capital only at a word's start match. Other text as it is."""
    if not shouting(text):
        return text
    return re.sub(r"[A-Za-z]+", lambda m: m.group(0)[0] + m.group(0)[1:].lower(), text)


def shouting(text: str) -> bool:
    """Most of the text's letters are capitals (a headline in capitals)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 12 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)
