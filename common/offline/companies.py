"""The company a message names, for ``extractedInfo.companyName`` (INVESTIGATE_COMPANY, and
TRACK_ISSUES keywords). Rule-based and explainable; its words are data
(``data/text/organisations.toml``: the words company names end in;
``data/offline/entities.toml``: ``company_cues``, ``place_words``, ``not_companies``, and
``not_names`` for the words that start sentences).

Candidates are runs of capitalised words ("Harlow Foods", "Sorrel & Co", "Tallis Dairy
Co-op"), cut at a possessive ("Dunmore Dairy's herds" -> "Dunmore Dairy") and stripped of
leading sentence words ("Has", "What's", "Please"); in a message written in lower case, the
words after a cue ("research fernhill supermarkets") that end in a company word. Each
candidate is scored:

- +3 when its last word is a company word (Foods, Supermarkets, Airlines, Pharma, Ltd...),
  +1 when another of its words is;
- +2 after a cue ("on", "about", "into", "research", "does", "has", "is"...);
- +1 at the start of the message, +1 for two words or more;
- -3 after a place word ("in", "from", "to", "across"...) unless it has a company word;
- out: acronyms and words that are never companies (EU, USDA, CITES, months...) and
  jurisdictions.

The best candidate with a score of at least 1 wins (the earliest on a tie): none is better
than a place or a product line taken for a company.

A message is scanned once (``_scan``, a reading of ``common.language.message``): the intent
model's features (``sure_company``), the entity rules and the assistant's lookup with the
tables' names (``company_name``) read the same candidates and the gazetteer's words, and both
are assembled from the message's atoms (``common.language.names.words_of``), which the people
finder of the personal-data screen reads too.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from common.language import gazetteer, lexicon, names, organisations
from common.language.message import Message, annotate

MIN_SCORE = 1
SURE = 3  # a candidate ending in a company word ("Harlow Foods") before a gazetteer name
# A name's word: a letter of the Latin scripts or a digit, then letters, digits and "_'.&+-"
# ("AT&T", "Co-op", "harlowfoods.co.uk", "3M"); "&" alone between words.
_OPENS = re.compile(r"[A-Za-z0-9\u00c0-\u024f]")
_WITHIN = frozenset("_'\u2019.&+-")
_AMPERSAND = frozenset({"&"})
_AMPERSAND_ALONE = re.compile("&")
_POSSESSIVE = re.compile(r"(?:['\u2019]s|(?<=s)['\u2019])$")
# In a message in lower case: up to five words after a cue, each opening with a lower-case
# letter or a digit ("tallow & sons tannery").
_LOWER_OPENS = re.compile(r"[a-z0-9]")
_LOWER_WITHIN = frozenset("_'\u2019&.-")
_LOWER_RUN_WORDS = 5
_BEFORE_WITHIN = frozenset("_'\u2019")  # the word before a name: letters, digits and "_'"
_IN_A_WORD = re.compile(r"[\w'\u2019]+")


@dataclass(frozen=True)
class Candidate:
    name: str
    start: int  # character offset in the message
    words: tuple[str, ...]

    def score(self, message: Message) -> int:
        words = lexicon.entities()
        text = message.text
        company = {w.lower().rstrip(".") for w in self.words} & organisations.company_words()
        last = self.words[-1].lower().rstrip(".")
        points = 0
        if last in organisations.company_words():
            points += 3
        elif company:
            points += 1
        before = _word_before(message, self.start)
        if before in words.company_cues:
            points += 2
        if not text[: self.start].strip(" \"'\u201c\u2018"):
            points += 1
        if len(self.words) >= 2:
            points += 1
        if before in words.place_words and not company:
            points -= 3
        return points


@dataclass(frozen=True)
class _Scan:
    """What a message names as a company, read once: the first name the curated gazetteer
    knows, and each candidate of the rules as (score, -start, name)."""

    found: gazetteer.Found | None
    scored: list[tuple[int, int, str]]


def _scan(message: Message) -> _Scan:
    """The message's companies (a reading of ``common.language.message``: the intent
    model's features, the entity rules and the assistant share it)."""
    scored = [(c.score(message), -c.start, c.name) for c in candidates(message)]
    return _Scan(gazetteer.find(message), scored)


def named_spans(text: str | Message) -> list[tuple[int, int]]:
    """Where the message names something as a company might be named (the rules' candidates,
    every run of capitalised words among them, and the gazetteer's name), read from its
    annotation: the names the private-requests classifier masks."""
    scan = annotate(text).read(_scan)
    spans = [(-start, -start + len(name)) for _, start, name in scan.scored]
    if scan.found is not None:
        spans.append((scan.found.start, scan.found.start + len(scan.found.name)))
    return spans


def company_name(text: str | Message, known: gazetteer.Index | None = None) -> str | None:
    """The company the message names, or None: a company the gazetteer knows (the curated
    list, and ``known``: the caller's table names), unless a name the rules score as surely a
    company's (it ends in a company word) comes first; else the rules' best."""
    message = annotate(text)
    scan = message.read(_scan)
    found = gazetteer.find(message, known) if known else scan.found
    best = max(scan.scored, default=None)
    if found is not None:
        if best is not None and best[0] >= SURE and -best[1] < found.start:
            return best[2]
        return found.name
    return best[2] if best is not None and best[0] >= MIN_SCORE else None


def sure_company(text: str | Message) -> tuple[int, str] | None:
    """(start, name) of a company the message surely names: one the gazetteer knows, or a
    name the rules score as a company's (it ends in a company word); the earliest."""
    scan = annotate(text).read(_scan)
    sure = [(-start, name) for score, start, name in scan.scored if score >= SURE]
    if scan.found is not None:
        sure.append((scan.found.start, scan.found.name))
    return min(sure, default=None)


def candidates(text: str | Message) -> list[Candidate]:
    message = annotate(text)
    found = _capitalised(message)
    if not found:
        found = _lower_case(message)
    return found


def _capitalised(message: Message) -> list[Candidate]:
    """Runs of capitalised words (and "&" between them), cut after a possessive."""
    found = names.words_of(message, _OPENS, within=_WITHIN, alone=_AMPERSAND_ALONE, inside=True)
    runs = names.capitalised_runs(
        message.text, found, capital=_capital, connectors=_AMPERSAND, stops_after=_possessive
    )
    schemes = lexicon.entities().scheme_words
    return [
        c
        for run in runs
        if (c := _candidate(run)) is not None
        and _next_word(message.text, run[-1].start + len(run[-1].text)) not in schemes
    ]


def _next_word(text: str, end: int) -> str:
    """The word after ``end`` in lower case ("End the Cage Age initiative": "initiative")."""
    after = re.match(r"\s+([\w'-]+)", text[end:])
    return after.group(1).lower() if after else ""


def _capital(word: str) -> bool:
    """A capitalised word, or one of digits and letters ("3M")."""
    return word[0].isupper() or (word[0].isdigit() and any(c.isalpha() for c in word))


def _possessive(word: str, following: str) -> bool:
    """A possessive ends a name ("Dunmore Dairy's herds"), unless a company word follows it
    ("Pellman's Burgers")."""
    next_word = _POSSESSIVE.sub("", following).rstrip("'\u2019.,;:").lower()
    brand = following[:1].isupper() and next_word in organisations.company_words()
    return _POSSESSIVE.search(word) is not None and not brand


def _candidate(run: list[names.Word]) -> Candidate | None:
    words = lexicon.entities()
    stop = lexicon.not_names()
    while run and (run[0].text in stop or run[0].text == "&" or run[0].text == "The"):
        run = run[1:]
    if not run:
        return None
    tokens = [w.text for w in run]
    tokens[-1] = _POSSESSIVE.sub("", tokens[-1]).rstrip("'\u2019")
    tokens[-1] = tokens[-1].rstrip(",;:") if tokens[-1] else tokens[-1]
    if (
        tokens[-1].endswith(".")
        and tokens[-1].lower().rstrip(".") not in organisations.company_words()
    ):
        tokens[-1] = tokens[-1].rstrip(".")
    tokens = [t for t in tokens if t]
    if not tokens:
        return None
    if len(tokens) == 1 and (tokens[0] in words.not_companies or tokens[0] in stop):
        return None
    if all(t in words.not_companies or t == "&" for t in tokens):
        return None
    if tokens[-1].lower() in words.scheme_words:
        return None  # "the Better Chicken Commitment": a scheme, not a company
    name = " ".join(tokens)
    return Candidate(name, run[0].start, tuple(t for t in tokens if t != "&"))


def _lower_case(message: Message) -> list[Candidate]:
    """In a message with no capitalised name: the words after a cue, up to the last company
    word before punctuation ("look into tallow & sons tannery, they..." -> "tallow & sons
    tannery")."""
    endings = organisations.company_words()
    lower = {w.start: w for w in names.words_of(message, _LOWER_OPENS, within=_LOWER_WITHIN)}
    found = []
    for _, after in names.after_words(message, lexicon.entities().company_cues):
        tokens = names.spaced_run(message, lower, after.start, _LOWER_RUN_WORDS)
        while tokens and tokens[0].text in ("the", "a", "an"):
            tokens = tokens[1:]
        ends = [i for i, t in enumerate(tokens) if t.text.lower().rstrip(".,") in endings]
        if ends and ends[-1] >= 1:
            kept = [t.text for t in tokens[: ends[-1] + 1]]
            kept[-1] = kept[-1].rstrip(",")
            words = tuple(t for t in kept if t != "&")
            found.append(Candidate(" ".join(kept), tokens[0].start, words))
    return found


def _word_before(message: Message, start: int) -> str:
    """The last word of the text before ``start`` in lower case: letters, digits, "_" and
    apostrophes, read from the atoms before it (and the part before ``start`` of the one it
    opens inside)."""
    pieces = message.read(names.atoms)
    last = bisect_left(pieces, start, key=lambda atom: atom.start) - 1  # the atom before it

    def in_word(atom: names.Word) -> bool:
        return atom.text[0].isalnum() or atom.text in _BEFORE_WITHIN

    while last >= 0 and not in_word(pieces[last]):
        last -= 1
    if last < 0:
        return ""
    first = last
    while first > 0 and pieces[first - 1].end == pieces[first].start and in_word(pieces[first - 1]):
        first -= 1
    word = message.text[pieces[first].start : min(pieces[last].end, start)].lower()
    # Lower case can part a word ("İ" is "i" and a combining dot): its last part is the word.
    parts = _IN_A_WORD.findall(word)
    return parts[-1] if parts else ""
