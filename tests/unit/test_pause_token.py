"""Signed one-click pause links: round trip, and every way a token can be bad."""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from common.errors import InvalidPauseToken
from functions.tracking.pause_token import (
    EXPIRED,
    MAX_TOKEN_CHARS,
    NOT_VALID,
    PauseClaim,
    make_token,
    pause_url,
    read_token,
)

NOW = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _secret(settings_env) -> None:
    settings_env(
        PAUSE_LINK_SECRET="test-pause-secret-0123456789abcdef",
        PAUSE_LINK_TTL_DAYS="60",
        PUBLIC_BASE_URL="https://api.example.org/",
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _invalid(token: str, detail: str = NOT_VALID, now: datetime = NOW) -> None:
    with pytest.raises(InvalidPauseToken) as caught:
        read_token(token, now=now)
    assert caught.value.detail == detail
    assert caught.value.status == 400


def test_round_trip():
    token = make_token("sub-123", "run-2026-11-21", now=NOW)

    claim = read_token(token, now=NOW + timedelta(days=1))

    assert claim == PauseClaim(
        subscription_id="sub-123",
        run_id="run-2026-11-21",
        token_id=hashlib.sha256(token.encode()).hexdigest(),
        expires_at=NOW + timedelta(days=60),
    )
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert "=" not in token


def test_payload_is_compact_json_with_unix_expiry():
    body = make_token("sub-1", "run-1", now=NOW).split(".")[0]

    assert (
        _unb64(body)
        == json.dumps(
            {"s": "sub-1", "r": "run-1", "e": int((NOW + timedelta(days=60)).timestamp())},
            separators=(",", ":"),
        ).encode()
    )


def test_pause_url_uses_the_public_base_url():
    token = make_token("sub-1", "run-1", now=NOW)

    assert pause_url(token) == f"https://api.example.org/v1/tracking/pause?token={token}"


def test_tampered_payload_is_rejected():
    body, signature = make_token("sub-123", "run-1", now=NOW).split(".")
    payload = json.loads(_unb64(body))
    payload["s"] = "someone-elses-subscription"
    forged = _b64(json.dumps(payload, separators=(",", ":")).encode())

    _invalid(f"{forged}.{signature}")


def test_tampered_signature_is_rejected():
    body, signature = make_token("sub-123", "run-1", now=NOW).split(".")
    flipped = bytearray(_unb64(signature))
    flipped[0] ^= 0x01

    _invalid(f"{body}.{_b64(bytes(flipped))}")


def test_a_second_spelling_of_the_same_signature_is_rejected():
    """The last base64 character of a 32-byte MAC has 2 unused bits; accepting variants would
    give one link several token_ids and defeat its single-use record."""
    token = make_token("sub-123", "run-1", now=NOW)
    body, signature = token.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(signature[-1])
    variant = signature[:-1] + alphabet[last ^ 0x01]
    assert _unb64(variant) == _unb64(signature)  # the same MAC bytes...

    _invalid(f"{body}.{variant}")  # ...but not the token that was issued


def test_truncated_token_is_rejected():
    token = make_token("sub-123", "run-1", now=NOW)

    _invalid(token[:-1])
    _invalid(token[: token.index(".") + 1])
    _invalid(token[: token.index(".")])


@pytest.mark.parametrize(
    "garbage",
    ["", ".", "abc", "abc.def", "a.b.c", "not base64!.???", "é.é", "x" * (MAX_TOKEN_CHARS + 1)],
)
def test_garbage_is_rejected(garbage: str):
    _invalid(garbage)


def test_signed_but_malformed_payload_is_rejected():
    """Even a correctly signed payload must have the expected shape (defence in depth)."""
    import hmac

    secret = b"test-pause-secret-0123456789abcdef"
    for payload in (b"[]", b"not json", b'{"s": "", "r": "run", "e": 1}', b'{"s": "a", "r": "b"}'):
        body = _b64(payload)
        signature = _b64(hmac.new(secret, body.encode(), hashlib.sha256).digest())
        _invalid(f"{body}.{signature}")


def test_token_signed_with_another_secret_is_rejected(settings_env):
    settings_env(PAUSE_LINK_SECRET="another-secret-entirely-0123456789")
    token = make_token("sub-123", "run-1", now=NOW)
    settings_env(PAUSE_LINK_SECRET="test-pause-secret-0123456789abcdef")

    _invalid(token)


def test_expired_token_is_rejected_with_its_own_detail():
    token = make_token("sub-123", "run-1", now=NOW)
    expiry = NOW + timedelta(days=60)

    assert read_token(token, now=expiry - timedelta(seconds=1)).subscription_id == "sub-123"
    _invalid(token, EXPIRED, now=expiry)
    _invalid(token, EXPIRED, now=expiry + timedelta(days=365))


def test_an_expired_forgery_is_not_valid_rather_than_expired():
    """The signature is checked first: a forged token learns nothing from the expiry."""
    body, signature = make_token("sub-123", "run-1", now=NOW - timedelta(days=400)).split(".")

    _invalid(f"{body}.{signature[::-1]}", NOT_VALID)


def test_ttl_comes_from_settings(settings_env):
    settings_env(PAUSE_LINK_TTL_DAYS="7")

    claim = read_token(make_token("sub-1", "run-1", now=NOW), now=NOW)

    assert claim.expires_at == NOW + timedelta(days=7)


def test_identifiers_too_long_for_a_token_are_refused_at_creation():
    with pytest.raises(ValueError, match="too long"):
        make_token("s" * 400, "run-1", now=NOW)
    with pytest.raises(ValueError, match="non-empty"):
        make_token("", "run-1", now=NOW)
