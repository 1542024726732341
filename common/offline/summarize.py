"""Conversation summary in the summariser's own words: the goal, what was decided, the facts
(numbers, dates, money, named organisations) and the questions still open, as a few labelled
lines in the third person ("The user will send the letter on Monday"), without filler, with
questions in indirect form ("whether to target Harlow Foods first") and requests as what is
asked for ("draft a press release about the ban"). At most MAX_CHARS characters.

The words and patterns it uses are data (data/offline/summarize.toml, decision records 0020 and
0028), loaded on first use. ``quoted_ratio`` measures how much of a summary is quoted word for
word from the conversation (bench/quality.py, tests/unit/test_summarize.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated

from pydantic import AfterValidator, Field

from common.datafiles import (
    Content,
    Line,
    Lower,
    LowerLine,
    LowerWords,
    Pattern,
    load,
    placeholders,
)
from common.language import clip
from common.language.index import terms
from common.language.sentences import split
from common.privacy.rules import given_names

MAX_CHARS = 800
LINE_MAX_CHARS = 200  # one item of a line: a decision, a fact, a question
MAX_ITEMS = 4  # decisions or open questions kept
MAX_FACTS = 3
NGRAM = 6  # words in a run that counts as quoted (quoted_ratio)

_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z]+")
_WORD = re.compile(r"[\w%$€£]+(?:['.,][\w]+)*")
_LABEL = re.compile(r"^[A-Z][A-Za-z ]{0,30}:\s+")
_SPEAKER_WORDS = frozenset({"self", "group", "other"})


# -- the data file -----------------------------------------------------------------------------


def _speaker_template(value: str) -> str:
    used = placeholders(value)
    if not used <= _SPEAKER_WORDS or len(used) > 1:
        raise ValueError("may use one of {self}, {group} or {other}, nothing else")
    return value


class _Rewrite(Content):
    pattern: Pattern
    replacement: str


class _Labels(Content):
    goal: Line
    decided: Line
    facts: Line
    open: Line


class _Speaker(Content):
    self_: LowerLine = Field(alias="self")
    group: LowerLine
    other: LowerLine


class _Speakers(Content):
    user: _Speaker
    assistant: _Speaker


class _GoalLead(Content):
    whether: Lower
    how: Lower
    other: Lower


class _Decisions(Content):
    pattern: Pattern
    assistant_commits: Pattern
    owners: Pattern
    rewrites: tuple[_Rewrite, ...]


class _Facts(Content):
    figures: tuple[Pattern, ...] = Field(min_length=1)
    names: tuple[Pattern, ...] = Field(min_length=1)
    not_organisations: tuple[Pattern, ...]
    not_facts: tuple[Pattern, ...]
    rewrites: tuple[_Rewrite, ...]


class _Notes(Content):
    rewrites: tuple[_Rewrite, ...]


class _Questions(Content):
    auxiliaries: LowerWords
    pronouns: LowerWords
    wh: LowerWords
    subject_starts: LowerWords
    subject_ends: LowerWords
    ignore: tuple[Pattern, ...]
    deferrals: tuple[Pattern, ...]
    common: LowerWords


class SummaryWords(Content):
    """data/offline/summarize.toml: the words and patterns of the offline summary."""

    nothing: Line
    verbs: LowerWords
    advice: LowerWords
    filler: tuple[Pattern, ...]
    private: tuple[Pattern, ...] = Field(min_length=1)
    small_talk: tuple[Pattern, ...]
    requests: tuple[_Rewrite, ...]
    goal: Pattern
    goal_rewrites: tuple[_Rewrite, ...]
    labels: _Labels
    speakers: _Speakers
    pronouns: dict[Lower, Annotated[str, AfterValidator(_speaker_template)]] = Field(min_length=1)
    third_person: dict[Lower, LowerLine]
    past: dict[Lower, LowerLine]
    goal_lead: _GoalLead
    decisions: _Decisions
    facts: _Facts
    notes: _Notes
    questions: _Questions


@dataclass(frozen=True)
class _Rules:
    words: SummaryWords
    filler: re.Pattern[str]
    private: re.Pattern[str]
    small_talk: re.Pattern[str]
    requests: tuple[tuple[re.Pattern[str], str], ...]
    goal: re.Pattern[str]
    goal_rewrites: tuple[tuple[re.Pattern[str], str], ...]
    decision: re.Pattern[str]
    assistant_commits: re.Pattern[str]
    owners: re.Pattern[str]
    decision_rewrites: tuple[tuple[re.Pattern[str], str], ...]
    figures: re.Pattern[str]
    names: re.Pattern[str]
    not_organisations: tuple[re.Pattern[str], ...]
    not_facts: re.Pattern[str]
    fact_rewrites: tuple[tuple[re.Pattern[str], str], ...]
    notes: tuple[tuple[re.Pattern[str], str], ...]
    ignore: re.Pattern[str]
    deferrals: re.Pattern[str]


def _compile(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


def _either(patterns: Iterable[str]) -> re.Pattern[str]:
    """One pattern that matches where any of ``patterns`` does (one search instead of many)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns) or "(?!)", re.IGNORECASE)


def _pairs(rewrites: Iterable[_Rewrite]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(r.pattern, re.IGNORECASE), r.replacement) for r in rewrites)


@cache
def words() -> SummaryWords:
    return load("offline/summarize.toml", SummaryWords)


@cache
def _rules() -> _Rules:
    w = words()
    return _Rules(
        words=w,
        filler=_either(w.filler),
        private=_either(w.private),
        small_talk=_either(w.small_talk),
        requests=_pairs(w.requests),
        goal=re.compile(w.goal, re.IGNORECASE),
        goal_rewrites=_pairs(w.goal_rewrites),
        decision=re.compile(w.decisions.pattern, re.IGNORECASE),
        assistant_commits=re.compile(w.decisions.assistant_commits, re.IGNORECASE),
        owners=re.compile(w.decisions.owners, re.IGNORECASE),
        decision_rewrites=_pairs(w.decisions.rewrites),
        figures=_either(w.facts.figures),
        names=_either(w.facts.names),
        not_organisations=_compile(w.facts.not_organisations),
        not_facts=_either(w.facts.not_facts),
        fact_rewrites=_pairs(w.facts.rewrites),
        notes=_pairs(w.notes.rewrites),
        ignore=_either(w.questions.ignore),
        deferrals=_either(w.questions.deferrals),
    )


# -- rewriting ---------------------------------------------------------------------------------


def _clean(text: str) -> str:
    """The sentence without filler, trailing punctuation or doubled spaces."""
    text = " ".join(text.replace("\u2019", "'").split())
    filler = _rules().filler
    for _ in range(6):  # "OK, so, I think ..." loses one layer per pass
        before = text
        text = filler.sub("", text).strip(" ,;:-")
        if text == before:
            break
    return " ".join(text.split()).rstrip(" .!?;:,")


def _third(word: str) -> str:
    """``word`` as it follows "the user" or "the team" (third person singular)."""
    w = _rules().words
    low = word.lower()
    if low in w.third_person:
        return w.third_person[low]
    if low not in w.verbs:
        return word
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _past(word: str) -> str:
    w = _rules().words
    low = word.lower()
    if low in w.past:
        return w.past[low]
    if low not in w.verbs:
        return word
    if low.endswith("e"):
        return word + "d"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return word[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][b-df-hj-np-tvz]", low):
        return word + word[-1] + "ed"  # one syllable: "stop" -> "stopped"
    return word + "ed"


def _person(text: str, role: str) -> str:
    """First and second person rewritten for the speaker (``role``), with the verb that follows
    a rewritten subject made to agree ("we need" -> "the team needs")."""
    w = _rules().words
    speaker = w.speakers.user if role == "user" else w.speakers.assistant
    names = {"self": speaker.self_, "group": speaker.group, "other": speaker.other}
    out: list[str] = []
    agree = False
    previous = ""
    for part in _TOKEN.findall(text.replace("\u2019", "'")):
        if not part[0].isalpha():
            if part.strip():
                agree = False  # punctuation between the subject and the next word
            out.append(part)
            continue
        low = part.lower()
        if agree:
            part = _third(part)
            agree = False
        elif low in w.pronouns and (part == "I" or not part.isupper()):
            replaced = w.pronouns[low].format(**names)
            if part[0].isupper() and not out:
                replaced = replaced[0].upper() + replaced[1:]
            agree = low in ("i", "we", "you") and previous not in w.questions.auxiliaries
            part = replaced
        out.append(part)
        previous = low
    return "".join(out)


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and first.lower() in _rules().words.questions.common:
        return text[0].lower() + text[1:]
    if first[:1].isupper() and first[1:].islower() and first.lower() in _rules().words.verbs:
        return text[0].lower() + text[1:]
    return text


def _sentence_case(text: str) -> str:
    text = text.strip()
    return (text[0].upper() + text[1:] + ".") if text else ""


def _apply(rewrites: Iterable[tuple[re.Pattern[str], str]], text: str) -> str:
    for pattern, replacement in rewrites:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


# -- questions ---------------------------------------------------------------------------------


def _subject_end(rest: list[str]) -> int:
    """Where the subject after an auxiliary ends in ``rest`` (the words after it)."""
    q = _rules().words.questions
    verbs = _rules().words.verbs
    if rest[0].lower() in q.pronouns:
        return 1
    for j in range(1, len(rest)):
        low = rest[j].lower().strip(",;:")
        if low in q.subject_ends or (low in verbs and not rest[j][0].isupper()):
            return j
        if len(low) > 4 and low.endswith(("ed", "ing")) and not rest[j][0].isupper():
            return j
    return len(rest)


def _declarative(wh: list[str], aux: str, rest: list[str], role: str) -> str:
    """A question's words in statement order: "how should we plan X" -> "how to plan X";
    "is Harlow Foods still selling X" -> "Harlow Foods is still selling X"."""
    a = aux.lower()
    first = rest[0].lower()
    lead = " ".join(wh).lower()
    if first in ("we", "i") and (
        a in ("should", "shall") or (lead == "how" and a in ("can", "do"))
    ):
        return _person(" ".join(["to", *rest[1:]]), role)
    end = _subject_end(rest)
    subject, after = rest[:end], rest[end:]
    if a in ("do", "does", "did"):
        if after and after[0].lower() in _rules().words.verbs:
            verb = after[0] if a == "do" else _third(after[0]) if a == "does" else _past(after[0])
            return _person(" ".join([*subject, verb, *after[1:]]), role)
        return _person(" ".join(rest), role)
    return _person(" ".join([*subject, aux.lower(), *after]), role)


def _request(text: str) -> str | None:
    """What a request asks for ("Can you draft X" -> "draft X"), None when it is none."""
    for pattern, replacement in _rules().requests:
        asked, found = pattern.subn(replacement, text, count=1)
        if found and asked.strip():
            return asked.strip()
    return None


# A label a writer puts before a question ("Open questions:", "Q:", "Question for Tom:"): one to
# four words and a colon, at the start.
_LABEL = re.compile(r"^\s*(?:[A-Za-z][\w'-]*\s+){0,3}[A-Za-z][\w'-]*\s*:\s+(?=\S)")


def _indirect(question: str, role: str) -> tuple[str, str]:
    """(the question in indirect form, its kind: "request", "whether", "how" or "other")."""
    rules = _rules()
    q = rules.words.questions
    question = _LABEL.sub("", question, count=1) or question  # "Open questions: should we..."
    asked = _request(question) if role == "user" else None
    if asked:
        return _lower_first(_person(asked, role)), "request"
    words = question.split()
    low = [w.lower().strip(",;:") for w in words]
    if low[0] in q.wh:
        i = 1
        while i < len(words) and i <= 3 and low[i] not in q.auxiliaries:
            i += 1
        if i < len(words) - 1 and low[i] in q.auxiliaries:
            after = words[i + 1]
            if low[i + 1] in q.subject_starts or after[0].isupper():
                wh = [words[0].lower(), *words[1:i]]
                body = _declarative(wh, words[i], words[i + 1 :], role)
                kind = "how" if body.startswith("to ") and low[0] == "how" and i == 1 else "other"
                return f"{' '.join(wh)} {body}", kind
        return _person(" ".join([low[0], *words[1:]]), role), "other"
    if low[0] in q.auxiliaries and len(words) > 1:
        body = _declarative([], words[0], words[1:], role)
        return f"whether {body}", "whether"
    return _lower_first(_person(question, role)), "other"


# -- the conversation --------------------------------------------------------------------------


@dataclass
class _Said:
    turn: int
    role: str
    text: str  # without filler; first and second person as said
    question: bool


def _said(messages: Sequence[dict[str, str]]) -> list[_Said]:
    rules = _rules()
    found: list[_Said] = []
    for turn, message in enumerate(messages):
        role = "assistant" if message.get("role") == "assistant" else "user"
        for sentence in split(message.get("content", "")):
            if rules.private.search(sentence):
                continue  # never an email address, a phone number or a street address
            question = sentence.rstrip().endswith("?")
            for part in re.split(r"(?<=[;])\s+", sentence) if not question else [sentence]:
                text = _clean(part)
                if len(text) < 3 or rules.small_talk.search(text):
                    continue
                found.append(_Said(turn, role, text, question))
    return found


def _decides(item: _Said) -> bool:
    """The sentence records a decision, a commitment or a task's owner: the user's (or a
    colleague's they name: "Ingrid will handle press"), or the assistant's own commitment; never
    the assistant's advice ("Decide who handles press")."""
    rules = _rules()
    if _advice(item.text):
        return False
    if item.role == "assistant":
        return bool(rules.decision.search(item.text) and rules.assistant_commits.search(item.text))
    if rules.decision.search(item.text):
        return True
    owner = rules.owners.match(item.text)
    return owner is not None and owner.group(1).lower() in given_names()


def _figures(text: str) -> bool:
    return _rules().figures.search(text) is not None


def _advice(text: str) -> bool:
    """Whether the sentence gives advice or an instruction ("Offer a pilot in 5 schools")."""
    return text.split(" ", 1)[0].lower() in _rules().words.advice


def _fact_text(text: str) -> str | None:
    """The part of a sentence that states a fact (after "Start with the scale:" when only that
    part has figures), or None when it states none or gives advice."""
    rules = _rules()
    head, colon, tail = text.partition(": ")
    if colon and not _figures(head) and _figures(tail):
        text = tail
    if _advice(text):
        return None
    if rules.not_facts.search(text):
        return None
    probe = text
    for pattern in rules.not_organisations:
        probe = pattern.sub("", probe)
    if _figures(probe) or rules.names.search(probe):
        return text
    return None


def _keywords(text: str) -> set[str]:
    """The stemmed content words of a question or a reply, to tell whether one is about the
    other (stems, not prefixes: "undercover" is not "under")."""
    q = _rules().words.questions
    skip = q.common | q.auxiliaries | q.wh
    return {t for t in terms(text) if t not in skip and len(t) > 2}


@dataclass
class _Reply:
    """What one turn offers as an answer."""

    role: str
    spoke: bool  # said anything at all
    deferred: bool  # one of its sentences says it cannot tell
    keywords: set[str]  # of its sentences that do not
    questions: int  # questions it asks


def _replies(said: Sequence[_Said], messages: Sequence[dict[str, str]]) -> list[_Reply]:
    deferrals = _rules().deferrals
    replies = [
        _Reply(
            "assistant" if m.get("role") == "assistant" else "user",
            bool(m.get("content", "").strip()),
            False,
            set(),
            0,
        )
        for m in messages
    ]
    for s in said:
        reply = replies[s.turn]
        reply.questions += s.question
        if deferrals.search(s.text):
            reply.deferred = True
        else:
            reply.keywords |= _keywords(s.text)
    return replies


def _answered(item: _Said, replies: Sequence[_Reply]) -> bool:
    """Whether a later turn of the other side answers the question: any reply from the user; from
    the assistant, a reply that does not say it cannot tell, or (when it does, or when the
    question came with others) a reply about this question."""
    answerer = "user" if item.role == "assistant" else "assistant"
    alone = replies[item.turn].questions <= 1
    wanted = _keywords(item.text)
    for reply in replies[item.turn + 1 :]:
        if reply.role != answerer or not reply.spoke:
            continue
        if answerer == "user":
            return True
        if alone and reply.keywords and not reply.deferred:
            return True
        if wanted & reply.keywords:
            return True
    return False


def _goal_sentence(said: Sequence[_Said]) -> _Said | None:
    """What the first user message asks for: a statement of what the user wants ("We want to
    raise awareness..."), else its first question, else its first sentence."""
    users = [s for s in said if s.role == "user"]
    if not users:
        return None
    first_turn = [s for s in users if s.turn == users[0].turn]
    wants = [s for s in first_turn if not s.question and _rules().goal.search(s.text)]
    questions = [s for s in first_turn if s.question]
    others = [s for s in first_turn if not _rules().decision.search(s.text)]
    chosen = wants or questions or others
    return chosen[0] if chosen else None  # a first message of decisions only has no goal


def _goal(s: _Said | None) -> str | None:
    rules = _rules()
    if s is None:
        return None
    if s.question:
        text, kind = _indirect(s.text, "user")
        lead = rules.words.goal_lead
        if kind == "whether" and text.startswith("whether to "):
            return lead.whether + text
        if kind == "how":
            return lead.how + text
        return text if kind == "request" else lead.other + text
    text = _person(_request(s.text) or s.text, "user")
    for pattern, replacement in rules.goal_rewrites:
        text, found = pattern.subn(replacement, text, count=1)
        if found:
            break
    return _lower_first(text)


def _fact(text: str, role: str, subject: str | None) -> str:
    if subject and re.match(r"(It|They) ", text):
        text = subject + text[text.index(" ") :]  # "It pledged" -> "Harlow Foods pledged"
    rules = _rules()
    return _sentence_case(_apply(rules.notes, _apply(rules.fact_rewrites, _person(text, role))))


_ORGANISATION = re.compile(r"^((?:[A-Z][\w&'-]+ )+?(?:[A-Z][\w&'-]+))(?= )")


def _organisation_at_start(text: str) -> str | None:
    match = _ORGANISATION.match(text)
    if match and len(match.group(1).split()) >= 2 and not match.group(1).startswith("The "):
        return match.group(1)
    return None


def _items(messages: Sequence[dict[str, str]]) -> dict[str, list[str]]:
    """The goal, decisions, facts and open questions, each said the summary's way. Sentences
    are sorted first and rewritten only when kept (a long conversation costs little more)."""
    rules = _rules()
    said = _said(messages)
    goal_said = _goal_sentence(said)
    replies = _replies(said, messages)
    decided: list[_Said] = []
    facts: list[tuple[str, str, str | None]] = []  # (text, role, the organisation "It" is)
    open_: list[_Said] = []
    subject: dict[int, str | None] = {}
    for item in said:
        if item.question:
            if not rules.ignore.search(item.text) and not _answered(item, replies):
                open_.append(item)
            continue
        if _decides(item):
            decided.append(item)
            continue
        fact = _fact_text(item.text) if item is not goal_said else None
        if fact:
            facts.append((fact, item.role, subject.get(item.turn)))
        named = _organisation_at_start(item.text)
        if named:
            subject[item.turn] = named
    facts.sort(key=lambda fact: not _figures(fact[0]))  # figures first, in order (stable sort)
    goal = _goal(goal_said)
    return {
        "goal": [clip(goal, LINE_MAX_CHARS)] if goal else [],
        # the latest decisions and open questions when there are many
        "decided": _distinct(_decision(s) for s in _latest(decided))[-MAX_ITEMS:],
        "facts": _distinct(_fact(*f) for f in _first(facts))[:MAX_FACTS],
        "open": _distinct(_indirect(s.text, s.role)[0] for s in _latest(open_))[-MAX_ITEMS:],
    }


def _latest(items: Sequence[_Said]) -> list[_Said]:
    """The last few distinct sentences (a margin over MAX_ITEMS for rewrites that coincide)."""
    kept: dict[str, _Said] = {}
    for item in reversed(items):  # a repeated sentence counts where it was last said
        kept.setdefault(item.text.lower(), item)
        if len(kept) == 2 * MAX_ITEMS:
            break
    return list(reversed(kept.values()))


def _first(facts: Sequence[tuple[str, str, str | None]]) -> list[tuple[str, str, str | None]]:
    kept: dict[str, tuple[str, str, str | None]] = {}
    for fact in facts:
        kept.setdefault(fact[0].lower(), fact)
    return list(kept.values())[: 2 * MAX_FACTS]


def _decision(item: _Said) -> str:
    rules = _rules()
    text = _apply(rules.decision_rewrites, _person(item.text, item.role))
    return _sentence_case(_apply(rules.notes, text))


def _distinct(items: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        item = clip(item, LINE_MAX_CHARS)
        seen.setdefault(item.lower().rstrip("."), item)
    return list(seen.values())


def _render(items: dict[str, list[str]]) -> str:
    labels = _rules().words.labels
    lines = []
    if items["goal"]:
        lines.append(f"{labels.goal}: {items['goal'][0].rstrip('.')}.")
    if items["decided"]:
        lines.append(f"{labels.decided}: {' '.join(items['decided'])}")
    if items["facts"]:
        lines.append(f"{labels.facts}: {' '.join(items['facts'])}")
    if items["open"]:
        lines.append(f"{labels.open}: {'; '.join(i.rstrip('.') for i in items['open'])}.")
    return "\n".join(lines)


def summarize(messages: Sequence[dict[str, str]]) -> str:
    """A few labelled lines (goal, decided, facts, open questions), at most MAX_CHARS
    characters. When it is too long, facts go first (down to one), then the oldest decisions
    and the oldest open questions (down to one each), then the last fact; the goal stays."""
    items = _items(messages)
    summary = _render(items)
    for key, drop, keep in (("facts", -1, 1), ("decided", 0, 1), ("open", 0, 1), ("facts", -1, 0)):
        while len(summary) > MAX_CHARS and len(items[key]) > keep:
            items[key].pop(drop)
            summary = _render(items)
    return clip(summary, MAX_CHARS) if summary else _rules().words.nothing


# -- measuring ---------------------------------------------------------------------------------


def _grams(text: str) -> list[tuple[str, ...]]:
    tokens = _WORD.findall(text.lower().replace("\u2019", "'"))
    return [tuple(tokens[i : i + NGRAM]) for i in range(len(tokens) - NGRAM + 1)]


def quoted_ratio(summary: str, messages: Sequence[dict[str, str]]) -> float:
    """The share of the summary's word 6-grams that appear word for word in the messages
    (0.0 = nothing quoted, 1.0 = all quoted). Line labels ("Goal:") are not counted and no
    6-gram runs across two lines or two messages; a summary under six words scores 0.0."""
    source = {g for m in messages for g in _grams(m.get("content", ""))}
    grams = [g for line in summary.splitlines() for g in _grams(_LABEL.sub("", line))]
    return sum(g in source for g in grams) / len(grams) if grams else 0.0


def nothing() -> str:
    """What a summary says when there is nothing to summarise."""
    return _rules().words.nothing
