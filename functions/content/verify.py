"""A draft someone else wrote (a provider's), checked sentence by sentence against the passages
it was given (issue 46, decision 0082).

Each sentence is either the writer's own (an opening, a call to action, a greeting: it claims
nothing beyond the request's words and the frame's, ``data/content/drafts.toml``) or a claim.
A claim is kept when the passages hold it: of its words beyond the request's and the frame's,
at least ``HELD`` are in the passage sentence that holds most of them (read with the sentence
before it) and a second one that adds to it, and every number (with what it counts),
quotation, name and strong word it carries (``checked`` in drafts.toml: "all", "banned",
"never"...) is theirs too. A claim they do not hold is dropped. Words cannot tell which thing
a number belongs to: a figure the passages give for something else, or a fact moved to another
law they name, can still pass (``bench/claims.py`` counts them). Kept claims are cited to the
passage sentence that holds most of their words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from common.language.index import terms
from common.language.sentences import split
from functions.content.compose import Citation, Fact, Passage, cite
from functions.content.texts import drafts

HELD = 0.7  # share of a claim's own words its passage sentences must hold (bench/claims.py)
SUPPORTING = 2  # passage sentences a claim may draw on together (a merge)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"1[89]\d\d|20\d\d")
# a number and the word after it, when one follows ("3 million", "750 square", "2025 deadline")
_COUNTED = re.compile(r"(\d+(?:[.,]\d+)*)(?:\s*(%)|\s+([A-Za-z]+))?")
# what frames a sentence and claims nothing: a list's marker ("1.", "-"), a thread's counter
# ("2/5") at the end, hashtags of words ("#CageFree"; "#1200" is a number and is checked)
_MARKER = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*\u2022])\s+")
_COUNTER = re.compile(r"\s+\d{1,2}/\d{1,2}\s*$")
_HASHTAG = re.compile(r"(?<!\S)#\w*[^\W\d_]\w*")
_SPEAKER = frozenset({"i", "we", "i'm", "we're", "i'd", "we'd", "our", "my"})  # the writer's
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{3,})[\"\u201d]")
_NAME = re.compile(r"(?<![\w'\u2019])[A-Z][\w'\u2019&-]*")
_FOLD = re.compile(r"[^\w%]+")


@dataclass(frozen=True)
class Checked:
    """A text with the claims its passages do not hold taken out."""

    text: str
    kept: list[str]  # the claims kept
    dropped: list[str]  # the claims taken out
    citations: list[Citation]
    used: list[int]  # the passages (indexes) that hold the kept claims, in order of first use


@cache
def _frame_terms() -> frozenset[str]:
    """The words of every text the service's own frame writes (openings, asks, intros, the
    frame of each content type): a sentence made only of these and the request's claims
    nothing."""
    texts = drafts()
    written: list[str] = [
        *(line for tone in texts.tone.values() for line in (*tone.hooks, tone.ask, tone.intro)),
        *texts.default_cta.values(),
        *(value for value in texts.frame.model_dump().values() if isinstance(value, str)),
        *(value for value in texts.committed.model_dump().values() if isinstance(value, str)),
        *texts.checked.own,
    ]
    return frozenset(term for line in written for term in terms(line))


def _fold(text: str) -> str:
    plain = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return " ".join(_FOLD.sub(" ", plain).split())


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def _counted(text: str) -> set[tuple[str, str]]:
    """Each number with what it counts: the term of the word after it, "%", or "" (a year, or
    a number at the end of a clause). "3 million" is not held by a text with "3 for cages"
    and "1.4 million"."""
    found: set[tuple[str, str]] = set()
    for match in _COUNTED.finditer(text):
        number, percent, word = match.groups()
        if _YEAR.fullmatch(number):  # a year is itself what it counts
            after = ""
        elif percent:
            after = "%"
        else:
            after = (terms(word) or [word.lower()])[0] if word else ""
        found.add((number.replace(",", ""), after))
    return found


def _held_numbers(sentence: str, text: str) -> bool:
    """Whether each number of ``sentence`` is in ``text`` counting the same thing (or alone
    there), e.g. "750 square" in "750 square centimetres"."""
    there = _counted(text)
    alone = {number for number, _ in there}
    return all(
        (number, after) in there or (not after and number in alone)
        for number, after in _counted(sentence)
    )


def _names(sentence: str) -> set[str]:
    """The terms of the capitalised words of a sentence after its first word."""
    found: set[str] = set()
    for match in _NAME.finditer(sentence):
        if match.start() == 0 or sentence[: match.start()].rstrip().endswith((".", ":", "!", "?")):
            continue
        found.update(terms(match.group()))
    return found


def _bare(sentence: str) -> str:
    """A sentence without what frames it (``_MARKER``, ``_COUNTER``, ``_HASHTAG``)."""
    return _HASHTAG.sub("", _COUNTER.sub("", _MARKER.sub("", sentence))).strip()


def empty(text: str) -> bool:
    """Whether a post says nothing once what frames it is set aside (a thread's post left
    with "3/3" or "#CageFree")."""
    return not any(char.isalpha() for line in text.split("\n") for char in _bare(line))


def _strong(sentence: str) -> set[str]:
    words = drafts().checked.strong
    return {word for word in _fold(sentence).split() if word in words}


class Checker:
    """The check of one draft: the passages it was given and the request's own words."""

    def __init__(
        self, passages: Sequence[Passage], request: Sequence[str], addressed: str | None = None
    ) -> None:
        self.passages = list(passages)
        self.sentences = [split(p.text) for p in self.passages]
        # each passage sentence with the one before it (a sentence may lean on it: "It does
        # not apply to...")
        self.units = [
            (i, f"{before} {sentence}".strip(), set(terms(f"{before} {sentence}")))
            for i, sentences in enumerate(self.sentences)
            for before, sentence in zip(["", *sentences], sentences, strict=False)
        ]
        said = " ".join(request)
        self.allowed = set(terms(said)) | _frame_terms()
        self.request = said
        self.request_numbers = _numbers(said)
        self.request_words = set(_fold(said).split())
        self.request_quotes = {_fold(quote) for quote in _QUOTED.findall(said)}
        self.addressed = set(terms(addressed)) if addressed else set()

    def own(self, sentence: str) -> bool:
        """Whether a sentence claims nothing. It carries no number, quotation or strong word
        the request does not give, and either has no words beyond the request's and the
        frame's, or is an ask: it opens with a verb of ``checked.asks`` and has no other word
        beyond them ("Ask your supermarket to go cage-free."). A sentence that names the
        organisation addressed says something of it unless it asks or speaks for the writer
        ("Brightwell Supermarkets has already committed" is a claim)."""
        if not _numbers(sentence) <= self.request_numbers:
            return False
        if any(_fold(quote) not in self.request_quotes for quote in _QUOTED.findall(sentence)):
            return False
        if not _strong(sentence) <= self.request_words:
            return False
        said = set(terms(sentence))
        first = (_fold(sentence).split() or [""])[0]
        asking = first in drafts().checked.asks
        if self.addressed and self.addressed <= said and not (asking or first in _SPEAKER):
            return False
        extra = said - self.allowed
        return not extra or (asking and extra <= set(terms(first)))

    def support(self, sentence: str) -> list[int] | None:
        """The passages that hold ``sentence`` (indexes), or None when none do: the claim is
        held by one passage sentence, or by two that each add words of it (a merge)."""
        said = set(terms(sentence))
        extra = said - self.allowed
        if not self.units:
            return None
        ranked = sorted(range(len(self.units)), key=lambda u: -len(extra & self.units[u][2]))
        chosen = ranked[:1]
        for other in ranked[1:SUPPORTING]:
            if extra - self.units[chosen[0]][2] & self.units[other][2]:  # a merge
                chosen.append(other)
        held: set[str] = set().union(*(self.units[u][2] for u in chosen))
        text = " ".join(self.units[u][1] for u in chosen)
        folded = _fold(text)
        if extra and len(extra & held) / len(extra) < HELD:
            return None
        if not _held_numbers(sentence, f"{text} {self.request}"):
            return None
        if any(_fold(quote) not in folded for quote in _QUOTED.findall(sentence)):
            return None
        if not _names(sentence) - self.allowed <= held:
            return None
        if self.addressed and self.addressed <= said and not self.addressed <= held:
            return None  # what it says of the organisation addressed, no passage says
        if not _strong(sentence) <= set(folded.split()) | self.request_words:
            return None
        return list(dict.fromkeys(self.units[u][0] for u in chosen))

    def citation(self, sentence: str, chosen: list[int]) -> Citation:
        """The source of the passage sentence, among the supporting passages', that holds most
        of ``sentence``'s words."""
        said = set(terms(sentence))
        candidates = [
            Fact(text, i, 0.0, position)
            for i in chosen
            for position, text in enumerate(self.sentences[i])
        ]
        best = max(candidates, key=lambda c: len(said & set(terms(c.text))))
        cited = cite([best], self.passages)[0]
        return Citation(sentence, cited.url, cited.title)

    def check(self, text: str) -> Checked:
        """``text`` without the claims the passages do not hold; its line breaks kept."""
        kept: list[str] = []
        dropped: list[str] = []
        found: list[Citation] = []
        used: list[int] = []
        lines: list[str] = []
        for line in text.split("\n"):
            out: list[str] = []
            before = len(dropped)
            for sentence in split(line) if line.strip() else []:
                bare = _bare(sentence)
                if not any(char.isalpha() for char in bare) or self.own(bare):
                    out.append(sentence)  # formatting ("1.", "2/5"), or the writer's own
                    continue
                chosen = self.support(bare)
                if chosen is None:
                    dropped.append(sentence)
                    continue
                out.append(sentence)
                kept.append(sentence)
                found.append(self.citation(bare, chosen))
                used += [i for i in chosen if i not in used]
            if len(dropped) > before and empty(" ".join(out)):
                out = []  # a list item's marker, left alone once its claim is out
            lines.append(" ".join(out) if line.strip() else line)
        kept_lines = [
            line
            for line, given in zip(lines, text.split("\n"), strict=True)
            if line.strip() or not given.strip()
        ]
        checked = re.sub(r"\n{3,}", "\n\n", "\n".join(kept_lines)).strip()
        return Checked(checked, kept, dropped, found, used)
