"""HTTP routes of the OSINT group: person and company profiles (NDJSON streams) and the
caller's own audit log."""

from __future__ import annotations

from common.http import Call, Route, Streamed, Tool
from common.http.streams import NDJSON, ndjson
from functions.osint.models import (
    PROFILE_EVENTS,
    AuditEntry,
    AuditList,
    AuditQuery,
    CompanyProfileRequest,
    FindingEvent,
    PersonProfileRequest,
)


def person_profile(call: Call[PersonProfileRequest]) -> Streamed:
    from functions.osint.service import person_profile as profile

    stream = Streamed([], NDJSON)

    def failed() -> None:
        stream.failed = True

    # Refusals (opt-out 403, subject limit 429) are raised here, before the stream starts.
    stream.chunks = ndjson(
        profile(call.body, call.principal.consumer_id, call.request_id, failed, call.when_settled),
        stream,
        delivers=(FindingEvent,),  # a profile is billed once it has a finding (decision 0039)
    )
    return stream


def company_profile(call: Call[CompanyProfileRequest]) -> Streamed:
    from functions.osint.service import company_profile as profile

    stream = Streamed([], NDJSON)

    def failed() -> None:
        stream.failed = True

    stream.chunks = ndjson(
        profile(call.body, call.principal.consumer_id, call.request_id, failed),
        stream,
        delivers=(FindingEvent,),  # a profile is billed once it has a finding (decision 0039)
    )
    return stream


def audit_log(call: Call[None, AuditQuery]) -> AuditList:
    from common.subjects import audit

    query = call.query
    records, total, next_cursor = audit.list_for_consumer(
        call.principal.consumer_id, query.limit, query.cursor
    )
    data = [AuditEntry.model_validate(audit.view(record)) for record in records]
    return AuditList(data=data, total=total, next_cursor=next_cursor)


_STREAM = (
    "application/x-ndjson, one event per line: begin; source (each source consulted: read, "
    "used, leftOut); finding ({section, claim, sourceUrl, sourceTitle, publishedAt}), "
    "section by section; report ({markdown}: the whole report, every claim with its source "
    "URL); end ({findings, claimsDropped, sourcesLeftOut, leftOutReasons, sourcesUsed}). Or "
    "error instead (database failure, no news source answered): not billed. Claims with "
    "personal data are dropped (counted in claimsDropped); sources that cannot be tied to the "
    "subject are left out (counted, with their reason: namesake, no_evidence, no_link). Every "
    "request is recorded in the audit log (GET /v1/osint/audit)."
)

ROUTES = (
    Route(
        method="POST",
        path="/v1/osint/personal-profile",
        handler=person_profile,
        operation_id="osintPersonalProfile",
        tools=(
            Tool("profile_person", read_only=True, open_world=True, repeated=("source", "finding")),
        ),
        summary="A person's public, professional role from public sources, streamed as NDJSON",
        tag="OSINT",
        body=PersonProfileRequest,
        stream=NDJSON,
        events=PROFILE_EVENTS,
        price="osint.personal_profile",
        errors=(403, 429),
        description=_STREAM
        + " 403 subject_opted_out: the person asked not to be profiled (not billed). 429 "
        "subject_rate_limited: this person was profiled OSINT_SUBJECT_DAILY_LIMIT times today "
        "by all users together (not billed).",
        capacity="streams",
        warm="common.privacy:warm",
    ),
    Route(
        method="POST",
        path="/v1/osint/company-profile",
        handler=company_profile,
        operation_id="osintCompanyProfile",
        tools=(
            Tool(
                "investigate_company",
                read_only=True,
                open_world=True,
                repeated=("source", "finding"),
            ),
        ),
        summary="A company's public commitments, campaigns, actions and news, streamed as NDJSON",
        tag="OSINT",
        body=CompanyProfileRequest,
        stream=NDJSON,
        events=PROFILE_EVENTS,
        price="osint.company_profile",
        errors=(403, 422),
        description=_STREAM
        + " 422 not_an_organization: the name reads as a person's and is no organization the "
        "service knows (people are profiled by /v1/osint/personal-profile; not billed). 403 "
        "subject_opted_out: it is the name of a person who asked not to be profiled (not "
        "billed).",
        capacity="streams",
        warm="common.privacy:warm",
    ),
    Route(
        method="GET",
        path="/v1/osint/audit",
        handler=audit_log,
        operation_id="osintAuditLog",
        summary="Your OSINT requests: who you asked about, when, why, and what the report used",
        tag="OSINT",
        query=AuditQuery,
        response=AuditList,
        description="Free. Yours only, newest first; limit 1..100 (50), cursor.",
    ),
)
