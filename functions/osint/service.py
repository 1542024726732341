"""Person and company profiles, streamed as NDJSON events, under the responsible-use rules of
decision 0029 (DESIGN.md §3). No Flask here.

Before anything is searched: a person on the opt-out list is refused (403
``subject_opted_out``), a person profiled too often today is refused (429
``subject_rate_limited``), and every request -- refused ones too -- is written to the audit log.

Events, one JSON object per line: ``begin``; one ``source`` per source consulted (with how many
of its items were read, used and left out); one ``finding`` per kept claim (section, claim,
sourceUrl, sourceTitle, publishedAt), section by section; ``report`` (the whole Markdown
report); ``end`` (counts). Or ``error`` instead of the rest when the database failed or no
news source answered (not billed). Every claim is screened (``guardrails.screen``) before it
is sent: a claim with personal data is dropped and counted; a source that cannot be tied to
the subject (a namesake) is left out and counted, never shown.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from common.errors import (
    AppError,
    BackendUnavailable,
    InvalidRequest,
    SubjectOptedOut,
    SubjectRateLimited,
)
from common.logging import get_logger
from functions.osint import audit, guardrails, limits, names, optout, report, sources
from functions.osint.guardrails import Subject
from functions.osint.models import CompanyProfileRequest, PersonProfileRequest
from functions.osint.report import Finding
from functions.osint.sources import Consulted, Passage

logger = get_logger("ars.osint")

MAX_FINDINGS_PER_SECTION = 15


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, default=str) + "\n"


def _clean(value: str | None) -> str | None:
    return " ".join(value.split()) if value else None


# --- entry points ------------------------------------------------------------------------------


def person_profile(
    request: PersonProfileRequest,
    consumer_id: str,
    request_id: str,
    on_failure: Callable[[], None],
) -> Iterator[str]:
    """Check the opt-out list and the subject's limit (raising before any byte is sent),
    record the request, and return the stream's lines."""
    first, last = _clean(request.firstName) or "", _clean(request.lastName) or ""
    subject_key = names.short_key(f"{first} {last}")
    shown = {
        "firstName": first,
        "lastName": last,
        **_present(companyName=request.companyName, companyDomain=request.companyDomain),
    }
    record = _Audit(
        consumer_id, "person", shown, subject_key, _clean(request.reportGoal), request_id
    )
    if optout.is_opted_out(first, last):
        record.refuse("refused_opted_out")
        raise SubjectOptedOut(
            "This person has asked not to be profiled by this service; the request was not "
            "run and is not billed."
        )
    try:
        limits.admit(subject_key)
    except SubjectRateLimited:
        record.refuse("refused_rate_limited")
        raise
    record.begin()
    company = _clean(request.companyName)
    subject = Subject(
        "person",
        first=first,
        last=last,
        companies=_context(company),
        extra_tokens=_domain_tokens(request.companyDomain),
    )
    run = _Run(subject, record, report.PERSON_SECTIONS, on_failure)
    return run.stream(_person_sources(run, company))


def company_profile(
    request: CompanyProfileRequest,
    consumer_id: str,
    request_id: str,
    on_failure: Callable[[], None],
    channel: str = "api",
) -> Iterator[str]:
    """Record the request and return the stream's lines."""
    company = _clean(request.companyName) or ""
    shown = {"companyName": company, **_present(companyDomain=request.companyDomain)}
    record = _Audit(
        consumer_id,
        "company",
        shown,
        names.company_core(company),
        _clean(request.reportGoal),
        request_id,
        channel,
    )
    record.begin()
    subject = Subject(
        "company",
        first=company,
        companies=_context(company),
        extra_tokens=_domain_tokens(request.companyDomain),
    )
    run = _Run(subject, record, report.COMPANY_SECTIONS, on_failure)
    return run.stream(_company_sources(run, company))


@dataclass(frozen=True)
class CompanySummary:
    """A company profile for the chat assistant: ``text`` is a few plain lines (the first
    findings, each naming its source), ``sources`` the cited sources ``[{title, url}]``,
    ``report`` the whole Markdown report; ``complete`` is False when the profile could not be
    built (database down, no news source answered), and ``text`` then says so."""

    text: str
    sources: list[dict[str, str]]
    report: str
    findings: int
    complete: bool


def company_summary(
    company_name: str,
    consumer_id: str,
    *,
    company_domain: str | None = None,
    goal: str | None = None,
    max_points: int = 5,
) -> CompanySummary:
    """The company profile, not streamed, under the same rules and audit (channel ``chat``);
    not metered here (the chat request that asks for it is). InvalidRequest for a name the
    profile endpoint would refuse."""
    from pydantic import ValidationError

    try:
        request = CompanyProfileRequest.model_validate(
            {
                "companyName": company_name,
                **_present(companyDomain=company_domain, reportGoal=goal),
            }
        )
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise InvalidRequest(f"Not a company profile request: {message}") from None
    failed: list[bool] = []
    events = [
        json.loads(line)
        for line in company_profile(
            request, consumer_id, uuid.uuid4().hex, lambda: failed.append(True), channel="chat"
        )
    ]
    findings = [e for e in events if e["type"] == "finding"]
    markdown = next((e["markdown"] for e in events if e["type"] == "report"), "")
    cited = list(dict.fromkeys((e["sourceTitle"], e["sourceUrl"]) for e in findings))
    if failed:
        error: dict[str, Any] = next((e for e in events if e["type"] == "error"), {})
        text = f"The profile of {request.companyName} could not be built: {error.get('detail')}"
    elif not findings:
        text = f"Nothing in the sources consulted could be tied to {request.companyName}."
    else:
        points = [f"- {e['claim']} ({e['sourceTitle']})" for e in findings[:max_points]]
        text = "\n".join([f"{request.companyName}:", *points])
    return CompanySummary(
        text=text,
        sources=[{"title": title, "url": url} for title, url in cited],
        report=markdown,
        findings=len(findings),
        complete=not failed,
    )


def _present(**values: str | None) -> dict[str, str]:
    return {k: " ".join(v.split()) for k, v in values.items() if v}


def _domain_tokens(domain: str | None) -> tuple[str, ...]:
    return _context(names.domain_label(domain))


def _context(company: str | None) -> tuple[str, ...]:
    """A company's folded name as context, if it says something: "The", "A" or "News" would
    make every text "name the company" and let namesakes through."""
    from common.textindex import terms

    core = names.company_core(company or "")
    return (core,) if core and terms(core) else ()


def _role(role: str | None) -> tuple[str, ...]:
    """A role as context only when it is specific ("head of sustainability"); "Director"
    alone is too common to tell a namesake apart."""
    from common.textindex import terms

    return (names.fold(role),) if role and len(terms(role)) >= 2 else ()


# --- the audit record of one request -----------------------------------------------------------


@dataclass
class _Audit:
    consumer_id: str
    profile: str
    subject: dict[str, str]
    subject_key: str
    goal: str | None
    request_id: str
    channel: str = "api"
    entry_id: str | None = None

    def _start(self, outcome: str) -> str:
        return audit.start(
            consumer_id=self.consumer_id,
            profile=self.profile,
            subject=self.subject,
            subject_key=self.subject_key,
            goal=self.goal,
            channel=self.channel,
            request_id=self.request_id,
            outcome=outcome,
        )

    def begin(self) -> None:
        self.entry_id = self._start("started")

    def refuse(self, outcome: str) -> None:
        self._start(outcome)
        logger.info(
            "osint request refused",
            extra={"outcome": outcome, "subject": names.subject_hash(self.subject_key)},
        )


# --- one profile run ---------------------------------------------------------------------------


@dataclass
class _Run:
    subject: Subject
    record: _Audit
    sections: tuple[str, ...]
    on_failure: Callable[[], None]
    findings: list[Finding] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    left_out: int = 0
    notes: list[str] = field(default_factory=list)
    _seen_claims: set[str] = field(default_factory=set)
    _seen_urls: set[str] = field(default_factory=set)

    def stream(self, consulted: Iterator[Consulted]) -> Iterator[str]:
        """The NDJSON lines; the audit entry is completed however the stream ends."""
        outcome = "abandoned"
        try:
            yield _line(
                {"type": "begin", "profile": self.subject.kind, "subject": self.record.subject}
            )
            try:
                for source in consulted:
                    yield _line(self.take(source))
            except _NoNews:
                outcome = "failed"
                self.on_failure()
                yield _line(
                    {
                        "type": "error",
                        "code": "backend_unavailable",
                        "detail": "No news source answered. Retry shortly.",
                    }
                )
                return
            except Exception as exc:
                outcome = "failed"
                self.on_failure()
                yield _line(_error_event(exc))
                return
            kept = self._ordered()
            for finding in kept:
                yield _line(finding.event())
            yield _line({"type": "report", "markdown": self.markdown(kept)})
            outcome = "completed"
            yield _line(
                {
                    "type": "end",
                    "findings": len(kept),
                    "claimsDropped": sum(self.dropped.values()),
                    "sourcesLeftOut": self.left_out,
                    "sourcesUsed": len({f.url for f in kept}),
                }
            )
        finally:
            self._finish(outcome)

    def take(self, source: Consulted) -> dict[str, Any]:
        """Screen a source's passages; its ``source`` event."""
        used = left_out = 0
        for passage in source.passages:
            verdict = self._passage(passage)
            used += verdict == "used"
            left_out += verdict == "left_out"
        return {
            "type": "source",
            "source": source.label,
            "kind": source.kind,
            "status": "ok" if source.ok else "failed",
            "read": len(source.passages),
            "used": used,
            "leftOut": left_out,
        }

    def _passage(self, passage: Passage) -> str:
        subject = self.subject
        if passage.namesake:
            self.left_out += 1
            return "left_out"
        if not passage.verified and not subject.identifies(passage.text):
            if subject.kind == "person" and subject.names(passage.text):
                self.left_out += 1  # a namesake, or no way to tell: never shown
                return "left_out"
            return "unrelated"
        if not passage.url:
            self.left_out += 1  # nothing to cite
            return "left_out"
        if passage.url in self._seen_urls and passage.claims is None:
            return "unrelated"  # the same story from another feed
        self._seen_urls.add(passage.url)
        policy = subject.policy()
        if passage.claims is not None:
            claims = list(passage.claims)
        else:
            claims = report.claims_about(
                passage.title, passage.body, subject.mentioned_in, subject.kind == "person"
            )
        if guardrails.screen(_url_words(passage.url), policy):
            self.dropped["source_url"] += len(claims)  # a URL that spells out personal data
            return "dropped"
        title = guardrails.clean(report.source_title(passage.title))
        if not title or guardrails.screen(title, policy):
            title = urlsplit(passage.url).hostname or passage.url  # the title says too much
        kept = dropped = 0
        for raw in claims:
            claim = guardrails.clean(raw)
            key = names.fold(claim)
            if not key or key in self._seen_claims:
                continue
            self._seen_claims.add(key)
            category = guardrails.screen(claim, policy)
            if category is not None:
                self.dropped[category] += 1
                dropped += 1
                continue
            section = passage.section
            if section == "news" and subject.kind == "company" and report.about_commitments(claim):
                section = "commitments"
            self.findings.append(Finding(section, claim, passage.url, title, passage.published))
            kept += 1
        return "used" if kept else ("dropped" if dropped else "unrelated")

    def _ordered(self) -> list[Finding]:
        ordered: list[Finding] = []
        for section in self.sections:
            in_section = [f for f in self.findings if f.section == section]
            if section == "news":  # newest first; undated last
                in_section.sort(key=lambda f: f.published or "", reverse=True)
            ordered += in_section[:MAX_FINDINGS_PER_SECTION]
        return ordered

    def markdown(self, kept: list[Finding]) -> str:
        texts = report.content().text
        name = self.subject.display
        notes = list(self.notes)
        if not kept:
            notes.append(texts.nothing_found.format(name=name))
        person = self.subject.kind == "person"
        return report.markdown(
            title=(texts.person_title if person else texts.company_title).format(name=name),
            scope=texts.person_scope if person else texts.company_scope,
            goal=self.record.goal,
            sections=self.sections,
            findings=kept,
            notes=notes,
            dropped=sum(self.dropped.values()),
            left_out=self.left_out,
        )

    def _finish(self, outcome: str) -> None:
        dropped = sum(self.dropped.values())
        logger.info(
            "osint profile",
            extra={
                "outcome": outcome,
                "profile": self.subject.kind,
                "subject": names.subject_hash(self.record.subject_key),
                "findings": len(self.findings),
                "claimsDropped": dropped,
                "sourcesLeftOut": self.left_out,
            },
        )
        if self.record.entry_id is None:
            return
        try:
            audit.finish(
                self.record.entry_id,
                outcome,
                sources_used=[f.url for f in self._ordered()],
                claims_kept=len(self._ordered()),
                claims_dropped=dropped,
                sources_left_out=self.left_out,
            )
        except Exception:  # the stream is out: the audit entry stays "started", and is logged
            logger.exception("osint audit entry not completed", extra={"outcome": outcome})


class _NoNews(Exception):
    """Every news source failed."""


def _error_event(exc: Exception) -> dict[str, Any]:
    from common.firestore import backend_unavailable, is_backend_error

    if isinstance(exc, AppError):
        error: AppError = exc
    elif is_backend_error(exc):
        error = backend_unavailable(exc)
    else:
        logger.exception("osint profile failed")
        return {"type": "error", "code": "internal", "detail": "An unexpected error occurred."}
    if not isinstance(error, BackendUnavailable):
        logger.warning("osint profile failed: %s", error.code)
    return {"type": "error", "code": error.code, "detail": error.detail}


def _url_words(url: str) -> str:
    """A URL's path and query as words ("/dana-whitfield-husband" -> "dana whitfield
    husband"): what the guardrails read of a link."""
    parts = urlsplit(url)
    return " ".join(
        f"{parts.path} {parts.query}".replace("-", " ").replace("_", " ").replace("/", " ").split()
    )


# --- the sources of each profile ---------------------------------------------------------------


def _news(query: str, topics: list[str]) -> Future[list[Consulted]]:
    """The news, fetched in the background while the tables are read."""
    feeds = sources.news_feeds(query, topics)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="osint-news")
    try:
        return pool.submit(sources.fetch_news, feeds)
    finally:
        pool.shutdown(wait=False)


def _collect_news(future: Future[list[Consulted]]) -> Iterator[Consulted]:
    consulted = future.result()
    yield from consulted
    if consulted and not any(source.ok for source in consulted):
        raise _NoNews()


def _person_sources(run: _Run, company: str | None) -> Iterator[Consulted]:
    subject = run.subject
    context = sources.public_figure(subject, company_given=company is not None)
    if context.organization or context.role:  # the record tells what ties a source to them
        run.subject = subject = Subject(
            "person",
            first=subject.first,
            last=subject.last,
            companies=tuple(dict.fromkeys((*subject.companies, *_context(context.organization)))),
            roles=_role(context.role),
            public_office=guardrails.holds_public_office(context.role),
            extra_tokens=subject.extra_tokens,
        )
    texts = report.content().text
    if context.ambiguous:
        run.notes.append(texts.ambiguous.format(name=subject.display))
    elif not subject.companies and not subject.roles:
        run.notes.append(texts.no_context.format(name=subject.display))
    employer = company or context.organization
    topics: list[str] = []
    if employer:
        _, topics, _ = sources.company_campaigns(Subject("company", companies=_context(employer)))
    news = _news(
        sources.news_query(subject, employer),
        sources.company_topics(topics, company_profile=False),
    )
    yield context.consulted
    yield from sources.person_work(subject)
    yield sources.knowledge(f"{subject.display} {employer or ''}".strip())
    yield from _collect_news(news)


def _company_sources(run: _Run, company: str) -> Iterator[Consulted]:
    subject = run.subject
    campaigns, topics, ids = sources.company_campaigns(subject)
    news = _news(
        sources.news_query(subject, company),
        sources.company_topics(topics, company_profile=True),
    )
    yield campaigns
    yield from sources.company_tables(subject, ids)
    yield sources.knowledge(company)
    yield from _collect_news(news)
