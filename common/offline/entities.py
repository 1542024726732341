"""Rule-based entity extraction for ``extractedInfo`` (DESIGN.md §3). Keys appear only when
found; values are short strings taken from the message (or normalised enumerations). The words
it looks for (roles, jurisdictions, content types, platforms...) are data:
data/offline/entities.toml (common.language.lexicon)."""

from __future__ import annotations

import re
from typing import Any

from common.catalog.topics import catalog as topic_catalog
from common.language import lexicon, organisations
from common.language.message import Message, annotate
from common.offline.companies import company_name

_CAP = r"[A-Z][\w&'.-]*"
_NAME = rf"{_CAP}(?:\s+(?:&\s+)?{_CAP}){{0,3}}"
_SENTENCE_END = re.compile(r"(?<=[a-z]{4})[.!?]\s")  # "Poultry. ", not "Co. " or "St. "
# A word of a person's name: capitalised, accents and hyphenated parts included ("Dána",
# "Whitfield-Smith", "O'Brien").
_NAME_WORD = r"[A-Z\u00c0-\u00de][a-z\u00df-\u00ff']+(?:-[A-Z\u00c0-\u00de]?[a-z\u00df-\u00ff']+)*"


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
        slug
        for slug, topic in topic_catalog().items()
        if any(
            re.search(rf"\b{re.escape(w)}", lowered)
            for w in (slug.replace("-", " "), *topic.mentions)
        )
    )


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


def _trim_leading_stopwords(name: str) -> str:
    words, stop = name.split(), lexicon.not_names()
    while words and words[0] in stop:
        words.pop(0)
    return " ".join(words)


def person_in(text: str) -> tuple[str | None, str | None]:
    """(personName, role) of a message about a person's public role."""
    roles = lexicon.entities().roles
    role = next((r for r in roles if re.search(rf"\b{re.escape(r)}\b", text.lower())), None)
    titled = re.search(
        r"\b(?:Senator|Sen\.|Rep\.|Representative|Minister|Mayor|Governor|"
        rf"Commissioner|Dr\.|Professor|MP|CEO|Director)\s+({_NAME_WORD}"
        rf"(?:\s+{_NAME_WORD}){{1,2}})",
        text,
    )
    if titled:
        return titled.group(1), role
    plain = re.findall(rf"(?<!\w)({_NAME_WORD}(?:\s+{_NAME_WORD}){{1,3}})(?!\w)", text)
    for candidate in plain:
        name = _trim_leading_stopwords(candidate)
        if len(name.split()) >= 2 and organisations.kind_of(name) != "company":
            return name, role
    return None, role


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
        person, role = person_in(text)
        info["personName"] = person
        info["role"] = role
        for company in re.finditer(rf"\b(?:at|of|from)\s+({_NAME})", text):
            name = _trim_leading_stopwords(_one_sentence(company.group(1)))
            if name and (not person or name not in person):
                info["companyName"] = name
                break
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
