"""A draft someone else wrote (a provider's), checked sentence by sentence against the passages
it was given (issue 46, decision 0082).

Each sentence is either the writer's own (an opening, a call to action, a greeting: it claims
nothing beyond the request's words and the frame's, ``data/content/drafts.toml``) or a claim.
A claim is kept when the passages hold it: of its words beyond the request's and the frame's,
at least ``HELD`` are in the passage sentence that holds most of them (read with the sentence
before it) and a second one that adds to it, and every number (with what it counts),
quotation, name, identifier ("717A.3B") and strong word it carries (``checked`` in
drafts.toml: "all", "banned", "never"...) is theirs too, spelled numbers read as figures. Then
what the claim binds together must be bound in the passages too (decision 0090): no figure of
the same kind stands more closely among the claim's words than the claim's own ("a default of
39 kg" where 33 is the default), the sentence holding a figure gives it to no other name ("in
2020 the Netherlands ordered", where Denmark did), one name's thing is not another's ("the
Health Department's Animal Care Program"), and nothing the passages only deny is stated ("has
statutory powers" against "has no statutory powers"). A claim they do not hold is dropped;
``bench/claims.py`` counts what still passes (a fact moved to a name the passages also give
it, an exception left out). Kept claims are cited to the passage sentence that holds most of
their words.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from common.language.index import terms
from common.language.sentences import split
from functions.content.compose import Citation, Fact, Passage, cite
from functions.content.texts import drafts

HELD = 0.7  # share of a claim's own words its passage sentences must hold (bench/claims.py)
SUPPORTING = 2  # passage sentences a claim may draw on together (a merge)
NEIGHBOURS = 4  # words either side of a strong word that it is read with (``_strong_bound``)
HEDGED = 8  # words after a passage's hedge that it hedges (``_hedge_dropped``)
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
# a name that carries a figure: a section, a regulation, a case number ("717A.3C", "2007/43/EC")
_IDENTIFIER = re.compile(r"(?<![\w.])(?=[\w./]*\d)(?=[\w./]*[^\W\d_])\w+(?:[./]\w+)*")
# an identifier, a figure, a word (hyphens kept inside it) or what ends a clause, in order
_TOKEN = re.compile(
    rf"({_IDENTIFIER.pattern})|(\d+(?:[.,]\d+)*%?)|([^\W\d_](?:[\w'\u2019]|-(?=\w))*)"
    r"|([,;:()\u2013\u2014])"
)
# a name's possession of another ("CDFA's Animal Care Program"): the two are held together
_POSSESSED = re.compile(r"([A-Z][\w&-]*)['\u2019]s\s+([A-Z][\w&-]*)")
WINDOW = 16  # the terms on either side of a figure or a name read with it (linear in a sentence)
CLAUSE = 4.0  # how far apart, in words, the end of a clause sets the words on either side
RIVAL = 1.1  # how much more closely a rival must stand among a claim's words (bench/claims.py)
NEAR = 2  # words after a negator it denies ("has no special statutory powers")


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


def _counted(text: str, ahead: int = 1) -> set[tuple[str, str]]:
    """Each number with what it counts: the term of the word after it, "%", or "" (a year, a
    number at the end of a clause, or one followed by a word of no count, "is", "must",
    "more"). "3 million" is not held by a text with "3 for cages" and "1.4 million". With
    ``ahead`` 2, each of the two words after it counts (for the passages: "5 consecutive
    hours" holds "5 hours")."""
    found: set[tuple[str, str]] = set()
    slight = _slight()
    for match in _COUNTED.finditer(text):
        number = match.group(1).replace(",", "")
        if _YEAR.fullmatch(number):  # a year is itself what it counts
            found.add((number, ""))
            continue
        if match.group(2):
            found.add((number, "%"))
            continue
        words = re.findall(r"[A-Za-z]+|[^\sA-Za-z]", text[match.end(1) :])[: ahead + 2]
        counts = [""]
        for word in words:
            found_terms = terms(word) if word.isalpha() else []
            if not found_terms or found_terms[0] in slight:
                if ahead == 1 or not word.isalpha():
                    break
                continue  # the passage's "5 of the", "9 laying hens": look on
            counts.append(found_terms[0])
            if len(counts) > ahead:
                break
        if ahead == 1:
            found.add((number, counts[1] if len(counts) > 1 else ""))
        else:
            found |= {(number, count) for count in counts}
    return found


def _held_numbers(sentence: str, text: str) -> bool:
    """Whether each number of ``sentence`` is in ``text`` counting the same thing (or alone
    there), e.g. "750 square" in "750 square centimetres"."""
    there = _counted(text, ahead=2)
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


def _strong_held(sentence: str, there: set[str]) -> bool:
    """Whether each strong word of ``sentence`` is in ``there``, or one that says as much
    (``checked.alike``: "every" for "each")."""
    alike = drafts().checked.alike
    return all(
        word in there or any(word in group and group & there for group in alike)
        for word in _strong(sentence)
    )


def _strong_bound(sentence: str, text: str) -> bool:
    """Whether each strong word of ``sentence`` stands, in a sentence of ``text`` that holds
    it (or one that says as much), among at least a third of the claim's terms within
    ``NEIGHBOURS`` words of it: "courts must deprive owners" is not held by "courts can
    deprive owners" beside "inspectors must rely on consent" (decision 0091)."""
    alike = drafts().checked.alike
    words = _fold(sentence).split()
    held = [set(_fold(one).split()) for one in split(text)]
    for i, word in enumerate(words):
        if word not in drafts().checked.strong:
            continue
        near = set(terms(" ".join(words[max(0, i - NEIGHBOURS) : i + NEIGHBOURS + 1])))
        same = {word}.union(*(group for group in alike if word in group))
        there = [one for one in held if one & same]
        need = len(near) / 3
        if not any(len(near & set(terms(" ".join(one)))) >= need for one in there):
            return False
    return True


def _hedge_dropped(sentence: str, text: str) -> bool:
    """Whether the passage sentence of ``text`` that holds the most of ``sentence``'s terms
    hedges what it says (a word of ``checked.hedges``, "can", "may", "estimated",
    "possibility", before two or more of the claim's terms within ``HEDGED`` words; not
    "may not", which forbids) and the claim hedges nothing: "Ziegler is a lawful excuse" for
    "can, on the facts, amount to a lawful excuse" (decision 0091)."""
    hedges, negators = drafts().checked.hedges, drafts().checked.negators
    if set(_fold(sentence).split()) & hedges:
        return False
    said = set(terms(figures(sentence)))
    holding = max(split(text), key=lambda one: len(said & set(terms(one))), default="")
    words = _fold(holding).split()
    for i, word in enumerate(words):
        if word not in hedges or (i + 1 < len(words) and words[i + 1] in negators):
            continue  # "may not confine" forbids; it hedges nothing
        hedged = set(terms(" ".join(words[i + 1 : i + 1 + HEDGED])))
        if len(hedged & said) >= 2:  # what it hedges is what the claim says
            return True
    return False


@cache
def _spelled() -> tuple[re.Pattern[str], dict[str, int]]:
    """The spelled numbers of ``checked.units`` and ``checked.tens`` ("twenty-eight" too), and
    their values."""
    checked = drafts().checked
    values = {word: n for n, word in enumerate(checked.units.split())}
    tens = checked.tens.split()
    values |= {word: 20 + 10 * n for n, word in enumerate(tens)}
    ones = "|".join(checked.units.split()[1:10])
    compound = rf"(?:{'|'.join(tens)})[- ](?:{ones})"
    words = "|".join(sorted(values, key=len, reverse=True))
    return re.compile(rf"\b(?:{compound}|{words})\b", re.IGNORECASE), values


def figures(text: str) -> str:
    """``text`` with its spelled numbers written as figures ("four weeks" -> "4 weeks",
    "Twenty-Eight Hour Law" -> "28 Hour Law"), so that a claim and a passage compare them."""
    pattern, values = _spelled()

    def value(match: re.Match[str]) -> str:
        parts = re.split(r"[- ]", match.group().lower())
        return str(sum(values[part] for part in parts))

    return pattern.sub(value, text)


@dataclass(frozen=True)
class _Anchor:
    """A figure or a name of a text, with the words of its sentence around it."""

    value: str  # the figure ("1.8", "2024") or the name's term
    kinds: frozenset[str]  # {"year"}, {"name"}, {"%"}, or what the figure counts and the word
    # before it ("^section" for "section 314"): its rivals share one
    near: dict[str, float]  # the sentence's other terms, weighted 1 / how far apart (_items)
    place: tuple[int, int]  # (passage, sentence) it stands in


def _items(sentence: str, common: frozenset[str]) -> list[tuple[float, str, bool, bool]]:
    """A sentence's terms, each (place, term, is a figure, is a name) in reading order: the
    place counts the terms before it, and ``CLAUSE`` more for each end of a clause before it
    (a comma, a colon, a bracket, a dash or a word of ``checked.joins``). A capitalised word
    is a name; the sentence's first only when ``common`` (words written in lower case around
    it) lacks it ("Australia legislated", not "Regulations made")."""
    joins = drafts().checked.joins
    found: list[tuple[float, str, bool, bool]] = []
    place = 0.0
    for match in _TOKEN.finditer(sentence):
        identifier, figure, word, stop = match.groups()
        if stop or (word and word.lower() in joins):
            place += CLAUSE
        elif identifier:
            found.append((place, _fold(identifier), False, True))
            place += 1
        elif figure:
            found.append((place, figure.replace(",", ""), True, False))
            place += 1
        else:
            named = word[0].isupper() and (match.start() > 0 or word.lower() not in common)
            found += [(place, term, False, named) for term in terms(word)]
            place += 1
    return found


@cache
def _slight() -> frozenset[str]:
    """The terms of ``checked.slight``: words that stand by figures of every kind ("at least",
    "up to", "must") and so tell nothing of which thing a figure belongs to."""
    return frozenset(term for word in drafts().checked.slight for term in terms(word))


@cache
def _clauses() -> re.Pattern[str]:
    """Where a clause ends: a comma, a colon, a bracket or a word of ``checked.joins``."""
    joins = "|".join(sorted(drafts().checked.joins))
    return re.compile(rf"[,;:()]|\b(?:{joins})\b", re.IGNORECASE)


@cache
def _heads() -> frozenset[str]:
    """The terms of the nouns that end the name of a law, a court or a body (``dangling``:
    "Act", "Directive", "Court", "Commission"...)."""
    return frozenset(term for word in drafts().dangling for term in terms(word))


def _head(items: list[tuple[float, str, bool, bool]], i: int, heads: frozenset[str]) -> str:
    """The noun of ``heads`` that ends the run of capitalised words ``items[i]`` opens or
    stands in ("act" for "Lacey" in "the Lacey Act"), or ""."""
    j = i
    while j + 1 < len(items) and items[j + 1][3] and items[j + 1][0] - items[j][0] == 1:
        j += 1
    return items[j][1] if j > i and items[j][1] in heads else ""


def _lower_words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"(?<![\w'\u2019-])[a-z][\w'\u2019-]*", text))


def _anchors(text: str, common: frozenset[str], passage: int = 0) -> list[_Anchor]:
    """The figures and names of ``text``, each with the words of its sentence around it."""
    found: list[_Anchor] = []
    slight = _slight()
    heads = _heads()
    for number, sentence in enumerate(split(figures(text))):
        items = _items(sentence, common)
        for i, (place, term, figure, named) in enumerate(items):
            if not (figure or named):
                continue
            near: dict[str, float] = {}
            for other_place, other, _, _ in items[max(i - WINDOW, 0) : i + WINDOW + 1]:
                if other != term and other_place != place and other not in slight:
                    weight = 1 / abs(other_place - place)
                    near[other] = max(near.get(other, 0.0), weight)
            if not figure:
                kinds = {"name"}
                head = _head(items, i, heads)
                if head:
                    kinds.add(f"name:{head}")  # "Lacey" of "the Lacey Act": a law's name
            elif _YEAR.fullmatch(term):
                kinds = {"year"}
            elif term.endswith("%"):
                kinds = {"%"}
            else:
                before = items[i - 1] if i else None
                kinds = set()
                for after in items[i + 1 : i + 3]:  # "5 consecutive hours" counts hours
                    if after[0] - place > 2 or after[2] or after[1] in slight:
                        break
                    kinds.add(after[1])
                if before and before[0] == place - 1 and not before[2] and before[1] not in slight:
                    kinds.add(f"^{before[1]}")
            for kind in kinds:
                near.pop(kind.lstrip("^"), None)  # shared by all its rivals: no evidence
            found.append(_Anchor(term.rstrip("%"), frozenset(kinds), near, (passage, number)))
    return found


def _closeness(a: _Anchor, b: _Anchor, rare: dict[str, float]) -> float:
    """How closely ``b`` stands among ``a``'s words: their shared terms, each weighted by its
    closeness to both and by how rare it is in the passages (``rare``: "at least" stands by
    most figures, "usable area" by one)."""
    return sum(
        weight * b.near[term] * rare.get(term, 1.0)
        for term, weight in a.near.items()
        if term in b.near
    )


def _denied(text: str) -> tuple[set[str], set[str]]:
    """The terms ``text`` denies (the ``NEAR`` words after a negator of ``checked.negators``,
    in its clause) and those it states."""
    negators = drafts().checked.negators
    limits = drafts().checked.limits
    slight = _slight()
    denied: set[str] = set()
    stated: set[str] = set()
    for sentence in split(text):
        for clause in _clauses().split(sentence):
            words = clause.split()
            left = 0
            for word in words:
                if word.lower().strip(".") in negators or word.lower().endswith("n't"):
                    left = NEAR
                    continue
                if left and word.lower() in limits:
                    left = 0  # "no more than 14%" sets a limit; it denies nothing
                    continue
                found = {term for term in terms(word) if not term[0].isdigit()} - slight
                if not found:
                    continue
                (denied if left else stated).update(found)
                left = max(left - 1, 0)
    return denied, stated


class Checker:
    """The check of one draft: the passages it was given and the request's own words."""

    def __init__(
        self, passages: Sequence[Passage], request: Sequence[str], addressed: str | None = None
    ) -> None:
        self.passages = list(passages)
        self.sentences = [split(p.text) for p in self.passages]
        # each passage sentence with the one before it (a sentence may lean on it: "It does
        # not apply to...")
        # (spelled numbers read as figures, as in the claims they are compared with)
        read = [
            (i, figures(f"{before} {sentence}".strip()))
            for i, sentences in enumerate(self.sentences)
            for before, sentence in zip(["", *sentences], sentences, strict=False)
        ]
        self.units = [(i, text, set(terms(text))) for i, text in read]
        # the (passage, sentence) places each unit reads
        self.places = [
            {(i, k - 1), (i, k)}
            for i, sentences in enumerate(self.sentences)
            for k in range(len(sentences))
        ]
        self.common = _lower_words(" ".join(p.text for p in self.passages))
        self.anchors = [
            anchor
            for i, passage in enumerate(self.passages)
            for anchor in _anchors(passage.text, self.common, i)
        ]
        # how rare each term is among the passages' sentences: log(sentences / those with it)
        counted = Counter(
            term
            for sentences in self.sentences
            for one in sentences
            for term in terms(figures(one))
        )
        total = sum(len(sentences) for sentences in self.sentences)
        self.rare = {term: math.log((total + 1) / n) for term, n in counted.items()}
        self.named: dict[tuple[int, int], set[str]] = {}
        for anchor in self.anchors:
            if "name" in anchor.kinds:
                self.named.setdefault(anchor.place, set()).add(anchor.value)
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

    def _closest(self, anchor: _Anchor) -> tuple[float, _Anchor | None]:
        """How closely the passages' own occurrence of ``anchor`` stands among its words, and
        that occurrence."""
        own = [b for b in self.anchors if b.value == anchor.value and b.kinds & anchor.kinds]
        if not own:
            return 0.0, None
        best = max(own, key=lambda b: _closeness(anchor, b, self.rare))
        return _closeness(anchor, best, self.rare), best

    def misbound(self, sentence: str, places: set[tuple[int, int]]) -> bool:
        """Whether a figure or a law's name of the claim belongs, in the passages, to other
        words than the claim gives it. In the passage sentences that hold the claim
        (``places``), ``RIVAL`` times more closely among the claim's words than its own
        stands: another law, court or body of the same kind ("the Lacey Act" where the
        Endangered Species Act implements the treaty), or another figure of its kind (a year,
        or a figure counting the same thing: "a default maximum of 39 kg" where 33 is the
        default and 39 the derogation; "entered into force in 1973" where 1973 is when it was
        agreed). Or the sentence that holds the figure gives it to a name the claim does not
        use, standing among the claim's words more closely than the claim's own name does in
        the passages ("in November 2020 the Netherlands ordered the culling", where Denmark
        did). Or, for a name of no kind the passages give, another name stands among its words
        ``RIVAL`` times more closely than its own occurrence ("Ofcom regulates newspapers"
        where IPSO does, decision 0091)."""
        claimed = _anchors(sentence, self.common | _lower_words(sentence))
        values = {a.value for a in claimed}
        names = [a for a in claimed if "name" in a.kinds and a.value not in self.allowed]
        for name in names:
            headed = {kind for kind in name.kinds if kind.startswith("name:")}
            if not headed:
                held, own = self._closest(name)
                if own is None:
                    continue
                rivals = (  # in another sentence than its own: one sentence says it of it
                    b
                    for b in self.anchors
                    if b.kinds == {"name"}
                    and b.value not in values
                    and b.place in places
                    and b.place != own.place
                )
                if any(_closeness(name, b, self.rare) > RIVAL * held for b in rivals):
                    return True  # what the passages say of one body, given to another
                continue  # (decision 0091: the APHA for the RSPCA, Ofcom for IPSO)
            held, _ = self._closest(name)
            rivals = (
                b
                for b in self.anchors
                if b.kinds & headed and b.value not in values and b.place in places
            )
            if any(_closeness(name, b, self.rare) > RIVAL * held for b in rivals):
                return True  # one law or court in another's place
        for a in claimed:
            if not a.kinds or "name" in a.kinds:
                continue  # a figure of no kind the claim says
            best, found = self._closest(a)
            rivals = (
                b
                for b in self.anchors
                if b.kinds & a.kinds and b.value not in values and b.place in places
            )
            if any(_closeness(a, b, self.rare) > RIVAL * best for b in rivals):
                return True
            if found is None:
                continue
            there = [
                b
                for b in self.anchors
                if b.place == found.place and "name" in b.kinds and b.value not in values
            ]
            for name in names:
                if name.value in self.named.get(found.place, set()):
                    continue
                held, _ = self._closest(name)
                if any(_closeness(name, b, self.rare) > RIVAL * held for b in there):
                    return True
        return False

    def support(self, sentence: str) -> list[int] | None:
        """The passages that hold ``sentence`` (indexes), or None when none do: the claim is
        held by one passage sentence, or by two that each add words of it (a merge)."""
        sentence = figures(sentence)
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
        if not _held_numbers(sentence, f"{text} {figures(self.request)}"):
            return None
        if any(_fold(quote) not in folded for quote in _QUOTED.findall(sentence)):
            return None
        if not _names(sentence) - self.allowed <= held:
            return None
        if self.addressed and self.addressed <= said and not self.addressed <= held:
            return None  # what it says of the organisation addressed, no passage says
        if not _strong_held(sentence, set(folded.split()) | self.request_words):
            return None
        if not _strong(sentence) <= self.request_words and not _strong_bound(sentence, text):
            return None  # a strong word the passages give to other words ("must" for "can")
        given = _fold(f"{text} {self.request}")
        if any(_fold(name) not in given for name in _IDENTIFIER.findall(sentence)):
            return None  # a section or a regulation the passages do not name
        if any(f"{_fold(a)} s {_fold(b)}" not in folded for a, b in _POSSESSED.findall(sentence)):
            return None  # one name's thing given to another
        denied, stated = _denied(text)
        claim_denied, claim_stated = _denied(sentence)
        if not claim_denied and (denied - stated) & claim_stated:
            return None  # what the passages only deny, stated (a claim that denies, paraphrases)
        if self.misbound(sentence, set().union(*(self.places[u] for u in chosen))):
            return None
        if _hedge_dropped(sentence, text):
            return None  # what the passage hedges, stated as certain
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
