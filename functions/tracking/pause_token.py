"""Signed email links: one-click pause links (RFC 8058) carried by every digest email, and the
confirm and unsubscribe links of ``recipients`` (``sign_claims`` / ``verify_claims``).

A token is ``b64url(payload) + "." + b64url(HMAC-SHA256(secret, b64url(payload)))`` where the
payload is compact JSON ``{"s": subscription id, "r": run id, "e": unix expiry}``. The link needs
no API key, so the signature is all that authorises it: it is checked, in constant time and on
the exact characters received, before the payload is decoded at all.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from common.config import get_settings
from common.errors import InvalidPauseToken

MAX_TOKEN_CHARS = 512
NOT_VALID = "This pause link is not valid."
EXPIRED = "This pause link has expired."
LINK_NOT_VALID = "This link is not valid."
LINK_EXPIRED = "This link has expired."


@dataclass(frozen=True)
class PauseClaim:
    """What a valid token says."""

    subscription_id: str
    run_id: str
    token_id: str  # sha256 hex of the whole token: the key under which its single use is recorded
    expires_at: datetime


def make_token(subscription_id: str, run_id: str, *, now: datetime | None = None) -> str:
    """A token for pausing ``subscription_id``, valid for PAUSE_LINK_TTL_DAYS."""
    if not subscription_id or not run_id:
        raise ValueError("subscription_id and run_id must be non-empty")
    settings = get_settings()
    expires = _utc(now) + timedelta(days=settings.pause_link_ttl_days)
    payload = json.dumps(
        {"s": subscription_id, "r": run_id, "e": int(expires.timestamp())},
        separators=(",", ":"),
        ensure_ascii=True,
    )
    body = _b64encode(payload.encode())
    token = f"{body}.{_signature(body)}"
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError("identifiers too long for a pause token")
    return token


def read_token(token: str, *, now: datetime | None = None) -> PauseClaim:
    """Verify ``token`` and return its claim, or raise ``InvalidPauseToken``."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        raise InvalidPauseToken(NOT_VALID)
    if not token.isascii():
        raise InvalidPauseToken(NOT_VALID)
    body, dot, signature = token.partition(".")
    if not dot or not body or not signature:
        raise InvalidPauseToken(NOT_VALID)
    # Comparing the encoded strings (not decoded bytes) keeps tokens canonical: one signed
    # payload has exactly one accepted spelling, so token_id really identifies one link.
    if not hmac.compare_digest(signature, _signature(body)):
        raise InvalidPauseToken(NOT_VALID)
    try:
        claims = json.loads(_b64decode(body))
    except (ValueError, binascii.Error):
        raise InvalidPauseToken(NOT_VALID) from None
    if not isinstance(claims, dict):
        raise InvalidPauseToken(NOT_VALID)
    subscription_id, run_id, expiry = claims.get("s"), claims.get("r"), claims.get("e")
    if not (
        isinstance(subscription_id, str)
        and subscription_id
        and isinstance(run_id, str)
        and run_id
        and isinstance(expiry, int)
        and not isinstance(expiry, bool)
    ):
        raise InvalidPauseToken(NOT_VALID)
    try:
        expires_at = datetime.fromtimestamp(expiry, UTC)
    except (OverflowError, OSError, ValueError):
        raise InvalidPauseToken(NOT_VALID) from None
    if _utc(now) >= expires_at:
        raise InvalidPauseToken(EXPIRED)
    return PauseClaim(
        subscription_id=subscription_id,
        run_id=run_id,
        token_id=hashlib.sha256(token.encode()).hexdigest(),
        expires_at=expires_at,
    )


def sign_claims(claims: dict[str, str | int], purpose: str, ttl: timedelta) -> str:
    """A token for another kind of email link (``confirm``, ``unsubscribe``): the same format
    as a pause token, with ``"e"`` (expiry) added to ``claims``, signed with a key derived
    for ``purpose`` so a token made for one kind of link is never valid for another."""
    payload = json.dumps(
        {**claims, "e": int((datetime.now(UTC) + ttl).timestamp())},
        separators=(",", ":"),
        ensure_ascii=True,
    )
    body = _b64encode(payload.encode())
    return f"{body}.{_signature(body, purpose)}"


def verify_claims(token: str, purpose: str, *, now: datetime | None = None) -> dict[str, Any]:
    """The claims of a valid, unexpired token made by ``sign_claims`` for ``purpose``, or
    ``InvalidPauseToken`` (400) saying the link is not valid or has expired."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        raise InvalidPauseToken(LINK_NOT_VALID)
    body, dot, signature = token.partition(".")
    if not token.isascii() or not dot or not body or not signature:
        raise InvalidPauseToken(LINK_NOT_VALID)
    if not hmac.compare_digest(signature, _signature(body, purpose)):
        raise InvalidPauseToken(LINK_NOT_VALID)
    try:
        claims = json.loads(_b64decode(body))
    except (ValueError, binascii.Error):
        raise InvalidPauseToken(LINK_NOT_VALID) from None
    expiry = claims.get("e") if isinstance(claims, dict) else None
    if not isinstance(expiry, int) or isinstance(expiry, bool):
        raise InvalidPauseToken(LINK_NOT_VALID)
    if _utc(now).timestamp() >= expiry:
        raise InvalidPauseToken(LINK_EXPIRED)
    return claims


def pause_url(token: str) -> str:
    """The link put in the email and its List-Unsubscribe header (the token is URL-safe)."""
    return f"{get_settings().public_base_url}/v1/tracking/pause?token={token}"


def _signature(body: str, purpose: str = "pause") -> str:
    key = get_settings().pause_link_secret.encode()
    if not key:  # a function deployed without the secret (decision 0033): never an empty key
        raise RuntimeError("PAUSE_LINK_SECRET is not mounted in this function.")
    if purpose != "pause":  # pause links keep the key they were first issued with
        key = hmac.new(key, f"link-purpose:{purpose}".encode(), hashlib.sha256).digest()
    return _b64encode(hmac.new(key, body.encode(), hashlib.sha256).digest())


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _utc(now: datetime | None) -> datetime:
    """Naive datetimes are taken as UTC, never as the machine's local time."""
    if now is None:
        return datetime.now(UTC)
    return now if now.tzinfo is not None else now.replace(tzinfo=UTC)
