"""Inbound webhook signatures (Standard Webhooks, as Clerk/Svix send them).

The raw body is verified before anything parses it. Both header spellings are accepted
(``webhook-*`` and Clerk's ``svix-*``); a header may carry several ``v1,`` signatures (the
sender rotating its secret), and ``IDP_WEBHOOK_SECRET`` may hold several secrets separated by
spaces (this side rotating). The timestamp must be within 5 minutes of now; signatures are
compared in constant time by the ``standardwebhooks`` library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from common.config import get_settings
from common.errors import InvalidSignature

if TYPE_CHECKING:
    from common.http.routes import HeaderMap

_NAMES = ("id", "timestamp", "signature")


def standard_headers(headers: HeaderMap) -> dict[str, str]:
    """The ``webhook-*`` headers, taken from the ``svix-*`` spelling when that is what came."""
    found = {}
    for name in _NAMES:
        value = headers.get(f"webhook-{name}") or headers.get(f"svix-{name}")
        if value:
            found[f"webhook-{name}"] = value
    return found


def verify(raw: bytes, headers: HeaderMap) -> str:
    """Verify the signature of ``raw``; returns the message id. Raises InvalidSignature."""
    from standardwebhooks.webhooks import Webhook

    standard = standard_headers(headers)
    if len(standard) != len(_NAMES):
        raise InvalidSignature(
            "The webhook-id, webhook-timestamp and webhook-signature "
            "(or svix-*) headers are required."
        )
    secrets = get_settings().idp_webhook_secret.split()
    if not secrets:  # a function deployed without the secret (decision 0033)
        raise RuntimeError("IDP_WEBHOOK_SECRET is not mounted in this function.")
    for secret in secrets:
        try:
            Webhook(secret).verify(raw, standard, json_parse=False)
            return standard["webhook-id"]
        except Exception:  # noqa: S112 - any failure means "not signed with this secret"
            continue
    raise InvalidSignature("The signature does not match, or the timestamp is not within 5 min.")


SENDGRID_SIGNATURE = "X-Twilio-Email-Event-Webhook-Signature"
SENDGRID_TIMESTAMP = "X-Twilio-Email-Event-Webhook-Timestamp"


def verify_sendgrid(raw: bytes, headers: HeaderMap) -> str:
    """Verify SendGrid's signed Event Webhook: an ECDSA P-256 / SHA-256 signature (base64 DER)
    over the timestamp header followed by the raw body, checked with the public key of
    ``SENDGRID_WEBHOOK_PUBLIC_KEY`` (base64 DER, as SendGrid shows it). Returns the timestamp.

    No timestamp window is enforced: SendGrid's retries of a delivery keep their signature, and
    replaying a signed batch can only add the same addresses to the suppression list again."""
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature as BadSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import load_der_public_key

    signature, timestamp = headers.get(SENDGRID_SIGNATURE), headers.get(SENDGRID_TIMESTAMP)
    if not signature or not timestamp:
        raise InvalidSignature(
            f"The {SENDGRID_SIGNATURE} and {SENDGRID_TIMESTAMP} headers are required."
        )
    configured = get_settings().sendgrid_webhook_public_key
    if not configured:
        raise InvalidSignature("This deployment has no SendGrid webhook key configured.")
    try:
        key = load_der_public_key(base64.b64decode(configured))
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise InvalidSignature("The configured SendGrid webhook key is not an EC key.")
        key.verify(
            base64.b64decode(signature, validate=True),
            timestamp.encode() + raw,
            ec.ECDSA(hashes.SHA256()),
        )
    except (BadSignature, ValueError, binascii.Error, TypeError):
        raise InvalidSignature("The signature does not match.") from None
    return timestamp
