"""Search terms of a text: the words that text search stores and matches.

Lower-cased, accents folded (``café`` -> ``cafe``), split on anything that is not a letter or
digit (hyphenated words also give their joined form: ``cage-free`` -> ``cage``, ``free``,
``cagefree``), English stop words dropped (``data/search/stopwords.txt``), and stemmed with the
Snowball English stemmer, so ``campaigns``, ``campaigning`` and ``campaign`` are one term.

Capitals tell an abbreviation from a function word (decision 0057): a stop word written in
capitals is an abbreviation and kept (``US``, the country; ``us``, the pronoun, is dropped),
and capitals with full stops are one word (``U.S.`` is ``US``, ``U.K.`` is ``UK``).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache
from typing import Any

from common.datafiles import DATA

STOPWORDS_PATH = DATA / "search" / "stopwords.txt"
MAX_TERMS = 400  # per stored text: Firestore indexes each array value
# Longer "words" (a run of 5,000 x's, a base64 blob) are no one's search term, and Firestore
# refuses a query value over 1,500 bytes: they are neither stored nor searched.
MAX_TERM_CHARS = 60
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_DOTTED = re.compile(r"\b(?:[A-Z]\.){2,}")  # U.S., U.K.: abbreviations written with full stops


@cache
def _stopwords() -> frozenset[str]:
    lines = STOPWORDS_PATH.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


_local = threading.local()


def _stemmer() -> Any:
    """This thread's stemmer. A Snowball stemmer keeps the word it is stemming on itself, so
    one shared by threads mixes their words: wrong stems ("hatcheries" -> "enrich") and
    IndexError (issue 43). One per thread; each is a few small objects."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@cache
def stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def unaccented(text: str) -> str:
    """The text without accents (``café`` -> ``cafe``), its case kept."""
    if text.isascii():
        return text  # nothing to decompose
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _kept(word: str, lower: str, stop: frozenset[str]) -> bool:
    """Whether a word is a search term: not a stop word (unless in capitals: an abbreviation),
    not a lone letter, not absurdly long."""
    if lower in stop and not (len(word) > 1 and word.isupper()):
        return False
    return (len(word) > 1 or word.isdigit()) and len(word) <= MAX_TERM_CHARS


def terms(text: str) -> list[str]:
    """The distinct search terms of ``text``, in order of first appearance."""
    return list(term_counts(text))


def term_counts(text: str) -> dict[str, int]:
    """How often each search term of ``text`` occurs, in order of first appearance (at most
    ``MAX_TERMS`` distinct terms; the text's later new terms are not counted)."""
    stop = _stopwords()
    found: dict[str, int] = {}
    text = _DOTTED.sub(lambda m: m.group().replace(".", ""), text)
    for match in _WORD.finditer(unaccented(text)):
        token = match.group()
        parts = token.split("-")
        words = [*parts, "".join(parts)] if len(parts) > 1 else parts
        for word in words:
            lower = word.lower()
            if not _kept(word, lower, stop):
                continue
            term = stem(lower)
            if term in found:
                found[term] += 1
            elif len(found) < MAX_TERMS:
                found[term] = 1
        if len(found) >= MAX_TERMS:
            break
    return found
