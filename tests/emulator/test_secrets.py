"""Secrets never rest in plaintext and never reach a log."""

from __future__ import annotations

import logging

import pytest

from common.accounts import keys
from common.adapters.firestore import get_db
from common.config import LOCAL_WEBHOOK_SECRET
from devtools.localidp import signed_webhook, user_event
from tests.helpers import bearer, client

pytestmark = pytest.mark.emulator


def every_document() -> list[dict]:
    found = []

    def walk(collection) -> None:
        for doc in collection.stream():
            found.append(doc.to_dict())
            for sub in doc.reference.collections():
                walk(sub)

    for collection in get_db().collections():
        walk(collection)
    return found


def full_flow(local_idp) -> list[str]:
    """Webhook -> consumer -> ID token -> portal key -> API calls -> rotation and revocation.
    Returns every secret that was in play."""
    body, headers = signed_webhook(
        user_event("user.created", "flow@example.org"), LOCAL_WEBHOOK_SECRET
    )
    assert client().post("/webhooks/idp", data=body, headers=headers).status_code == 204
    token = local_idp.token("flow@example.org")
    created = client().post("/v1/portal/keys", json={"name": "ci"}, headers=bearer(token))
    portal_key = created.get_json()["data"]["key"]
    subs = client().post(
        "/v1/tracking/subscriptions", json={"topics": ["fur"]}, headers=bearer(portal_key)
    )
    assert subs.status_code == 201
    consumer_id = keys.verify(portal_key).consumer_id
    admin_key = keys.issue_key(consumer_id, name="admin").plaintext
    rotated = keys.rotate_key(keys.verify(admin_key).key_id, grace_hours=1).plaintext
    for key in (portal_key, admin_key, rotated, keys.generate_key()):
        client().get("/v1/tracking/subscriptions", headers=bearer(key))
    client().delete(f"/v1/portal/keys/{created.get_json()['data']['id']}", headers=bearer(token))
    client().get("/v1/portal/keys", headers=bearer(token + "x"))
    return [
        portal_key,
        admin_key,
        rotated,
        token,
        LOCAL_WEBHOOK_SECRET,
        LOCAL_WEBHOOK_SECRET.removeprefix("whsec_"),
        headers["svix-signature"],
    ]


def test_no_plaintext_key_or_token_is_stored(db, local_idp):
    secrets = full_flow(local_idp)
    stored = repr(every_document())
    assert "key_hash" in stored  # the scan did see the keys
    for secret in secrets:
        assert secret not in stored


def test_no_key_token_or_secret_is_logged(db, local_idp, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    secrets = full_flow(local_idp)
    captured = capsys.readouterr()
    logged = captured.out + captured.err + caplog.text
    assert '"message": "request"' in logged  # the access log was captured
    for secret in secrets:
        assert secret not in logged
