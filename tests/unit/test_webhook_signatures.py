"""Standard Webhooks verification with real signatures made by the library's signer."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook

from common.config import LOCAL_WEBHOOK_SECRET
from common.errors import InvalidSignature
from common.http.webhooks import verify
from devtools.localidp import signed_webhook, user_event

OTHER_SECRET = "whsec_" + "b3RoZXItc2VjcmV0LWZvci10ZXN0cy0xMjM0NTY3OA=="


def delivery(secret: str = LOCAL_WEBHOOK_SECRET, **kwargs):
    return signed_webhook(user_event("user.created", "a@example.org"), secret, **kwargs)


@pytest.mark.parametrize("spelling", ["svix", "webhook"])
def test_valid_signature_in_either_spelling(spelling):
    body, headers = delivery(spelling=spelling, msg_id="msg_1")
    assert verify(body, headers) == "msg_1"


def test_tampered_body_is_rejected():
    body, headers = delivery()
    tampered = body.replace(b"a@example.org", b"b@example.org")
    with pytest.raises(InvalidSignature):
        verify(tampered, headers)


def test_wrong_secret_is_rejected():
    body, headers = delivery(OTHER_SECRET)
    with pytest.raises(InvalidSignature):
        verify(body, headers)


def test_sender_rotating_sends_two_signatures():
    body, headers = delivery(OTHER_SECRET, msg_id="msg_2")
    at = datetime.fromtimestamp(int(headers["svix-timestamp"]), UTC)
    ours = Webhook(LOCAL_WEBHOOK_SECRET).sign("msg_2", at, body.decode())
    headers["svix-signature"] = f"{headers['svix-signature']} {ours}"
    assert verify(body, headers) == "msg_2"


def test_receiver_rotating_accepts_either_configured_secret(settings_env):
    settings_env(IDP_WEBHOOK_SECRET=f"{OTHER_SECRET} {LOCAL_WEBHOOK_SECRET}")
    for secret in (OTHER_SECRET, LOCAL_WEBHOOK_SECRET):
        assert verify(*delivery(secret))


@pytest.mark.parametrize("offset", [timedelta(minutes=-6), timedelta(minutes=6)])
def test_stale_and_future_timestamps_are_rejected(offset):
    body, headers = delivery(at=datetime.now(UTC) + offset)
    with pytest.raises(InvalidSignature):
        verify(body, headers)


def test_within_tolerance_is_accepted():
    assert verify(*delivery(at=datetime.now(UTC) - timedelta(minutes=4)))


@pytest.mark.parametrize("drop", ["svix-id", "svix-timestamp", "svix-signature"])
def test_missing_headers_are_rejected(drop):
    body, headers = delivery()
    del headers[drop]
    with pytest.raises(InvalidSignature):
        verify(body, headers)


@pytest.mark.parametrize("signature", ["garbage", "v1,not-base64!!", "v2,AAAA", ""])
def test_malformed_signature_headers_are_401_not_500(signature):
    body, headers = delivery()
    headers["svix-signature"] = signature
    with pytest.raises(InvalidSignature):
        verify(body, headers)


def test_non_utf8_body_is_rejected():
    _, headers = delivery()
    with pytest.raises(InvalidSignature):
        verify(b"\xff\xfe" + json.dumps({}).encode(), headers)
