"""Inbound webhook signatures (Standard Webhooks, as Clerk/Svix send them).

The raw body is verified before anything parses it. Both header spellings are accepted
(``webhook-*`` and Clerk's ``svix-*``); a header may carry several ``v1,`` signatures (the
sender rotating its secret), and ``IDP_WEBHOOK_SECRET`` may hold several secrets separated by
spaces (this side rotating). The timestamp must be within 5 minutes of now; signatures are
compared in constant time by the ``standardwebhooks`` library.
"""

from __future__ import annotations

from collections.abc import Mapping

from common.config import get_settings
from common.errors import AppError

_NAMES = ("id", "timestamp", "signature")


class InvalidSignature(AppError):
    status, code, title = 401, "invalid_signature", "Invalid webhook signature"


def standard_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The ``webhook-*`` headers, taken from the ``svix-*`` spelling when that is what came."""
    found = {}
    for name in _NAMES:
        value = headers.get(f"webhook-{name}") or headers.get(f"svix-{name}")
        if value:
            found[f"webhook-{name}"] = value
    return found


def verify(raw: bytes, headers: Mapping[str, str]) -> str:
    """Verify the signature of ``raw``; returns the message id. Raises InvalidSignature."""
    from standardwebhooks.webhooks import Webhook

    standard = standard_headers(headers)
    if len(standard) != len(_NAMES):
        raise InvalidSignature(
            "The webhook-id, webhook-timestamp and webhook-signature "
            "(or svix-*) headers are required."
        )
    for secret in get_settings().idp_webhook_secret.split():
        try:
            Webhook(secret).verify(raw, standard, json_parse=False)
            return standard["webhook-id"]
        except Exception:  # noqa: S112 - any failure means "not signed with this secret"
            continue
    raise InvalidSignature("The signature does not match, or the timestamp is not within 5 min.")
