"""Claims and the Markdown report of an OSINT profile. No Flask, no I/O but the data file.

A claim is one sentence of a source about the subject (or a line the service writes from a
curated record, such as a campaign's status). ``claims_about`` picks the sentences of a source
that name the subject -- and a sentence right after one of them that refers back to it ("She
said...", "The company...") -- so a claim is never a sentence about somebody else. The report
lists every kept claim under its section, each with its source's title and URL, then the
sources, then how much was left out (only counts: a source that was left out is never named).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Annotated

from pydantic import Field

from common.datafiles import Content, Line, LowerLine, Prose, Template, load
from common.language import clip
from common.language.sentences import split
from functions.osint.models import FindingEvent

CLAIM_MAX_CHARS = 600
TITLE_MAX_CHARS = 200


class Sections(Content):
    role: Line
    work: Line
    overview: Line
    commitments: Line
    campaigns: Line
    people: Line
    news: Line
    background: Line


class CampaignStatus(Content):
    won: Line
    active: Line
    lost: Line
    paused: Line


class Texts(Content):
    person_title: Annotated[Line, Template("name")]
    company_title: Annotated[Line, Template("name")]
    person_scope: Prose
    company_scope: Prose
    goal: Annotated[Line, Template("goal")]
    no_goal: Line
    generated: Annotated[Line, Template("when")]
    nothing_found: Annotated[Prose, Template("name")]
    ambiguous: Annotated[Prose, Template("name")]
    no_context: Annotated[Prose, Template("name")]
    sources_heading: Line
    left_out: Annotated[Prose, Template("dropped", "left_out")]
    reasons_heading: Line  # then one line per reason (LeftOutReasons)


class LeftOutReasons(Content):
    """Why a source was left out, as the report says it (functions.osint.guardrails)."""

    namesake: Annotated[Line, Template("count")]
    no_evidence: Annotated[Line, Template("count")]
    no_link: Annotated[Line, Template("count")]


class ReportContent(Content):
    """data/osint/report.toml."""

    sections: Sections
    commitment_words: tuple[LowerLine, ...] = Field(min_length=1)
    campaign_status: CampaignStatus
    text: Texts
    left_out_reasons: LeftOutReasons


@cache
def content() -> ReportContent:
    return load("osint/report.toml", ReportContent)


PERSON_SECTIONS = ("role", "work", "news", "background")
COMPANY_SECTIONS = ("overview", "commitments", "campaigns", "people", "news", "background")


def heading(section: str) -> str:
    return str(getattr(content().sections, section))


@cache
def _commitment_pattern() -> re.Pattern[str]:
    words = sorted((re.escape(w) for w in content().commitment_words), key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(words)})(?!\w)", re.IGNORECASE)


def about_commitments(text: str) -> bool:
    return _commitment_pattern().search(text) is not None


def status_text(status: str | None) -> str:
    return str(getattr(content().campaign_status, status or "", None) or (status or "unknown"))


# --- claims ------------------------------------------------------------------------------------

_PERSON_FOLLOW_UP = re.compile(r"^(?:he|she|his|her)\b", re.IGNORECASE)
_COMPANY_FOLLOW_UP = re.compile(
    r"^(?:it|its|the\s+(?:company|retailer|chain|firm|group|supermarket|business|brand|"
    r"producer|supplier|restaurant|caterer))\b",
    re.IGNORECASE,
)


def claims_about(title: str, body: str, mentions: Callable[[str], bool], person: bool) -> list[str]:
    """The sentences of a source (its title first) that are about the subject: those that
    mention it, and one that follows such a sentence and refers back to it."""
    follow_up = _PERSON_FOLLOW_UP if person else _COMPANY_FOLLOW_UP
    found: list[str] = []
    if title and mentions(title):
        found.append(title)
    previous = False
    for sentence in split(body):
        if mentions(sentence) or (previous and follow_up.match(sentence)):
            found.append(sentence)
            previous = True
        else:
            previous = False
    return [clip(claim, CLAIM_MAX_CHARS) for claim in found]


# --- the report --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    section: str  # key
    claim: str
    url: str
    title: str
    published: str | None

    def event(self) -> FindingEvent:
        return FindingEvent(
            section=heading(self.section),
            claim=self.claim,
            sourceUrl=self.url,
            sourceTitle=self.title,
            publishedAt=self.published,
        )


def markdown(
    *,
    title: str,
    scope: str,
    goal: str | None,
    sections: tuple[str, ...],
    findings: list[Finding],
    notes: list[str],
    dropped: int,
    left_out: Mapping[str, int],
    now: datetime | None = None,
) -> str:
    """The whole report: every claim with its source's title and URL."""
    texts = content().text
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M")
    lines = [f"# {escape(title)}", "", escape(scope), ""]
    lines.append(escape(texts.goal.format(goal=goal)) if goal else texts.no_goal)
    lines += ["", texts.generated.format(when=when), ""]
    lines += [escape(note) for note in notes]
    if notes:
        lines.append("")
    for section in sections:
        kept = [f for f in findings if f.section == section]
        if not kept:
            continue
        lines += [f"## {heading(section)}", ""]
        for finding in kept:
            date = f", {finding.published[:10]}" if finding.published else ""
            link = f"[{escape(finding.title)}]({link_target(finding.url)})"
            lines.append(f"- {escape(finding.claim)} ({link}{date})")
        lines.append("")
    used = list(dict.fromkeys((f.url, f.title) for f in findings))
    if used:
        lines += [f"## {texts.sources_heading}", ""]
        lines += [
            f"{n}. [{escape(title)}]({link_target(url)})" for n, (url, title) in enumerate(used, 1)
        ]
        lines.append("")
    total = sum(left_out.values())
    if dropped or total:
        lines += ["---", "", texts.left_out.format(dropped=dropped, left_out=total), ""]
    if total:
        lines += [texts.reasons_heading, ""]
        for reason, count in sorted(left_out.items()):
            said = getattr(content().left_out_reasons, reason, None)
            lines.append(f"- {said.format(count=count) if said else f'{reason}: {count}'}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


_MARKDOWN = re.compile(r"([\\`*_\[\]<>|#!])")


def escape(text: str) -> str:
    """Text from sources as literal Markdown: no link, image, HTML or emphasis of its own."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def link_target(url: str) -> str:
    """A URL safe inside ``[...](...)``."""
    return (
        url.replace(" ", "%20")
        .replace("(", "%28")
        .replace(")", "%29")
        .replace("<", "%3C")
        .replace(">", "%3E")
    )


def source_title(title: str) -> str:
    return clip(" ".join(title.split()), TITLE_MAX_CHARS)
