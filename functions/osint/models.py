"""Request and response models of the OSINT group (the profiles themselves are NDJSON streams).

Names are checked here, before anything is searched: a person's name is letters (any script)
with single spaces, hyphens, apostrophes or full stops between them ("Jean-Luc", "O'Brien",
"J. R."); a company's name starts with a letter or digit and may hold the punctuation company
names use ("H&M", "Ben & Jerry's", "Procter & Gamble Co."). The JSON Schema carries the same
patterns, so a client can check before sending.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from common.fields import Input
from common.http.streams import Event, StreamError
from common.language.safety import NOT_BLANK

NAME_MAX = 60
COMPANY_MAX = 120
GOAL_MAX = 500

PERSON_NAME = r"^[^\W\d_]+(?:(?:\. ?|[ '\u2019-])[^\W\d_]+)*\.?$"
COMPANY_NAME = r"^[^\W_][\w &'\u2019.,+()!/-]*$"
DOMAIN = r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$"
GOAL = NOT_BLANK


def _matches(pattern: str, message: str) -> AfterValidator:
    """The pattern, checked in Python (as the JSON Schema states it) with a clear message."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.search(value):
            raise ValueError(message)
        return value

    return AfterValidator(check)


PersonName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=NAME_MAX,
        json_schema_extra={"pattern": PERSON_NAME},
        examples=["Dana"],
    ),
    _matches(
        PERSON_NAME,
        "Must be a name: letters, with single spaces, hyphens, apostrophes or full stops "
        "between them.",
    ),
]
CompanyName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=COMPANY_MAX,
        json_schema_extra={"pattern": COMPANY_NAME},
        examples=["Harlow Foods"],
    ),
    _matches(
        COMPANY_NAME,
        "Must be a company name: it starts with a letter or digit; letters, digits, spaces "
        "and & ' . , + ( ) ! / - only.",
    ),
]
CompanyDomain = Annotated[
    str,
    Field(
        max_length=253,
        json_schema_extra={"pattern": DOMAIN},
        description="The company's web domain, e.g. harlowfoods.example (no scheme, no path).",
    ),
    _matches(DOMAIN, "Must be a domain name such as harlowfoods.example (no https://, no path)."),
]
ReportGoal = Annotated[
    str,
    Field(
        min_length=1,
        max_length=GOAL_MAX,
        json_schema_extra={"pattern": GOAL},
        description="Why you want this report; recorded in the audit log (purpose limitation).",
    ),
    _matches(GOAL, "Must not be blank."),
]


class PersonProfileRequest(Input):
    firstName: PersonName = Field(description="The person's first name.")
    lastName: PersonName = Field(description="The person's last name.")
    companyName: CompanyName | None = Field(
        None,
        description="Their employer: only sources naming them with it are used (strongly "
        "recommended; without it only a public-figures record can give the context).",
    )
    companyDomain: CompanyDomain | None = None
    reportGoal: ReportGoal | None = None


class CompanyProfileRequest(Input):
    companyName: CompanyName = Field(description="The company to profile.")
    companyDomain: CompanyDomain | None = None
    reportGoal: ReportGoal | None = None


class AuditQuery(Input):
    limit: int = Field(50, ge=1, le=100, description="Page size, 1..100.")
    cursor: str | None = Field(
        None, max_length=500, description="next_cursor of the previous page."
    )


class AuditEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    profile: Literal["person", "company", "research", "tracking"] = Field(
        description="The door: a person or company profile, or a research or tracking keyword "
        "that names a person (decision 0058)."
    )
    subject: dict[str, str] = Field(description="The subject as the request named it.")
    reportGoal: str | None
    channel: Literal["api", "chat", "tracking"] = Field(
        description="api: a request; chat: the assistant's company summary; tracking: a "
        "subscription's scheduled run."
    )
    outcome: Literal[
        "started",
        "completed",
        "failed",
        "abandoned",
        "refused_opted_out",
        "refused_rate_limited",
        "refused_not_an_organization",
    ]
    createdAt: datetime
    finishedAt: datetime | None
    sourcesUsed: list[str] = Field(description="URLs of the sources the report cites.")
    claimsKept: int
    claimsDropped: int = Field(description="Claims left out by the responsible-use rules.")
    sourcesLeftOut: int = Field(description="Sources that could not be tied to the subject.")


class AuditList(BaseModel):
    data: list[AuditEntry]
    total: int = Field(description="All of your audit entries.")
    next_cursor: str | None = Field(description="Pass as cursor for the next page; null at end.")


# -- the events of a profile's answer (one JSON object per line) ----------------------------


class ProfileBegin(Event):
    type: Literal["begin"] = "begin"
    profile: Literal["person", "company"]
    subject: dict[str, str] = Field(description="The subject as the request named it.")


class SourceRead(Event):
    """One source consulted."""

    type: Literal["source"] = "source"
    source: str
    kind: str
    status: Literal["ok", "failed"]
    read: int = Field(description="Passages read.")
    used: int = Field(description="Passages a finding came from.")
    leftOut: int = Field(description="Passages left out as not tied to the subject.")
    leftOutReasons: dict[str, int] = Field(description="namesake, no_evidence, no_link.")


class FindingEvent(Event):
    type: Literal["finding"] = "finding"
    section: str
    claim: str
    sourceUrl: str
    sourceTitle: str
    publishedAt: str | None


class Report(Event):
    type: Literal["report"] = "report"
    markdown: str = Field(description="The whole report, every claim with its source URL.")


class ProfileEnd(Event):
    type: Literal["end"] = "end"
    findings: int
    claimsDropped: int = Field(description="Claims left out by the responsible-use rules.")
    sourcesLeftOut: int
    leftOutReasons: dict[str, int]
    sourcesUsed: int


PROFILE_EVENTS = (ProfileBegin, SourceRead, FindingEvent, Report, ProfileEnd, StreamError)
