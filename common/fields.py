"""Annotated field types shared by the request models of several groups."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, EmailStr, WithJsonSchema

SPECIAL_USE_TLDS = ("arpa", "invalid", "local", "localhost", "onion", "test")
_LOCAL_PART = r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+"
_DOMAIN = r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
_NOT_SPECIAL = r"(?!.*\.(?:" + "|".join(SPECIAL_USE_TLDS) + r")$)"


def _ascii_only(value: str) -> str:
    if not value.isascii():
        raise ValueError("Use an address made of ASCII characters only.")
    return value


# An address mail can be delivered to: email-validator's syntax rules, ASCII only (what
# JSON Schema's "email" format and most mail systems accept), and no special-use domain
# (RFC 6761), which no mail server serves. The documented pattern says the same, so a client
# can check an address before sending it.
Email = Annotated[
    EmailStr,
    AfterValidator(_ascii_only),
    WithJsonSchema(
        {
            "type": "string",
            "format": "email",
            "maxLength": 254,
            "pattern": f"^{_LOCAL_PART}@{_NOT_SPECIAL}{_DOMAIN}$",
            "description": "An ASCII email address at a real domain (not .test, .local, …).",
        }
    ),
]
