"""Person and company profiles, streamed as NDJSON events, under the responsible-use rules of
decision 0029 (DESIGN.md §3). No Flask here.

Before anything is searched: a person on the opt-out list is refused (403
``subject_opted_out``), a person profiled too often today is refused (429
``subject_rate_limited``), and every request -- refused ones too -- is written to the audit log.

Events, one JSON object per line: ``begin``; one ``source`` per source consulted (with how many
of its items were read, used and left out); one ``finding`` per kept claim (section, claim,
sourceUrl, sourceTitle, publishedAt), section by section; ``report`` (the whole Markdown
report); ``end`` (counts). Or ``error`` instead of the rest when the database failed or no
news source answered (not billed). Every claim is screened (``common.privacy``, the screen every
door uses) before it is sent: a claim with personal data is dropped and counted; a source that
cannot be tied to the subject (a namesake) is left out and counted with its reason, never shown.

A company profile of a name that is a person's is refused (422 ``not_an_organization``), and a
company name that is an opted-out person's is refused like their person profile (decision
0037). A person's place in their day's limit is kept only by a profile delivered to the client
(decision 0066): one that failed, found nothing or whose client left is given back.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from common import privacy
from common.errors import (
    AppError,
    BackendUnavailable,
    InvalidRequest,
    NotAnOrganization,
    SubjectOptedOut,
    SubjectRateLimited,
)
from common.http.streams import Event, StreamError
from common.language import names
from common.logging import get_logger
from common.subjects import audit, limits, optout
from common.subjects.resolve import Evidence, Resolved, resolve
from functions.osint import guardrails, report, sources
from functions.osint.guardrails import NAMESAKE, NO_LINK, Subject
from functions.osint.models import (
    CompanyProfileRequest,
    FindingEvent,
    PersonProfileRequest,
    ProfileBegin,
    ProfileEnd,
    Report,
    SourceRead,
)
from functions.osint.report import Finding
from functions.osint.sources import Consulted, Passage

logger = get_logger("ars.osint")

MAX_FINDINGS_PER_SECTION = 15


def _clean(value: str | None) -> str | None:
    return " ".join(value.split()) if value else None


# --- entry points ------------------------------------------------------------------------------


def person_profile(
    request: PersonProfileRequest,
    consumer_id: str,
    request_id: str,
    on_failure: Callable[[], None],
    when_settled: Callable[[Callable[[bool], None]], None],
) -> Iterator[Event]:
    """Check the opt-out list and reserve a place in the subject's day (raising before any
    byte is sent), record the request, and return the stream's events. The place is kept only
    if the request delivers its profile to the client, as the pipeline settles it
    (``when_settled``, ``Call.when_settled``; decision 0066), and given back otherwise."""
    first, last = _clean(request.firstName) or "", _clean(request.lastName) or ""
    shown = {
        "firstName": first,
        "lastName": last,
        **_present(companyName=request.companyName, companyDomain=request.companyDomain),
    }
    record = _Audit(
        consumer_id,
        "person",
        shown,
        names.canonical_key(f"{first} {last}"),
        _clean(request.reportGoal),
        request_id,
    )
    _refuse_opted_out(f"{first} {last}", record)
    try:
        reservation = limits.admit(f"{first} {last}")
    except SubjectRateLimited:
        record.refuse("refused_rate_limited")
        raise
    when_settled(partial(_give_back, reservation))  # also if what follows raises
    record.begin()
    company = _clean(request.companyName)
    own_name = set(names.canonical(f"{first} {last}"))
    subject = Subject(
        "person",
        first=first,
        last=last,
        companies=_context(company, not_in=own_name),
        extra_tokens=_domain_tokens(request.companyDomain, not_in=own_name),
    )
    run = _Run(subject, record, report.PERSON_SECTIONS, on_failure)
    return run.stream(_person_sources(run, company))


def _not_an_organization(company: str, resolved: Resolved) -> str:
    if resolved.kind == "person":
        return (
            f"'{company}' reads as a person's name and is not an organization this service "
            "knows. Profiles of people are POST /v1/osint/personal-profile, under their own "
            "rules. If it is a company whose name opens with a first name, give it with what "
            "the company does, as in 'Tim Hortons Restaurants'. Not billed."
        )
    return (
        f"'{company}' is a single word that names no organization this service knows, and "
        "could be a person's surname. Give the company's full name (as in 'Harlow Foods') or "
        "its domain in companyDomain. Not billed."
    )


def _refuse_opted_out(name: str, record: _Audit) -> None:
    if optout.is_opted_out(name):
        record.refuse("refused_opted_out")
        raise SubjectOptedOut(
            "This person has asked not to be profiled by this service; the request was not "
            "run and is not billed."
        )


def company_profile(
    request: CompanyProfileRequest,
    consumer_id: str,
    request_id: str,
    on_failure: Callable[[], None],
    channel: str = "api",
) -> Iterator[Event]:
    """Refuse a name that is a person's (422 ``not_an_organization``) or an opted-out
    person's (403), record the request, and return the stream's events."""
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
    known = sources.organisation_records(company)
    resolved = resolve(
        company,
        domain=request.companyDomain,
        records=lambda name: Evidence(
            organisation=str(known[0].get("name") or name) if known else None,
            person=sources.public_figure_named(name),
        ),
    )
    if resolved.opted_out:
        _refuse_opted_out(company, record)
    if resolved.kind != "organisation":
        record.refuse("refused_not_an_organization")
        raise NotAnOrganization(_not_an_organization(company, resolved))
    record.begin()
    subject = Subject(
        "company",
        first=company,
        companies=_context(company),
        extra_tokens=_domain_tokens(request.companyDomain),
        organisations=tuple(guardrails.compact(str(r.get("name") or "")) for r in known),
    )
    run = _Run(subject, record, report.COMPANY_SECTIONS, on_failure)
    return run.stream(_company_sources(run, company, known))


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
    points: list[tuple[str, str, str]] = field(default_factory=list)  # (claim, url, title)


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
    events = list(
        company_profile(
            request, consumer_id, uuid.uuid4().hex, lambda: failed.append(True), channel="chat"
        )
    )
    findings = [e for e in events if isinstance(e, FindingEvent)]
    markdown = next((e.markdown for e in events if isinstance(e, Report)), "")
    cited = list(dict.fromkeys((e.sourceTitle, e.sourceUrl) for e in findings))
    if failed:
        error = next((e.detail for e in events if isinstance(e, StreamError)), None)
        text = f"The profile of {request.companyName} could not be built: {error}"
    elif not findings:
        text = f"Nothing in the sources consulted could be tied to {request.companyName}."
    else:
        points = [f"- {e.claim} ({e.sourceTitle})" for e in findings[:max_points]]
        text = "\n".join([f"{request.companyName}:", *points])
    return CompanySummary(
        text=text,
        sources=[{"title": title, "url": url} for title, url in cited],
        report=markdown,
        findings=len(findings),
        complete=not failed,
        points=[(e.claim, e.sourceUrl, e.sourceTitle) for e in findings[:max_points]],
    )


def _present(**values: str | None) -> dict[str, str]:
    return {k: " ".join(v.split()) for k, v in values.items() if v}


def _domain_tokens(domain: str | None, not_in: set[str] | None = None) -> tuple[str, ...]:
    return _context(names.domain_label(domain), not_in)


def _context(company: str | None, not_in: set[str] | None = None) -> tuple[str, ...]:
    """A company's folded name as context, if it says something: "The", "A" or "News" would
    make every text "name the company" and let namesakes through, and so would a part of the
    person's own name ("Dana" for Dana Whitfield)."""
    from common.language.index import terms

    core = names.company_core(company or "")
    if not core or not terms(core) or (not_in and set(core.split()) <= not_in):
        return ()
    return (core,)


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
    left_out: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    _seen_claims: set[str] = field(default_factory=set)
    _seen_urls: set[str] = field(default_factory=set)
    _known: tuple[Subject, privacy.Known] | None = None

    def stream(self, consulted: Iterator[Consulted]) -> Iterator[Event]:
        """The events (``PROFILE_EVENTS``); the audit entry is completed however the stream
        ends."""
        outcome = "abandoned"
        try:
            yield ProfileBegin(profile=self.subject.kind, subject=self.record.subject)
            try:
                for source in consulted:
                    yield self.take(source)
            except _NoNews:
                outcome = "failed"
                self.on_failure()
                yield StreamError(
                    code="backend_unavailable", detail="No news source answered. Retry shortly."
                )
                return
            except Exception as exc:
                outcome = "failed"
                self.on_failure()
                yield _error_event(exc)
                return
            kept = self._ordered()
            for finding in kept:
                yield finding.event()
            yield Report(markdown=self.markdown(kept))
            outcome = "completed"
            yield ProfileEnd(
                findings=len(kept),
                claimsDropped=sum(self.dropped.values()),
                sourcesLeftOut=sum(self.left_out.values()),
                leftOutReasons=dict(sorted(self.left_out.items())),
                sourcesUsed=len({f.url for f in kept}),
            )
        finally:
            self._finish(outcome)

    def take(self, source: Consulted) -> SourceRead:
        """Screen a source's passages; its ``source`` event."""
        used = 0
        reasons: Counter[str] = Counter()
        for passage in source.passages:
            verdict = self._passage(passage)
            used += verdict == "used"
            if verdict not in ("used", "dropped", "unrelated"):
                reasons[verdict] += 1
        self.left_out += reasons
        return SourceRead(
            source=source.label,
            kind=source.kind,
            status="ok" if source.ok else "failed",
            read=len(source.passages),
            used=used,
            leftOut=sum(reasons.values()),
            leftOutReasons=dict(sorted(reasons.items())),
        )

    def _passage(self, passage: Passage) -> str:
        """ "used", "dropped", "unrelated", or the reason the passage was left out."""
        subject = self.subject
        if passage.namesake:
            return NAMESAKE
        if not passage.verified:
            reason = subject.left_out_because(passage.text)
            if reason == "":
                return "unrelated"
            if reason:
                return reason  # a namesake, or no way to tell: never shown
        if not passage.url:
            return NO_LINK
        if passage.url in self._seen_urls and passage.claims is None:
            return "unrelated"  # the same story from another feed
        self._seen_urls.add(passage.url)
        known = self.known
        if passage.claims is not None:
            claims = list(passage.claims)
        else:
            claims = report.claims_about(
                passage.title, passage.body, subject.mentioned_in, subject.kind == "person"
            )
        title = privacy.clean(report.source_title(passage.title))
        url_verdict, title_verdict = privacy.screen_many([_url_words(passage.url), title], known)
        if url_verdict:
            self.dropped["source_url"] += len(claims)  # a URL that spells out personal data
            return "dropped"
        if not title or title_verdict:
            title = urlsplit(passage.url).hostname or passage.url  # the title says too much
        fresh = []
        for raw in claims:
            claim = privacy.clean(raw)
            key = names.fold(claim)
            if key and key not in self._seen_claims:
                self._seen_claims.add(key)
                fresh.append(claim)
        kept = dropped = 0
        # Every claim of a person's profile is about a person, so a fact stated without her
        # name is still hers; a claim naming someone on the opt-out list is "opted_out".
        verdicts = privacy.screen_many(fresh, known, about_person=subject.kind == "person")
        for claim, category in zip(fresh, verdicts, strict=True):
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

    @property
    def known(self) -> privacy.Known:
        """What the screen may take from the records about the subject (``Subject.known``),
        built once per subject (the person's run replaces it once its record is read)."""
        if self._known is None or self._known[0] is not self.subject:
            self._known = (self.subject, optout.screen_known(self.subject.known()))
        return self._known[1]

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
        left_out = sum(self.left_out.values())
        logger.info(
            "osint profile",
            extra={
                "outcome": outcome,
                "profile": self.subject.kind,
                "subject": names.subject_hash(self.record.subject_key),
                "findings": len(self.findings),
                "claimsDropped": dropped,
                "sourcesLeftOut": left_out,
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
                sources_left_out=left_out,
            )
        except Exception:  # the stream is out: the audit entry stays "started", and is logged
            logger.exception("osint audit entry not completed", extra={"outcome": outcome})


def _give_back(reservation: limits.Reservation, delivered: bool) -> None:
    """A person's place in her day is taken only by a profile delivered to the client."""
    if not delivered:
        reservation.release()


class _NoNews(Exception):
    """Every news source failed."""


def _error_event(exc: Exception) -> StreamError:
    from common.adapters.firestore import backend_unavailable, is_backend_error

    if isinstance(exc, AppError):
        error: AppError = exc
    elif is_backend_error(exc):
        error = backend_unavailable(exc)
    else:
        logger.exception("osint profile failed")
        return StreamError(code="internal", detail="An unexpected error occurred.")
    if not isinstance(error, BackendUnavailable):
        logger.warning("osint profile failed: %s", error.code)
    return StreamError(code=error.code, detail=error.detail)


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
            titles=guardrails.titles_of(context.role),
            facts=guardrails.fact_pairs(context.summary or ""),
            public_office=guardrails.holds_public_office(context.role),
            extra_tokens=subject.extra_tokens,
            organisations=(guardrails.compact(context.organization or ""),),
        )
    texts = report.content().text
    if context.ambiguous:
        run.notes.append(texts.ambiguous.format(name=subject.display))
    elif not subject.companies and not subject.titles:
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
    yield from sources.person_work(subject, context.organization)
    yield sources.knowledge(f"{subject.display} {employer or ''}".strip())
    yield from _collect_news(news)


def _company_sources(
    run: _Run, company: str, organisations: list[dict[str, Any]]
) -> Iterator[Consulted]:
    subject = run.subject
    campaigns, topics, ids = sources.company_campaigns(subject)
    news = _news(
        sources.news_query(subject, company),
        sources.company_topics(topics, company_profile=True),
    )
    yield campaigns
    yield from sources.company_tables(subject, ids, organisations)
    yield sources.knowledge(company)
    yield from _collect_news(news)
