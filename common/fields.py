"""The request models' base (``Input``), the annotated field types shared by the request models
of several groups, and the response parts several groups share (``Citation``)."""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Annotated, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    EmailStr,
    Field,
    WithJsonSchema,
)

if TYPE_CHECKING:
    from pydantic.json_schema import JsonDict

SPECIAL_USE_TLDS = ("arpa", "invalid", "local", "localhost", "onion", "test")
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_NOT_SPECIAL = r"(?!.*\.(?:" + "|".join(SPECIAL_USE_TLDS) + r")$)"
EMAIL_PATTERN = (
    rf"^(?=[^@]{{1,64}}@){_ATOM}(?:\.{_ATOM})*@{_NOT_SPECIAL}(?:{_LABEL}\.)+[A-Za-z]{{2,63}}$"
)
_EMAIL = re.compile(EMAIL_PATTERN)


def _documented_shape(value: str) -> str:
    """The documented pattern is enforced too, so what the schema promises and what the
    service accepts are the same set (email-validator alone allows more, e.g. Unicode)."""
    if not _EMAIL.match(value):
        raise ValueError("Use an ASCII address at a real domain, such as name@example.org.")
    return value


# An address mail can be delivered to: email-validator's syntax rules, ASCII only (what
# JSON Schema's "email" format and most mail systems accept), and no special-use domain
# (RFC 6761), which no mail server serves. The documented pattern says the same, so a client
# can check an address before sending it.
Email = Annotated[
    EmailStr,
    AfterValidator(_documented_shape),
    WithJsonSchema(
        {
            "type": "string",
            "format": "email",
            "maxLength": 254,
            "pattern": EMAIL_PATTERN,
            "description": "An ASCII email address at a real domain (not .test, .local, …).",
        }
    ),
]


def _iso_day(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("Use a date as YYYY-MM-DD.")
    return value


# A calendar day written YYYY-MM-DD, and nothing else (pydantic alone would also read "0" or
# "1700000000" from a query string as a Unix timestamp).
IsoDate = Annotated[date, BeforeValidator(_iso_day)]


def _whole_number(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# A JSON integer: JSON Schema counts 30.0 as the integer 30, so the service does too (strict
# validation would otherwise refuse what the published schema allows). 30.5, "30" and true are
# still refused.
JsonInt = Annotated[int, BeforeValidator(_whole_number)]


_RESERVED_ID = re.compile(r"__.*__", re.DOTALL)
MAX_DOCUMENT_ID_BYTES = 1500


def _document_id(value: str) -> str:
    """Firestore's rules for a document id; an id breaking them names nothing that can exist."""
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate, e.g. "\ud800" in JSON
        raise ValueError("Must be valid UTF-8 text.") from None
    if not value or size > MAX_DOCUMENT_ID_BYTES:
        raise ValueError(f"Must be 1 to {MAX_DOCUMENT_ID_BYTES} bytes long.")
    if "/" in value or value in (".", "..") or _RESERVED_ID.fullmatch(value):
        raise ValueError(
            "No resource can have this id (an id is never '.' or '..', never contains '/', "
            "and never both starts and ends with '__')."
        )
    return value


_NOT_RESERVED: JsonDict = {"not": {"pattern": r"^__[\s\S]*__$|^\.\.?$|/"}}
_Id = TypeVar("_Id")

# ``DocumentId`` narrowed by constraints: ``DocumentIdOf[Annotated[str, StringConstraints(...)]]``.
# The constraints go before the id rules (nested Annotated metadata is flattened in order):
# pydantic checks a constraint listed after a validator separately and leaves it out of the
# JSON schema.
DocumentIdOf = Annotated[_Id, AfterValidator(_document_id), Field(json_schema_extra=_NOT_RESERVED)]


# An id that becomes a Firestore document id (decision 0016): valid UTF-8, at most 1,500
# bytes, no "/", not "." or "..", not "__...__" (reserved). An id breaking these rules can
# name nothing that exists, so it is a 400 naming the field -- never a database request that
# fails and is reported as an outage (502).
DocumentId = DocumentIdOf[str]


class Input(BaseModel):
    """What a caller sends: an unknown field is a 400 naming it, so a typo never silently does
    nothing (DESIGN.md §3). Bodies are validated strictly by the pipeline (common.http)."""

    model_config = ConfigDict(extra="forbid")


class Citation(BaseModel):
    """One factual sentence (or record line) of a draft or a reply, with its source
    (decision 0042)."""

    text: str = Field(description="The sentence or record line, as it appears in the output.")
    url: str | None = Field(
        description="The source that holds it: the knowledge document's own listed source "
        "the sentence draws on (or the document's main source), or the record's link. Null "
        "when none of the document's sources is of the sentence's place or year: the "
        "document itself (its title) holds it."
    )
    title: str = Field(description="That source's title.")
