"""The offline content engine's texts and rules (data/content/drafts.toml), read on first use."""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated

from pydantic import AfterValidator, Field

from common.datafiles import (
    Content,
    Line,
    LowerLine,
    LowerWords,
    Pattern,
    Template,
    load,
    placeholders,
)


def _hook(value: str) -> str:
    """An opening names the topic once, as {topic} or {Topic}, and nothing else."""
    found = placeholders(value)
    if len(found) != 1 or not found <= {"topic", "Topic"}:
        raise ValueError("must use {topic} or {Topic}, and no other placeholder")
    return value


class PlatformRules(Content):
    limit: int = Field(ge=100, le=100_000)
    content_types: tuple[str, ...] = Field(min_length=1)
    hashtags_in_post: int = Field(ge=0, le=10)


class ToneTexts(Content):
    hooks: tuple[Annotated[Line, AfterValidator(_hook)], ...] = Field(min_length=1)
    ask: Line
    intro: Annotated[Line, Template("topic", "you")]
    intro_said: Annotated[Line, Template("you", "Said")]


class Article(Content):
    clausal: LowerWords
    asking: LowerWords
    embedded: LowerWords
    degree: LowerWords
    relative: LowerWords
    verbs: LowerWords
    past: LowerWords
    preterite: LowerWords
    subjects: LowerWords
    urging: str
    slogan: LowerWords
    proper: LowerWords
    heads: LowerWords
    institutions: LowerWords
    groups: LowerWords
    imperatives: LowerWords
    theirs: dict[LowerLine, LowerLine]


class AnswerWords(Content):
    generic: LowerWords


class SaidFrame(Content):
    """The frames of a topic that is a sentence: it stands as its own, ``{Headline}`` (without a
    full stop: the titles of decision 0087)."""

    email_subject: Annotated[str, Template("Headline")]
    press_headline: Annotated[str, Template("Headline")]
    press_dateline: str
    press_dateline_to: Annotated[str, Template("organisation")]
    blog_title: Annotated[str, Template("Headline")]
    blog_intro: str
    petition_title: Annotated[str, Template("Headline")]
    petition_title_to: Annotated[str, Template("organisation", "ask")]
    petition_ask: Annotated[str, Template("audience")]
    petition_ask_default: str
    petition_ask_to: Annotated[str, Template("audience", "ask")]
    press_dateline_asked: Annotated[str, Template("organisation", "ask")]
    press_headline_asked: Annotated[str, Template("organisation", "ask")]
    talking_points_title: Annotated[str, Template("Headline")]
    talking_points_title_for: Annotated[str, Template("audience", "Headline")]


class Frame(Content):
    thread_more: Line
    email_subject: Annotated[str, Template("Topic")]
    email_greeting: str
    email_signoff: str
    letter_to: Annotated[str, Template("audience")]
    letter_address: str
    letter_signoff: str
    press_header: str
    press_headline: Annotated[str, Template("Topic")]
    press_dateline: Annotated[str, Template("topic")]
    press_dateline_to: Annotated[str, Template("organisation", "topic")]
    reply_by: Annotated[Line, Template("date")]
    you: Line
    you_at: Annotated[Line, Template("organisation")]
    press_quote: str
    press_about: str
    blog_title: Annotated[str, Template("Topic")]
    blog_intro: Annotated[str, Template("topic")]
    blog_conclusion: str
    petition_title: Annotated[str, Template("topic")]
    petition_to: Annotated[str, Template("audience")]
    petition_to_default: str
    petition_why: str
    petition_ask: Annotated[str, Template("audience", "topic")]
    petition_ask_default: Annotated[str, Template("topic")]
    talking_points_title: Annotated[str, Template("topic")]
    talking_points_title_for: Annotated[str, Template("audience", "topic")]
    talking_points_close: str
    sources_heading: str
    said: SaidFrame


class SaidCommitted(Content):
    """The committed frames of a topic that is a sentence: it stands as its own, ``{Said}``."""

    letter_intro: Annotated[str, Template("company", "Said")]
    email_intro: Annotated[str, Template("company", "Said")]
    petition_ask: Annotated[str, Template("company")]


class Committed(Content):
    """The frame for a company that has already committed: asked to deliver, not to sign."""

    letter_intro: Annotated[str, Template("topic", "company")]
    letter_cta: Line
    email_intro: Annotated[str, Template("topic", "company")]
    email_cta: Annotated[Line, Template("company")]
    petition_ask: Annotated[str, Template("company", "topic")]
    broad_topics: LowerWords
    said: SaidCommitted


class Checked(Content):
    """How a provider's draft is checked (``functions.content.verify``)."""

    own: LowerWords
    asks: LowerWords
    strong: LowerWords
    alike: tuple[LowerWords, ...]
    hedges: LowerWords
    units: LowerLine
    tens: LowerLine
    negators: LowerWords
    limits: LowerWords
    slight: LowerWords
    joins: LowerWords


class Drafts(Content):
    platform: dict[str, PlatformRules]
    default_platform: dict[str, str]
    facts: dict[str, tuple[int, int, int]]
    tone: dict[str, ToneTexts]
    default_cta: dict[str, Line]
    committed: Committed
    general_hashtags: tuple[str, ...]
    frame: Frame
    not_facts: tuple[Pattern, ...]
    advice: tuple[Pattern, ...]
    requests: tuple[Pattern, ...]
    request_lead: Pattern
    instruction: Pattern
    request_asked: Annotated[str, Template("ask")]
    request_called: Annotated[str, Template("whom", "demand")]
    trailing_clauses: tuple[Pattern, ...] = Field(min_length=1)
    limiting_words: LowerWords
    anaphora: LowerWords
    dangling: LowerWords
    addressing: LowerWords
    titles: LowerWords
    publics: LowerWords
    related: dict[LowerLine, tuple[LowerLine, ...]]
    article: Article
    answer: AnswerWords
    from_chat_types: dict[str, str]
    from_chat_platforms: dict[str, str]
    checked: Checked


@cache
def drafts() -> Drafts:
    return load("content/drafts.toml", Drafts)


@cache
def not_facts() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in drafts().not_facts))


@cache
def advice() -> re.Pattern[str]:
    """Sentences written for campaigners (data/content/drafts.toml ``advice``), matched in
    lower case: public copy never quotes them."""
    return re.compile("|".join(f"(?:{p})" for p in drafts().advice))


@cache
def tool_requests() -> tuple[re.Pattern[str], ...]:
    """A request to the tool that opens a topic (data/content/drafts.toml ``requests``), in
    order, matched in any case."""
    return tuple(re.compile(p, re.IGNORECASE | re.DOTALL) for p in drafts().requests)


def asked_rest(topic: str) -> str | None:
    """What follows the words a request's cut asks with (``request_asked``'s before
    ``{ask}``: "Please stop building sheds" -> "stop building sheds"), or None when the topic
    does not open with them."""
    asking = drafts().request_asked.split("{ask}")[0]
    if asking.strip() and topic.lower().startswith(asking.lower()):
        return topic[len(asking) :]
    return None


@cache
def instruction_verbs() -> frozenset[str]:
    """The words that open an instruction (``article``: ``clausal`` that are not ``asking``,
    and ``imperatives``)."""
    article = drafts().article
    return frozenset((article.clausal - article.asking - {"no", "please"}) | article.imperatives)


@cache
def instruction() -> re.Pattern[str]:
    """A clause of a topic that asks the tool for the draft ("can u do a thread on the
    difference": data/content/drafts.toml ``instruction``), matched in any case."""
    return re.compile(drafts().instruction, re.IGNORECASE)


@cache
def request_lead() -> re.Pattern[str]:
    """The words that open a request before its genre ("Write an", "pls draft a": data/content/
    drafts.toml ``request_lead``), matched in any case."""
    return re.compile(drafts().request_lead, re.IGNORECASE)


@cache
def trailing_clauses() -> re.Pattern[str]:
    """Where a sentence's trailing clause that adds to it begins (data/content/drafts.toml
    ``trailing_clauses``), matched as written: a post quotes the head before it when the
    whole sentence does not fit (``compose.main_clause``). A trailing clause runs to the
    sentence's end, one clause: no comma, semicolon or colon follows its opener ("The Act,
    which took effect in 2022, bans cages" has none), and it holds no word that limits the
    claim (``limiting_words``: "only", "except", "exempt"...)."""
    texts = drafts()
    openers = "|".join(f"(?:{p})" for p in texts.trailing_clauses)
    limiting = "|".join(re.escape(w) for w in sorted(texts.limiting_words, key=len, reverse=True))
    return re.compile(f"(?:{openers})(?=[^,;:]*$)(?![^,;:]*\\b(?:{limiting})\\b)", re.IGNORECASE)


@cache
def related() -> dict[str, frozenset[str]]:
    """Search term -> the terms of the words the corpus writes for the same thing
    (data/content/drafts.toml ``related``), both ways."""
    from common.language.index import terms

    found: dict[str, set[str]] = {}
    for word, others in drafts().related.items():
        for left in terms(word):
            for other in others:
                for right in terms(other):
                    found.setdefault(left, set()).add(right)
                    found.setdefault(right, set()).add(left)
    return {k: frozenset(v) for k, v in found.items()}


@cache
def generic_terms() -> frozenset[str]:
    """The search terms of words too common in the corpus to show a sentence answers a
    question (data/content/drafts.toml ``generic``)."""
    from common.language.index import terms

    return frozenset(terms(" ".join(drafts().answer.generic)))
