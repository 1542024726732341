"""Which of a document's sources a sentence comes from (decision 0042).

A knowledge document lists the sources it was written from (its "Sources" section: one line
each, ``- label: URL``), and its front matter names the main one. A fact quoted from it is
cited to the listed source whose label the sentence itself names most distinctively ("section
25992", "National Pork Producers Council v. Ross"), else the court case or the instrument its
paragraph named when it goes on about it ("Writing for the Court, Justice Gorsuch...", "The Act
also ..."), else, when it leans on the sentence before it ("Its recitals state..."), that
sentence's, else the one its section heading names (by two of its label's words, or by the
label's gloss: "Exceptions" names "§ 25992 (exceptions)"), else, for a sentence that defines a
term, the source glossed as definitions, and for one of welfare science, the document's one
scientific source (decision 0087), else the document's main source. A label's words count by how
few of the document's labels share them: "Public Order Act" names every source of a document
about public order law and decides nothing; "section 11" or "25992" decides, and so do two of a
label's words in a row ("DPP v Ziegler"), never words scattered over a sentence (a single
capitalised word is no name of a source either: "Producers" and "Animal" open many). A tie is no
decision: the next rule is asked, and in the end the document's main source is cited,
never a guess between two. A source whose label names a year is never cited for a sentence
that names other years and not that one (the 2007 regulations are not the 2018 ones): the
document's main source is cited instead.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple
from urllib.parse import urlsplit

from common.datafiles import Content, LowerWords, Words, load
from common.language import places
from common.language.index import terms

# A "- label: URL" line of a Sources section (a Markdown link "[label](URL)" is read too).
_LISTED = re.compile(r"^\s*[-*]\s+(?P<label>.+?):\s+(?P<url>https?://\S+)\s*$")
_LINKED = re.compile(r"^\s*[-*]\s+\[(?P<label>[^\]]+)\]\((?P<url>https?://[^)\s]+)\)")
# ... or a Markdown footnote's definition, "[^key]: label: URL", whose key a sentence of the
# document cites by its marker "[^key]" after its stop (decision 0089)
_FOOTNOTE = re.compile(r"^\s*\[\^(?P<key>[\w-]+)\]:\s+(?P<label>.+?):\s+(?P<url>https?://\S+)\s*$")
MARKER = re.compile(r"\[\^([\w-]+)\](?!:)")
_DEFINITION = re.compile(r"^\[\^[\w-]+\]: ", re.MULTILINE)
# A source is named when the text has two of its label's words in a row ("pork producers",
# "section 11", "DPP v Ziegler") or an identifier only its label has ("25992", "1099"), and
# the label's words in the text weigh this much (a word shared by k labels weighs 1/k).
MIN_WEIGHT = 1.0
MIN_IDENTIFIER = 3  # characters of an identifier (a number of one or two digits is a count)
MAX_SOURCES = 30  # per document
# a document of this many sources or more: its main source is no sure default for a sentence
# (decision 0089: wrong for 3% of such sentences of documents of 3 sources, 10-17% of more)
CROWDED = 4
# a year: four digits from 1800 to 2099, not a section's number ("§ 1901"), an amount
# ("£1999") or part of an instrument's number ("Directive 1999/74/EC"); with the word before
# it and whether a plural noun follows ("at 2000 animals")
_YEARS = re.compile(
    r"(?:(\w+) )?(?<![\w.§/£$€-])(?<!§ )(?<!§§ )(?<!section )(?<!sections )(?<!Section )"
    r"(1[89]\d\d|20\d\d)(?![\d/])( [a-z]{3,}s\b)?"
)
# a section of a law: "section 11", "§ 25992", "§§ 1901", "s. 4", "727.8A" after one of those
_SECTION = re.compile(r"(?:\b[Ss]ections?|§§?|\bs\.)\s*(\d(?:[\dA-Za-z.]*[\dA-Za-z])?)")
# ... followed by more of them: a run ("and following", "et seq.", "to 16", "-1907")
_RUN = re.compile(r"\s*(?:and following|et seq|ff\b|(?:to|through|\u2013|-)\s*\d|,?\s*and\s+\d)")
# words a year follows ("in 2012 hens were moved"); a count follows others ("at 2000 animals")
_DATING = frozenset({"in", "since", "by", "from", "until", "before", "after", "of", "during"})


@dataclass(frozen=True)
class Source:
    title: str
    url: str


def listed(lines: Sequence[str]) -> list[Source]:
    """The sources of a "Sources" section's lines, in order, each URL once."""
    found: dict[str, Source] = {}
    for line in lines:
        match = _LISTED.match(line) or _LINKED.match(line) or _FOOTNOTE.match(line)
        if match:
            url = match.group("url").rstrip(".,;")
            found.setdefault(url, Source(match.group("label").strip(), url))
    return list(found.values())[:MAX_SOURCES]


def unfootnoted(text: str) -> str:
    """A guide's text as it reads without footnotes: no markers, and each footnote's
    definition ("[^key]: label: URL") a line of its Sources list ("- label: URL"), for what
    reads the guides' words (decision 0089)."""
    return _DEFINITION.sub("- ", MARKER.sub("", text))


def keyed(lines: Sequence[str]) -> dict[str, Source]:
    """The footnote keys of a "Sources" section's lines and their sources ("[^key]: label:
    URL")."""
    found: dict[str, Source] = {}
    for line in lines:
        match = _FOOTNOTE.match(line)
        if match:
            url = match.group("url").rstrip(".,;")
            found.setdefault(match.group("key"), Source(match.group("label").strip(), url))
    return found


def unmarked(paragraph: str) -> tuple[str, list[tuple[int, str]]]:
    """A paragraph without its footnote markers, and each marker's key with where it stood in
    the text returned (the end of the sentence it follows)."""
    text: list[str] = []
    marks: list[tuple[int, str]] = []
    at, length = 0, 0
    for match in MARKER.finditer(paragraph):
        text.append(paragraph[at : match.start()])
        length += match.start() - at
        marks.append((length, match.group(1)))
        at = match.end()
    text.append(paragraph[at:])
    return "".join(text), marks


def marked(
    sentences: Sequence[str], text: str, marks: Sequence[tuple[int, str]]
) -> dict[str, list[str]]:
    """The keys each of a paragraph's ``sentences`` (substrings of ``text``, in order) is
    marked with: a marker belongs to the last sentence that starts before it."""
    starts: list[int] = []
    located: list[str] = []
    cursor = 0
    for sentence in sentences:
        start = text.find(sentence, cursor)
        if start < 0:
            continue
        starts.append(start)
        located.append(sentence)
        cursor = start + len(sentence)
    found: dict[str, list[str]] = {}
    for at, key in marks:
        index = bisect.bisect_left(starts, at) - 1  # the last sentence starting before it
        if index >= 0 and key not in found.setdefault(located[index], []):
            found[located[index]].append(key)
    return found


class Attribution(NamedTuple):
    """The source a sentence is cited to, and whether that is sure: not the document's main
    source taken by default (no rule named another) in a document of ``CROWDED`` sources or
    more, nor taken because the one a rule chose does not fit (decision 0089)."""

    source: Source | None
    sure: bool


def attributed(
    paragraphs: Sequence[Sequence[str]],
    heading: str,
    sources: Sequence[Source],
    main: Source | None,
    leans: Callable[[str], bool],
    given: Mapping[str, Source] | None = None,
) -> list[list[Attribution]]:
    """The source each sentence of a passage (its paragraphs, each a list of sentences, under
    ``heading``) is cited to, among its document's ``sources`` (decision 0087), and whether
    that is sure (decision 0089): the one the sentence names; else the court case its
    paragraph cited, for a sentence on what the court did (``_decided``; before the paragraph
    names any source, the case it or the next paragraph that names one names after), or the
    instrument its paragraph named, for a sentence that refers to it (``_referred``: "The Act
    also ..."); else, when it leans on the sentence before it
    (``leans``: "Its recitals state..."), that one's, unless that is a scientific source and
    this a sentence of law; else the instrument or body it names by its kind (``_holder``);
    else the one the heading names (``_named`` or ``_glossed``); else, for a definition or
    welfare science, the source of its kind (``_defined``, ``_studied``, ``_staged``); else
    ``main``, the document's own, by default. A source that does not fit the sentence
    (``fits``) gives way to ``main``. A document that marks its sentences with footnotes
    (``given``: each marked sentence and the source its first marker names) is asked no rule:
    a marked sentence is cited to its source, surely; an unmarked one to the document itself,
    not surely (decision 0089)."""
    if given is not None:
        return [
            [
                Attribution(given[s], True) if s in given else Attribution(None, False)
                for s in paragraph
            ]
            for paragraph in paragraphs
        ]
    fallback = main if main is not None else (sources[0] if len(sources) == 1 else None)
    if len(sources) < 2:
        return [[Attribution(fallback, True) for _ in paragraph] for paragraph in paragraphs]
    crowded = len(sources) >= CROWDED
    headed = _named(heading, sources) or _glossed(heading, sources)
    # a section on a law ("The EU Directive on laying hens") is the law's, whatever its words
    scientific = sources if _words("legal").isdisjoint(_sequence(heading)) else ()
    found: list[list[Attribution]] = []
    # the court case each paragraph names first
    first_cases = [_first_case(paragraph, sources) for paragraph in paragraphs]
    for index, paragraph in enumerate(paragraphs):
        row: list[Attribution] = []
        about: Source | None = None  # the source the paragraph last named
        # the case the paragraph names first, or the next paragraph of the passage that names
        # one: what its court did, told before it is named ("Animal protection groups
        # challenged the law in federal court. ... On appeal, in ... v. Reynolds ...")
        ahead = next((c for c in first_cases[index:] if c is not None), None)
        for sentence in paragraph:
            # what the paragraph's case decided, or the source it named for a sentence that
            # refers to it ("The Act also ..."), before the sentence it leans on
            case = about if about is not None and _CASE.search(about.title) else None
            case = case or (ahead if about is None else None)
            again = _decided(sentence, case) or _referred(sentence, about if not case else None)
            leaned = row[-1] if row and leans(sentence) else None
            # a sentence of law does not lean on a scientific source ("For these reasons most
            # ... policies treat enriched cages as cages", after a sentence of science)
            if leaned is not None and (
                leaned.source is None or (_scientific(leaned.source) and _lawful(sentence))
            ):
                leaned = None
            own = _named(sentence, sources) or again
            named = own or (leaned.source if leaned else None) or _holder(sentence, sources)
            chosen = (
                named
                or headed
                or _defined(sentence, sources)
                or _studied(sentence, scientific)
                or _staged(sentence, scientific)
            )
            # a sentence that leans on another is as sure of its source as that one is
            sure = leaned.sure if own is None and leaned is not None else True
            if chosen is None:  # by default: sure only among few sources
                row.append(Attribution(fallback, not crowded and fits(sentence, fallback)))
            elif fits(sentence, chosen):
                row.append(Attribution(chosen, sure))
            else:
                row.append(Attribution(fallback, False))
            if named is not None and row[-1].source == named:
                about = named
        found.append(row)
    return found


def _first_case(paragraph: Sequence[str], sources: Sequence[Source]) -> Source | None:
    """The court case among ``sources`` that the paragraph names first, if any."""
    named = (_named(sentence, sources) for sentence in paragraph)
    return next((s for s in named if s is not None and _CASE.search(s.title)), None)


def _glossed(heading: str, sources: Sequence[Source]) -> Source | None:
    """The one source whose label's gloss the heading says in full, in words no other label
    holds: "Exceptions" is the heading of "California Health and Safety Code § 25992
    (exceptions)"; "Public order" is not of "... Act 2022, Part 3 (public order)" beside the
    "Public Order Act 1986"."""
    said = set(_sequence(heading))
    glossed = []
    for source in sources:
        gloss = _GLOSS.search(source.title)
        words = set(_sequence(gloss[1])) if gloss else set()
        others = {w for s in sources if s != source for w in _sequence(s.title)}
        if words and words <= said and not words & others:
            glossed.append(source)
    return glossed[0] if len(glossed) == 1 else None


def _decided(sentence: str, case: Source | None) -> Source | None:
    """The court case its paragraph cited last, when the sentence goes on about what its court
    or judges did ("Writing for the Court, Justice Gorsuch ..."; ``decided`` words of
    ``data/text/sources.toml``) and names no other case ("In ... v. Kelly the Tenth Circuit
    affirmed ...")."""
    if case is None or _words("decided").isdisjoint(_sequence(sentence)):
        return None
    return None if _CASE_NAMED.search(sentence) and _cased_apart(sentence, case) else case


def _referred(sentence: str, about: Source | None) -> Source | None:
    """The instrument its paragraph named, when the sentence refers to it: by its kind as its
    label says it ("The Act also made ...", "that Act": ``kinds``) or by a word any instrument
    is ("the law", "these rules": ``referring``); not when it names an instrument of its own
    ("the Lacey Act"; "USDA", a body, is none)."""
    if about is None or any(" " in name for name in names(sentence)):
        return None
    data, label = _sources_data(), set(_sequence(about.title))
    for found in _REFERENCE.finditer(sentence):
        for word in (w for w in found.groups() if w):
            if word.islower() and word in data.referring:
                return about
            if word[:1].isupper() and word.lower() in data.kinds and set(_sequence(word)) <= label:
                return about
    return None


def _defined(sentence: str, sources: Sequence[Source]) -> Source | None:
    """The one source glossed as definitions ("§ 25991 (definitions)"), for a sentence that
    defines a term (``defining`` of ``data/text/sources.toml``: ""Whole pork meat" covers
    ...")."""
    if not _defining().search(sentence):
        return None
    found = [s for s in sources if (g := _GLOSS.search(s.title)) and "definition" in g[1].lower()]
    return found[0] if len(found) == 1 else None


def _studied(sentence: str, sources: Sequence[Source]) -> Source | None:
    """The one scientific source (a label with a ``studies`` word: "EFSA AHAW Panel (2023),
    "Welfare of laying hens on farm", EFSA Journal ...") for a sentence of welfare science:
    it holds a ``science`` word and no ``legal`` one ("Keel bone fractures are common across
    systems"; not "The directive requires a nest"). A sentence on a stage of an animal's life
    (``stages``: slaughter, transport) is held only by a label on that stage ("Welfare of pigs
    at slaughter"), and such a label holds only sentences on it."""
    said = set(_sequence(sentence))
    if _words("science").isdisjoint(said) or _lawful(sentence):
        return None
    found = [s for s in sources if _scientific(s) and _stages(s.title) == _stages(sentence)]
    return found[0] if len(found) == 1 else None


def _staged(sentence: str, scientific: Sequence[Source]) -> Source | None:
    """The one scientific source (of ``scientific``: none under a heading on a law) on the
    stage of an animal's life a sentence that is not of law is on (``_stages``: "Most pigs ...
    are stunned with carbon dioxide" is on slaughter, and "Welfare of pigs at slaughter" is
    the opinion on it), though it holds no ``science`` word (decision 0089)."""
    stages = _stages(sentence)
    if not stages or _lawful(sentence):
        return None
    found = [s for s in scientific if _scientific(s) and _stages(s.title) == stages]
    return found[0] if len(found) == 1 else None


def _scientific(source: Source) -> bool:
    """Whether a source is a scientific one: its label holds a ``studies`` word."""
    return not _words("studies").isdisjoint(_sequence(source.title))


def _lawful(sentence: str) -> bool:
    """Whether a sentence holds a ``legal`` word: law, or what campaigns ask of companies."""
    return not _words("legal").isdisjoint(_sequence(sentence))


def _stages(text: str) -> set[str]:
    """The stages of an animal's life a text names (``stages`` of ``sources.toml``), by the
    start of its words ("slaughterhouses", "stunned"), not as a measure of growth ("slaughter
    weight")."""
    said = _sequence(text)
    # "slaughter weight": a measure of growth (``measures``), not the stage
    measures = _words("measures")
    staged = [w for w, after in itertools.zip_longest(said, said[1:]) if after not in measures]
    return {
        stage
        for stage, words in _sources_data().stages.items()
        if any(w.startswith(start) for start in _sequence(words) for w in staged)
    }


@cache
def _words(name: str) -> frozenset[str]:
    """The search terms of one of the word lists of ``data/text/sources.toml``."""
    return frozenset(_sequence(" ".join(sorted(getattr(_sources_data(), name)))))


@cache
def _defining() -> re.Pattern[str]:
    return re.compile(_sources_data().defining)


def _named(text: str, sources: Sequence[Source]) -> Source | None:
    labels = [_sequence(source.title) for source in sources]
    shared: dict[str, int] = {}
    for words in labels:
        for word in set(words):
            shared[word] = shared.get(word, 0) + 1
    said = _sequence(text)
    own, pairs = set(said), set(itertools.pairwise(said))
    plain = _words("plain")
    # the sentence's own capitalised words after its first: names of people and bodies
    proper = {t for word in text.split()[1:] if word[:1].isupper() for t in terms(word)}
    scores = []
    for source, words in zip(sources, labels, strict=True):
        if not fits(text, source) or _cased_apart(text, source):
            scores.append(0.0)
            continue
        hits = set(words) & own
        anchored = (
            any(pair in pairs and not set(pair) <= plain for pair in itertools.pairwise(words))
            or any(shared[w] == 1 and _identifier(w) for w in hits)
            or (  # a study by its authors and its year ("a 2003 study by ... Braithwaite and
                # ... Gentle"): two names only this label has, and its year
                len({w for w in hits if shared[w] == 1} & proper) >= 2
                and bool(_years(text) & _years(source.title))
            )
        )
        weight = sum(1 / shared[w] for w in hits)
        scores.append(weight if anchored and weight >= MIN_WEIGHT else 0.0)
    best = max(scores)
    if best == 0.0 or scores.count(best) > 1:
        return None
    return sources[scores.index(best)]


class SourceHosts(Content):
    """data/text/sources.toml."""

    kinds: LowerWords
    abbreviations: Words
    plain: LowerWords
    decided: LowerWords
    referring: LowerWords
    defining: str
    studies: LowerWords
    science: LowerWords
    legal: LowerWords
    measures: LowerWords
    stages: dict[str, str]
    hosts: dict[str, str]


@cache
def _sources_data() -> SourceHosts:
    return load("text/sources.toml", SourceHosts)


def _hosts() -> dict[str, str]:
    return _sources_data().hosts


# what may name an instrument or a body: a quotation, or capitalised words joined by these
_CAPITAL = r"\(?[A-Z][\w'\u2019.-]*\)?"  # "(Sentience)" too
_NAMING = re.compile(
    r"[\u201c\"](?P<quoted>[A-Z][^\u201d\"]{2,60})[\u201d\"]"
    rf"|(?P<words>{_CAPITAL}(?:\s+(?:(?:of|the|for|and|on|in|to)\s+)*{_CAPITAL})*)"
)
_ABBREVIATION = re.compile(r"^[A-Z]{3,}s?$")  # "EFSA", "APHIS", "NGOs"
# a reference: a determiner and the one or two words after it ("the Act", "the EU rules")
_REFERENCE = re.compile(
    r"\b(?:[Tt]he|[Tt]hat|[Tt]his|[Tt]hese|[Tt]hose)\s+([A-Za-z-]+)(?:\s+([A-Za-z]+))?\b"
)
_GLOSS = re.compile(r"\(([^()\d]+)\)\s*$")  # a label's closing gloss: "(exceptions)"
# a court case's name: "National Pork Producers Council v. Ross", "DPP v Ziegler"
_CASE = re.compile(r"(?:\w|\))\.?\s+vs?\.?\s+[A-Z]")  # "R (NCCL) v Secretary", "U.S. v. Stevens"
_CASE_NAMED = re.compile(r"(?:\w|\))\.?\s+vs?\.?\s+([A-Z][\w'-]+)")  # ... its second party
_YEAR_NAMED = re.compile(r"\b(?:[Tt]he|[Ii]ts) ((?:1[89]|20)\d\d) $")  # "the 2022 Act"


def names(sentence: str) -> list[str]:
    """The instruments and bodies a sentence names: capitalised words that end in a kind of
    instrument or body ("European Chicken Commitment", not "The Act" alone), an abbreviation of
    three capitals or more that is not a common one ("EFSA", not "CO2"), a quotation in title
    case ("Lucy's Law", not "Improve welfare")."""
    data = _sources_data()
    found: list[str] = []
    for match in _NAMING.finditer(sentence):
        quoted = match.group("quoted")
        if quoted is not None:
            long = [w for w in quoted.split() if len(w) >= 4]
            if long and all(w[0].isupper() for w in long):
                found.append(quoted)
            continue
        # "Despite the Animal Welfare Act": what comes before a lower-case "the" that no
        # joining word precedes is no part of the name
        words = _after_the(match.group("words").split())
        kind = _POSSESSIVE.sub("", words[-1].strip(".,;:()")).lower()
        year = _YEAR_NAMED.search(sentence[max(0, match.start() - 12) : match.start()])
        if year is not None and len(words) == 1 and kind in data.kinds:  # "the 2022 Act"
            found.append(f"{year.group(1)} {_POSSESSIVE.sub('', words[0].strip('.,;:()'))}")
            continue
        if words[0] in ("The", "A", "An", "Its", "This", "These"):
            words = words[1:]
        if len(words) >= 2 and kind in data.kinds:  # "the European Chicken Commitment's"
            found.append(_POSSESSIVE.sub("", " ".join(words).strip(".,;:()")))
            continue
        bare = [w.strip(".,;:()") for w in words]
        found += [
            w
            for w in bare
            if _ABBREVIATION.match(w) and w.removesuffix("s") not in data.abbreviations
        ]
    return found


def _holder(sentence: str, sources: Sequence[Source]) -> Source | None:
    """The one source whose label holds an instrument or body the sentence names (``names``),
    when the words it shares with two labels tie ("the European Chicken Commitment is the
    sister policy" shares "policy" with the US commitment's label)."""
    said = names(sentence)
    found = [s for s in sources if said and fits(sentence, s) and _calls(said, s.title)]
    return found[0] if len(found) == 1 else None


_POSSESSIVE = re.compile(r"['\u2019]s?$")
_JOINING = frozenset({"of", "for", "and", "on", "in", "to"})


def _after_the(words: list[str]) -> list[str]:
    """The words of a capitalised run from its last "the" that no joining word precedes:
    "Despite the Animal Welfare Act" -> "the Animal Welfare Act"; "Convention for the
    Protection" stays whole."""
    cut = 0
    for i in range(1, len(words) - 1):
        if words[i] == "the" and words[i - 1] not in _JOINING:
            cut = i
    return ["The", *words[cut + 1 :]] if cut else words


def holds(sentence: str, source: Source, also: str = "") -> bool:
    """Whether ``source`` may hold ``sentence``: the sentence names no instrument or body
    (``names``), or names the source itself (by its number, its label or by ``also``, for a
    document's own source the document's title: "the Animal Welfare Act" is the source
    "7 U.S.C. § 2132" of a guide on it). "The European Chicken Commitment is the sister policy
    for Europe" is not held by the US Better Chicken Commitment's text, nor an EFSA opinion by
    a directive."""
    said = names(sentence)
    numbers = set(_sequence(source.title)) & set(_sequence(sentence))
    if not said or any(_identifier(w) for w in numbers):
        return True  # names nothing, or the source by its number ("No 338/97", "§ 25990")
    return _calls(said, f"{source.title} {also}", source.title)


def _calls(said: list[str], label: str, title: str | None = None) -> bool:
    """Whether one of the names ``said`` is the one of a source's ``label``: its words, its
    abbreviation or initials, or a name holding the own name of its ``title`` (when the label
    adds a document's title to it): "Part II of the Public Order Act" holds "Public Order
    Act", the name before the number or comma of "Public Order Act 1986, section 11"."""
    own, initials = set(_sequence(label)), "".join(re.findall(r"\b[A-Z]", label))
    kinds = _words("kinds")  # "Act" adds nothing to "Humane Methods of Slaughter"
    # the title's own name, its words in order, ends the name ("... of the Public Order Act")
    called = _sequence(re.split(r"[,(\d]", title or label)[0])
    for name in said:
        if _ABBREVIATION.match(name):
            if name.removesuffix("s") in label or name.removesuffix("s") in initials:
                return True
            continue
        terms_of = _sequence(name)
        if set(terms_of) - kinds <= own:  # "Humane Methods of Slaughter Act": its words
            return True
        if len(called) >= 2 and terms_of[-len(called) :] == called:
            return True
    return False


# "Outside the EU, ... California requires...": the place after these words is not where
# the sentence's fact holds
_OUTSIDE = re.compile(
    r"\b(?i:outside|beyond|unlike|except in|apart from)\s+(?:the\s+)?[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*"
)


def fits(sentence: str, source: Source | None, dated: bool = True) -> bool:
    """Whether ``source`` may be cited for ``sentence``: not a source of another place
    (``_placed_apart``) or of another section of a law (``_sectioned_apart``), nor, when
    ``dated``, of another year (``_dated_apart``: a listed
    source; a sentence about a document's main instrument names other years as history, "It
    replaced the Protection of Animals Act 1911"). A sentence that fits none of its document's
    sources is cited to the document itself (``functions.content.compose.cite``)."""
    if source is None:
        return True
    return not (
        (dated and _dated_apart(sentence, source))
        or _placed_apart(sentence, source)
        or _sectioned_apart(sentence, source)
    )


def _cased_apart(sentence: str, source: Source) -> bool:
    """Whether a sentence names court cases and the source is a case that is none of them: "In
    Animal Legal Defense Fund v. Kelly ..." is not from "Animal Legal Defense Fund v. Reynolds",
    however many words they share (decision 0087)."""
    parties = {found[1].lower() for found in _CASE_NAMED.finditer(sentence)}
    labelled = {found[1].lower() for found in _CASE_NAMED.finditer(source.title)}
    return bool(parties and labelled and not parties & labelled)


def _placed_apart(sentence: str, source: Source) -> bool:
    """Whether a sentence names places and the source's site publishes another's law
    (``data/text/sources.toml``): none of the sentence's places is the source's, within it,
    or around it."""
    try:
        host = (urlsplit(source.url).hostname or "").removeprefix("www.")
    except ValueError:  # "https://[broken": no host to say a place
        return False
    at = _hosts().get(host)
    if at is None:
        return False
    said = places.named(_OUTSIDE.sub(" ", sentence))
    return bool(said) and not any(places.related(at, place) for place in said)


def _years(text: str) -> set[str]:
    """The years a text names (``_YEARS``): a number followed by a plural noun is a count,
    unless a word that dates it comes before ("in 2012 hens")."""
    return {
        year
        for before, year, counted in _YEARS.findall(text)
        if not counted or before.lower() in _DATING
    }


def _dated_apart(sentence: str, source: Source | None) -> bool:
    """Whether a sentence and a source's label each name a year and share none: "The Welfare
    of Farmed Animals (England) Regulations 2007 set..." is not from "... Regulations 2018",
    however many words they share (issue 46). Such a sentence is cited to the document's own
    source instead (the guide is where it was written, whatever year that source names)."""
    if source is None:
        return False
    said, labelled = _years(sentence), _years(source.title)
    if said and labelled and _CASE.search(source.title) and max(said) < min(labelled):
        return False  # a judgment tells what went before it ("The district court ... in 2022")
    return bool(said and labelled and not said & labelled)


def _sections(text: str) -> set[str] | None:
    """The sections of a law a text names ("section 727.8A", "§ 25992", "s. 4"), lower case;
    None when it names a run of them ("§ 1901 and following", "sections 12 to 16"), which may
    hold any."""
    found = _SECTION.findall(text)
    if any(_RUN.match(text, end) for end in (m.end() for m in _SECTION.finditer(text))):
        return None
    return {number.lower().rstrip(".") for number in found}


def _sectioned_apart(sentence: str, source: Source) -> bool:
    """Whether a sentence and a source's label each name a section of a law and share none:
    "section 727.8A" is not in "Iowa Code § 717A.3A", nor "§ 25992" in "§ 25990", however many
    words they share. Such a sentence is cited to the document itself."""
    said, labelled = _sections(sentence), _sections(source.title)
    return bool(said and labelled and not said & labelled)


def _year(term: str) -> bool:
    return term.isdigit() and len(term) == 4 and term[:2] in ("19", "20")


def _identifier(term: str) -> bool:
    """A number or code of three characters or more that is not a year ("25992", "1099",
    "717a"): a year names the time of a sentence more often than its source."""
    return len(term) >= MIN_IDENTIFIER and any(c.isdigit() for c in term) and not _year(term)


def _sequence(text: str) -> list[str]:
    """The text's search terms in order, repeats kept (``common.language.index.terms`` per word)."""
    return [term for word in text.split() for term in terms(word)]
