"""Names of the people and companies profiled: one folded form to compare them by, the keys
the opt-out list, the per-subject limit and the audit log use, and whole-word matching in text.

Folding: compatibility-normalised (NFKC), look-alike letters of other scripts read as the Latin
letters they pass for (``common.language.confusables``: a Cyrillic "\u0456" is "i"), then NFKD,
accents dropped, case-folded, apostrophes removed (O'Brien = OBrien), "&" read as "and", every
other run of non-letters/digits a single space. "José  O\u2019Brien-Smith" and "jose obrien
smith" fold alike. The opt-out list, the per-subject limit and the audit log compare canonical
names (``canonical``, decision 0037).

The words of a text are read once (``atoms``, a reading of ``common.language.message``): each
run of letters and digits, and each other character but whitespace on its own. Every notion of
a word that the name finders hold ("Co-op", "AT&T" and "harlowfoods.co.uk" are one word to the
company finder; "@Harlow" is none to the people finder) is assembled from those atoms
(``words_of``), so that a message is scanned for names once, however many finders read it.

Runs of capitalised words (``capitalised_runs``): the one scanner under the research overview's
organisations, the offline engine's company candidates and the personal-data screen's people's
names; each caller says what a word is, which lower-case words may join a run and where a run
stops, and keeps its own rules on top (possessives, titles, words that never name anyone).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from common.language.confusables import latin
from common.language.message import Message, annotate

_APOSTROPHES = re.compile(r"['\u2019\u02bc\u2018`\u00b4]")
# Second-level labels under a country code: harlowfoods.co.uk, brightwell.com.au.
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "ltd", "plc", "or", "ne"})
# Legal forms and filler words that do not tell two companies apart (folded, whole words).
LEGAL_FORMS = frozenset(
    [
        "ltd",
        "limited",
        "plc",
        "inc",
        "incorporated",
        "llc",
        "llp",
        "lp",
        "corp",
        "corporation",
        "co",
        "company",
        "gmbh",
        "ag",
        "sa",
        "sas",
        "sarl",
        "bv",
        "nv",
        "pty",
        "spa",
        "srl",
        "oy",
        "ab",
        "as",
        "asa",
        "kg",
        "se",
    ]
)


def fold(text: str) -> str:
    """The folded form of ``text`` (see the module docstring)."""
    text = latin(unicodedata.normalize("NFKC", text))
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = _APOSTROPHES.sub("", plain.casefold()).replace("&", " and ")
    # Letters of other scripts are kept as they are (NFKD + casefold), only ASCII punctuation
    # and symbols become spaces.
    return " ".join(part for part in _split(plain) if part)


def _split(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    for char in text:
        if char.isalnum():
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


MAX_NAME_TOKENS = 6  # tokens of a name that keys compare (a longer "name" is cut)


def canonical(name: str) -> tuple[str, ...]:
    """A name as people write it, reduced to what identifies it: folded (case, accents,
    apostrophes), hyphens and spaces alike, every token kept, in order:
    ``canonical("Dána Whitfield-Smith") == ("dana", "whitfield", "smith")``."""
    return tuple(fold(name).split())[:MAX_NAME_TOKENS]


def canonical_key(name: str) -> str:
    """The canonical name as one string: the key of audit entries and opt-out entries."""
    return " ".join(canonical(name))


def same_person(asked: tuple[str, ...], listed: tuple[str, ...]) -> bool:
    """True when a request for ``asked`` may be about the person ``listed`` names: every token
    of the listed name is in the request (a middle name, a suffix or "Said" added, the order
    changed), or every token of the request (two at least) is in the listed name (a part of a
    double-barrelled name or a middle name left out), an initial standing for a name ("D.
    Whitfield" for Dana Whitfield). Namesakes match too: by name alone they cannot be told
    apart, and refusing a profile harms no one (decision 0029)."""
    a, b = set(asked), set(listed)
    if len(b) < 2:
        return False
    if b <= a or (len(a) >= 2 and a <= b):
        return True
    words = {t for t in a if len(t) > 1}
    initials = {t for t in a if len(t) == 1}
    rest = b - words
    return (
        bool(words)
        and bool(initials)
        and words <= b
        and all(any(r.startswith(i) for r in rest) for i in initials)
    )


def pair_keys(name: str) -> list[str]:
    """Every pair of the canonical name's tokens, sorted within the pair, and the first
    name's initial with the last name: the per-subject limit counts each, so "Dana Whitfield
    Said", "Whitfield Dana" and "D. Whitfield" count against Dana Whitfield too (and a
    namesake sharing her initial shares that key: the error is on the side of the person
    profiled)."""
    ordered = canonical(name)
    tokens = sorted(set(ordered))
    keys = [f"{a} {b}" for i, a in enumerate(tokens) for b in tokens[i + 1 :]]
    if len(ordered) >= 2:
        initial = " ".join(sorted((ordered[0][0], ordered[-1])))
        if initial not in keys:
            keys.append(initial)
    return keys


def short_key(name: str) -> str:
    """First and last word of a folded name, middle names and initials dropped: how a
    public-figures record is matched to the person asked about ("Dana J. Whitfield" is the
    record "Dana Whitfield")."""
    words = fold(name).split()
    if len(words) <= 2:
        return " ".join(words)
    return f"{words[0]} {words[-1]}"


def subject_hash(key: str) -> str:
    """A short pseudonym of a subject for log lines and counters (never the name itself). A
    hash of a name can be reversed by guessing names: it keeps names out of logs, it is not
    anonymisation."""
    return hashlib.sha256(f"osint-subject:{key}".encode()).hexdigest()[:16]


def company_core(name: str) -> str:
    """A company's folded name without a leading "the" and trailing legal forms:
    "The Crestline Eggs Ltd." -> "crestline eggs"."""
    words = fold(name).split()
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    while len(words) > 1 and words[-1] in LEGAL_FORMS:
        words.pop()
    return " ".join(words)


def domain_label(domain: str | None) -> str | None:
    """The distinctive label of a company's domain: "www.harlowfoods.co.uk" -> "harlowfoods"."""
    if not domain:
        return None
    labels = [label for label in domain.lower().strip(".").split(".") if label]
    if labels and labels[0] == "www":
        labels = labels[1:]
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        candidate = labels[-3]  # harlowfoods.co.uk
    else:
        candidate = labels[-2] if len(labels) >= 2 else (labels[0] if labels else "")
    return fold(candidate) or None


def contains(folded_text: str, folded_phrase: str) -> bool:
    """True when the phrase occurs in the text as whole words (both folded)."""
    if not folded_phrase:
        return False
    return f" {folded_phrase} " in f" {folded_text} "


@lru_cache(maxsize=256)
def person_pattern(first_words: str, last_words: str) -> re.Pattern[str]:
    """Matches a person's folded name in folded text, allowing one middle name or initial:
    "dana whitfield", "dana j whitfield"."""
    first, last = re.escape(first_words), re.escape(last_words)
    return re.compile(rf"(?<![0-9a-z]){first}(?: [0-9a-z]+)? {last}(?![0-9a-z])")


def names_person(folded_text: str, first: str, last: str) -> bool:
    """True when the folded text names the person (first and last name together)."""
    first_words, last_words = fold(first), fold(last)
    if not first_words or not last_words:
        return False
    return person_pattern(first_words, last_words).search(folded_text) is not None


def names_listed(folded_text: str, person: tuple[str, ...]) -> bool:
    """True when the folded text names the person of these canonical tokens: first and last
    name with up to two words between ("dana j whitfield"), the first name's initial and the
    last name ("d whitfield"), or "last first" ("whitfield dana", from "Whitfield, Dana")."""
    if len(person) < 2:
        return False
    return _listed_pattern(person).search(f" {folded_text} ") is not None


@lru_cache(maxsize=1024)
def _listed_pattern(person: tuple[str, ...]) -> re.Pattern[str]:
    first, last = re.escape(person[0]), re.escape(" ".join(person[1:]))
    initial, surname = re.escape(person[0][0]), re.escape(person[-1])
    return re.compile(
        rf"(?<![0-9a-z])(?:{first}|{initial})(?: [0-9a-z]+){{0,2}} {last}(?![0-9a-z])"
        rf"|(?<![0-9a-z]){surname} {first}(?![0-9a-z])"
    )


# -- the words of a text, read once ------------------------------------------------------------


class Word(NamedTuple):
    """A word of a text and where it stands: ``text[start:end] == word``."""

    text: str
    start: int
    end: int


_ATOM = re.compile(r"[^\W_]+|\S")


def atoms(message: Message) -> tuple[Word, ...]:
    """The text's atoms, in order: each run of letters and digits, and each other character but
    whitespace on its own ("O'Brien's": "O", "'", "Brien", "'", "s"). A reading of the message:
    the one pass over its characters that every finder's words are assembled from."""
    text = message.text
    return tuple(
        _new_word(Word, (text[start:end], start, end))
        for start, end in map(_span, _ATOM.finditer(text))
    )


_new_word = tuple.__new__  # a Word from its fields, without NamedTuple's slower constructor
_span = re.Match.span


_ALNUM = re.compile(r"[^\W_]")  # a letter or a digit


def words_of(
    text: str | Message,
    opens: re.Pattern[str] = _ALNUM,
    *,
    not_after: frozenset[str] = frozenset(),
    within: frozenset[str] = frozenset(),
    alone: re.Pattern[str] | None = None,
    inside: bool = False,
    singly: bool = False,
) -> list[Word]:
    r"""The words of ``text`` as a finder reads them, assembled from its atoms, in order.

    An atom that ``opens`` matches (at its start), with none of ``not_after`` right before it,
    opens a word, which takes in each atom right after it (no space between) of letters and
    digits or one of the characters ``within``, as many as there are; an atom that does not
    open one and ``alone`` matches whole is a word by itself; other atoms are no word. So a
    finder's pattern ``(?<![\w@.])[A-Z][\w'-]*`` reads: ``opens`` a capital, ``not_after`` "@"
    and ".", ``within`` "_", "'" and "-" (an atom never opens after a letter or a digit).
    ``inside``: a word may also open inside an atom of letters and digits, where ``opens``
    first matches (a pattern with no look-behind: "ЖHarlow" holds "Harlow"). ``singly``: a
    character of ``within`` joins only one at a time, and a word ends after one that no letter
    or digit follows (``[^\W_]+(?:'[^\W_]+)*'?``: "Tesco''s" is "Tesco'" and "s")."""
    message = annotate(text)
    source, pieces = message.text, message.read(atoms)
    found: list[Word] = []
    index, count = 0, len(pieces)
    while index < count:
        atom = pieces[index]
        index += 1
        start: int | None = None
        if opens.match(atom.text) and source[atom.start - 1 : atom.start] not in not_after:
            start = atom.start
        elif inside and atom.text[0].isalnum() and (within_atom := opens.search(atom.text, 1)):
            start = atom.start + within_atom.start()
        if start is None:
            if alone is not None and alone.fullmatch(atom.text):
                found.append(atom)
            continue
        end, joined = atom.end, False
        while index < count and pieces[index].start == end:
            following = pieces[index].text
            if following[0].isalnum():
                joined = False
            elif following not in within or (singly and joined):
                break
            else:
                joined = True
            end = pieces[index].end
            index += 1
        found.append(Word(source[start:end], start, end))
    return found


def after_words(message: Message, cues: frozenset[str]) -> list[tuple[Word, Word]]:
    """Each word of ``cues`` the message holds whole (an atom, not "onion" for "on" nor "_on"),
    with whitespace after it, paired with the atom after that whitespace, in order."""
    text, pieces = message.text, message.read(atoms)
    return [
        (cue, after)
        for cue, after in pairwise(pieces)
        if cue.text in cues and text[cue.start - 1 : cue.start] != "_" and after.start > cue.end
    ]


def spaced_run(
    message: Message, words: Mapping[int, Word], start: int, most: int, *, ampersand: bool = True
) -> list[Word]:
    """The words of ``words`` (by where each starts) from the one at ``start``, each after the
    one before with whitespace between, or (``ampersand``) whitespace, "&" and whitespace
    ("tallow & sons"): up to ``most`` words, with the "&"s between them; none when no word
    starts there."""
    first = words.get(start)
    if first is None:
        return []
    pieces = message.read(atoms)
    run, count = [first], 1
    while count < most:
        at = bisect_left(pieces, run[-1].end, key=_start)
        if at >= len(pieces) or not message.text[run[-1].end : pieces[at].start].isspace():
            break  # the text ends, or no space follows the word
        between = None
        spaced = at + 1 < len(pieces) and pieces[at + 1].start > pieces[at].end
        if ampersand and pieces[at].text == "&" and spaced:
            between, at = pieces[at], at + 1
        word = words.get(pieces[at].start)
        if word is None:
            break
        run += [between, word] if between is not None else [word]
        count += 1
    return run


def _start(word: Word) -> int:
    return word.start


# -- runs of capitalised words -------------------------------------------------------------------


def _initial_capital(word: str) -> bool:
    return word[0].isupper()


def capitalised_runs(
    text: str,
    words: Sequence[Word],
    *,
    capital: Callable[[str], bool] = _initial_capital,
    connectors: frozenset[str] = frozenset(),
    in_a_row: int | None = None,
    gaps: frozenset[str] = frozenset({""}),
    stops_after: Callable[[str, str], bool] | None = None,
) -> list[list[Word]]:
    """The runs of capitalised words of ``text``, in order, each a list of its words.

    ``words`` are the text's words in the caller's notion of a word (``words_of``: "Co-op",
    "AT&T", "O'Brien"); a word ``capital`` accepts (by default: one that opens with a capital
    letter) starts a run or joins the one before when only whitespace stands between them, or
    one of ``gaps`` stripped of whitespace (``"&"``: "Tesco & Harlow Foods"). A word of
    ``connectors`` ("of", "de", "&") joins a run the same way, and stays in it only when a
    capitalised word follows ("Department of Agriculture", not "Harlow Foods of"); at most
    ``in_a_row`` of them in a row (None: any number; 1: "van Dyke", not "de la Cruz").
    ``stops_after(word, following)``: the run ends after this capitalised word, given the
    text's next word ("" at the end), as after a possessive ("Dunmore Dairy's herds")."""
    runs: list[list[Word]] = []
    current: list[Word] = []
    pending: list[Word] = []  # connectors after the run's last capitalised word
    last_end = -1
    for index, found in enumerate(words):
        word = found.text
        joined = bool(current) and text[last_end : found.start].strip() in gaps
        last_end = found.end
        if capital(word):
            if not joined:
                if current:
                    runs.append(current)
                current, pending = [], []
            current += [*pending, found]
            pending = []
            if stops_after is not None:
                following = words[index + 1].text if index + 1 < len(words) else ""
                if stops_after(word, following):
                    runs.append(current)
                    current = []
        elif joined and word in connectors and (in_a_row is None or len(pending) < in_a_row):
            pending.append(found)
        else:
            if current:
                runs.append(current)
            current, pending = [], []
    if current:
        runs.append(current)
    return runs
