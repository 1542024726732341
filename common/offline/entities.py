"""Rule-based entity extraction for ``extractedInfo`` (DESIGN.md §3). Keys appear only when
found; values are short strings taken from the message (or normalised enumerations). The words
it looks for (roles, jurisdictions, content types, platforms...) are data:
data/offline/entities.toml (common.language.lexicon)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from common.catalog.topics import Topic
from common.catalog.topics import catalog as topic_catalog
from common.language import lexicon, organisations
from common.language.message import Message, annotate
from common.language.names import Word, after_words, atoms, spaced_run, words_of
from common.offline.companies import company_name

# A company's name after "at", "of" or "from" in a request about a person: up to four words
# opening with a capital, "&" between two ("at Sorrel & Co"), each of letters, digits and
# "_&'.-" ("AT&T", "Co.").
_CAP = re.compile("[A-Z]")
_CAP_WITHIN = frozenset("_&'.-")
_WORKS_AT = frozenset({"at", "of", "from"})
_SENTENCE_END = re.compile(r"(?<=[a-z]{4})[.!?]\s")  # "Poultry. ", not "Co. " or "St. "
# A word of a person's name: capitalised, accents and hyphenated parts included ("Dána",
# "Whitfield-Smith", "O'Brien").
_NAME_WORD = re.compile(
    r"[A-Z\u00c0-\u00de](?:'[A-Z\u00c0-\u00de])?[a-z\u00df-\u00ff']+"
    r"(?:-[A-Z\u00c0-\u00de]?[a-z\u00df-\u00ff']+)*"
)
_NAME_OPENS = re.compile(r"[A-Z\u00c0-\u00de]")
# Titles of office a name follows ("Senator Carla Jensen"); "Sen", "Rep" and "Dr" with a stop.
_TITLES = frozenset(
    [
        *("Senator", "Representative", "Minister", "Mayor", "Governor", "Commissioner"),
        *("Professor", "MP", "CEO", "Director"),
    ]
)
_SHORT_TITLES = frozenset(["Sen", "Rep", "Dr"])


# The extractedInfo keys of each intent (DESIGN.md §3).
INTENT_KEYS: dict[str, tuple[str, ...]] = {
    "CREATE_CONTENT": ("contentType", "platform", "topic"),
    "INVESTIGATE_COMPANY": ("companyName", "focus"),
    "RESEARCH_INDIVIDUAL": ("personName", "companyName", "role"),
    "LEGAL_HELP": ("activity", "jurisdiction"),
    "TRACK_ISSUES": ("topics", "keywords", "frequency"),
    "GENERAL_CHAT": (),
}


def topics_in(text: str | Message) -> list[str]:
    """The catalog's topics the text mentions (data/topics.toml: ``mentions``, and the words of
    the topic's id), in catalog order; read once per message (``common.language.message``)."""
    return list(annotate(text).read(_topics))


def _topics(message: Message) -> tuple[str, ...]:
    lowered = f" {message.lowered} "
    return tuple(
        slug for slug, topic in topic_catalog().items() if _mentioned(slug, topic, lowered)
    )


def _mentioned(slug: str, topic: Topic, lowered: str) -> bool:
    """Whether the text mentions the topic outside its ``unless`` phrases ("hot dogs" is
    food, not companion animals)."""
    if topic.unless:
        lowered = _unless(topic.unless).sub(" ", lowered)
    return any(_mention(w).search(lowered) for w in (slug.replace("-", " "), *topic.mentions))


@cache
def _unless(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(p) for p in phrases))


@cache
def _mention(word: str) -> re.Pattern[str]:
    """A mention as the catalog means it: from the start of a word ("whale" finds "whales"),
    or, four letters or fewer, as a whole word with a plural's "s" ("pet" finds "pets", not
    "petition"; "fur" not "further"; decision 0092)."""
    if len(word) <= 4 and " " not in word:
        return re.compile(rf"\b{re.escape(word)}(?:s|es)?\b")
    return re.compile(rf"\b{re.escape(word)}")


def frequency_in(text: str) -> str | None:
    lowered = text.lower()
    for value, words in lexicon.entities().frequencies.items():
        if any(word in lowered for word in words):
            return value
    return None


def _first(options, lowered: str) -> str | None:
    padded = f" {lowered} "
    hits = [(padded.find(key), value) for key, value in options.items() if key in padded]
    return min(hits)[1] if hits else None


def company_in(text: str | Message) -> str | None:
    """The company the message names (common.offline.companies)."""
    return company_name(text)


def _one_sentence(name: str) -> str:
    """A name up to the end of its sentence: "Atlas Poultry. What's" is "Atlas Poultry"; a
    short abbreviation's stop does not end it ("Co. Ltd", "St. Ives")."""
    return _SENTENCE_END.split(name, maxsplit=1)[0]


def _works_at(message: Message, person: str | None) -> str | None:
    """The company after the first "at", "of" or "from" that names one other than the person's
    name: up to four capitalised words ("at Sorrel & Co", "from Harlow Foods")."""
    text = message.text
    capitalised = {w.start: w for w in words_of(message, _CAP, within=_CAP_WITHIN)}
    read_to = 0
    for cue, after in after_words(message, _WORKS_AT):
        run = spaced_run(message, capitalised, after.start, 4) if cue.start >= read_to else []
        if not run:
            continue
        read_to = run[-1].end
        name = _trim_leading_stopwords(_one_sentence(text[run[0].start : run[-1].end]))
        if name and (not person or name not in person):
            return name
    return None


def _trim_leading_stopwords(name: str) -> str:
    words, stop = name.split(), lexicon.not_names()
    while words and words[0] in stop:
        words.pop(0)
    return " ".join(words)


def person_in(text: str | Message) -> tuple[str | None, str | None]:
    """(personName, role) of a message about a person's public role: two or three name words
    after a title of office, else the first two to four name words in a row that are not a
    company's name. Name words open at the message's atoms (``common.language.names``)."""
    message = annotate(text)
    text = message.text
    roles = lexicon.entities().roles
    role = next((r for r in roles if re.search(rf"\b{re.escape(r)}\b", message.lowered)), None)
    shaped = _name_words(message)
    for after in _after_titles(message):
        run = _spaced(text, shaped, after.start, 3)
        if len(run) >= 2:
            return text[run[0].start : run[-1].end], role
    for run in _name_runs(text, shaped):
        name = _trim_leading_stopwords(text[run[0].start : run[-1].end])
        if len(name.split()) >= 2 and organisations.kind_of(name) != "company":
            return name, role
    return None, role


def _name_words(message: Message) -> dict[int, tuple[Word, int | None]]:
    """The name words of the message by where each starts: at an atom that opens with a
    capital, no letter, digit or "_" before it, the longest ``_NAME_WORD`` there; with where
    the longest start of it that ends a word ends (no letter, digit or "_" after it:
    "Whitfield-2024" and "Jensen--the" end after the name, "Jensen3" nowhere), or None."""
    text = message.text
    found: dict[int, tuple[Word, int | None]] = {}
    for atom in message.read(atoms):
        if not _NAME_OPENS.match(atom.text) or _word_character(text, atom.start - 1):
            continue
        shape = _NAME_WORD.match(text, atom.start)
        if shape is not None:
            word = Word(shape.group(), shape.start(), shape.end())
            found[atom.start] = (word, _whole_word_end(text, word))
    return found


def _whole_word_end(text: str, word: Word) -> int | None:
    """Where the longest start of ``word`` that is a name word and ends a word ends."""
    for end in range(word.end, word.start + 1, -1):
        if not _word_character(text, end) and _NAME_WORD.fullmatch(text, word.start, end):
            return end
    return None


def _word_character(text: str, at: int) -> bool:
    """A letter, a digit or "_" at ``at`` (False outside the text)."""
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")


def _spaced(
    text: str, shaped: dict[int, tuple[Word, int | None]], start: int, most: int
) -> list[Word]:
    """The name words from the one at ``start``, whitespace between each and the next, up to
    ``most``."""
    run: list[Word] = []
    while len(run) < most and start in shaped:
        word = shaped[start][0]
        run.append(word)
        start = word.end
        while start < len(text) and text[start].isspace():
            start += 1
        if start == word.end:
            break
    return run


def _after_titles(message: Message) -> list[Word]:
    """The atom after each title of office (and whitespace) in the message, in order."""
    text, pieces = message.text, message.read(atoms)
    found = []
    for index, atom in enumerate(pieces):
        if text[atom.start - 1 : atom.start] == "_":
            continue
        end = index + 1
        if atom.text in _SHORT_TITLES:
            stop = end < len(pieces) and pieces[end].text == "." and pieces[end].start == atom.end
            if not stop:
                continue
            end += 1
        elif atom.text not in _TITLES:
            continue
        if end < len(pieces) and pieces[end].start > pieces[end - 1].end:
            found.append(pieces[end])
    return found


def _name_runs(text: str, shaped: dict[int, tuple[Word, int | None]]) -> list[list[Word]]:
    """Runs of two to four name words in a row (whitespace between), the last one ending a
    word, in order and apart: from each name word not inside a run before, the longest."""
    runs: list[list[Word]] = []
    read_to = 0
    for start in sorted(shaped):
        if start < read_to:
            continue
        run = _spaced(text, shaped, start, 4)
        while run:  # the last word must end a word: "Dana Whitfield3" is no name
            last = run[-1]
            end = shaped[last.start][1]
            if end is not None:
                run[-1] = Word(text[last.start : end], last.start, end)
                break
            run.pop()
        if len(run) >= 2:
            runs.append(run)
            read_to = run[-1].end
    return runs


# A content request's topic: what follows "about" (or else "on", "regarding"), up to the end
# of the sentence or a phrase naming where it goes ("for our website", "on Instagram").
_TOPIC_END = (
    r"(?=\s+(?:for|to|on|in)\s+(?:our|my|the|a|an|instagram|x|twitter|facebook|linkedin|"
    r"tiktok|email|web)\b|[.?!]|$)"
)
_ABOUT = re.compile(r"\babout\s+(.{3,80}?)" + _TOPIC_END, re.IGNORECASE)
_ON = re.compile(
    r"\b(?:on|regarding|concerning)\s+(?!(?:instagram|x|twitter|facebook|linkedin|tiktok)\b)"
    r"(?:the\s+)?(.{3,80}?)" + _TOPIC_END,
    re.IGNORECASE,
)


def extract(intent: str, text: str | Message) -> dict[str, Any]:
    """The entities of ``intent`` the message names (``INTENT_KEYS``). Its companies and
    topics are read from its annotation, shared with the intent model and the assistant."""
    info: dict[str, Any] = {}
    message = annotate(text)
    text, lowered = message.text, message.lowered
    words = lexicon.entities()
    if intent == "CREATE_CONTENT":
        info["contentType"] = _first(words.content_types, lowered)
        info["platform"] = _first(words.platforms, lowered)
        about = _ABOUT.search(text) or _ON.search(text)
        topics = topics_in(message)
        info["topic"] = about.group(1).strip() if about else (topics[0] if topics else None)
    elif intent == "INVESTIGATE_COMPANY":
        info["companyName"] = company_in(message)
        focus = re.search(
            r"\b(?:focus(?:ing)? on|regarding|especially|particularly|their)\s+"
            r"(.{3,80}?)(?:[.?!,]|$)",
            text,
            flags=re.IGNORECASE,
        )
        topics = topics_in(message)
        info["focus"] = focus.group(1).strip() if focus else (topics[0] if topics else None)
    elif intent == "RESEARCH_INDIVIDUAL":
        person, role = person_in(message)
        info["personName"] = person
        info["role"] = role
        info["companyName"] = _works_at(message, person)
    elif intent == "LEGAL_HELP":
        info["activity"] = next((a for a in words.legal_activities if a in lowered), None)
        info["jurisdiction"] = next(
            (j for j in words.jurisdictions if re.search(rf"\b{re.escape(j)}\b", text)), None
        )
    elif intent == "TRACK_ISSUES":
        info["topics"] = topics_in(message) or None
        quoted = re.findall(r"[\"“']([^\"”']{2,60})[\"”']", text)
        info["keywords"] = quoted or ([c] if (c := company_in(message)) else None)
        info["frequency"] = frequency_in(text)
    return {key: value for key, value in info.items() if value}
