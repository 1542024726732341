"""POST /webhooks/idp with real signatures, checked in Firestore."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook

from common.accounts import keys
from common.accounts.consumers import find_by_email, get_consumer
from common.adapters.firestore import (
    CONSUMERS,
    IDEMPOTENCY_KEYS,
    IDP_USERS,
    MEMORIES,
    RESULTS,
    SUBSCRIPTIONS,
    get_db,
)
from common.config import LOCAL_WEBHOOK_SECRET
from devtools.localidp import local_user_id, signed_webhook, user_event
from tests.helpers import bearer, client

pytestmark = pytest.mark.emulator
URL = "/webhooks/idp"


def send(event: dict, *, secret: str = LOCAL_WEBHOOK_SECRET, **kwargs):
    body, headers = signed_webhook(event, secret, **kwargs)
    return client("webhooks").post(URL, data=body, headers=headers)


def created(email: str, at_ms: int = 1_000, **kwargs):
    return user_event("user.created", email, updated_at_ms=at_ms, **kwargs)


def updated(email: str, at_ms: int, user_id: str, **data):
    event = user_event("user.updated", email, updated_at_ms=at_ms, user_id=user_id)
    event["data"].update(data)
    return event


def consumer_of(user_id: str) -> dict | None:
    links = [d.to_dict() for d in get_db().collection(IDP_USERS).stream()]
    link = next((x for x in links if x["idp_user_id"] == user_id), None)
    return get_consumer(link["consumer_id"]) if link and link["consumer_id"] else None


def test_user_created_provisions_a_consumer_with_the_primary_email(db):
    event = created("first@example.org")
    event["data"]["email_addresses"].insert(
        0, {"id": "idn_other", "email_address": "other@example.org"}
    )
    response = send(event)
    assert response.status_code == 204
    assert response.data == b""
    consumer = consumer_of(event["data"]["id"])
    assert consumer["email"] == "first@example.org"
    assert consumer["name"] == "Local User"
    assert consumer["status"] == "active"
    assert consumer["idp_user_id"] == event["data"]["id"]
    assert len(consumer["id"]) == 36  # a uuid of ours, not the IdP's id


def _address(email: str, ident: str, status: str | None) -> dict:
    verification = {"status": status} if status else None
    return {"id": ident, "email_address": email, "verification": verification}


def test_only_a_verified_primary_address_becomes_the_owners(db, local_idp):
    """The owner's address gets the account's digests without a consent or the confirmation
    cap, so only an address the user proved is theirs, and chose as primary, is taken: an
    unverified primary, or a verified address that is not the primary, provisions no one, and
    the portal says why (403); the address once verified provisions the account."""
    user_id = local_user_id("owner@example.org")
    event = created("owner@example.org")
    primary = event["data"]["primary_email_address_id"]
    event["data"]["email_addresses"] = [
        _address("victim@example.org", primary, "unverified"),
        _address("owner@example.org", "idn_second", "verified"),
    ]
    assert send(event).status_code == 204  # acknowledged: a retry cannot verify it
    assert list(get_db().collection(CONSUMERS).stream()) == []
    signed_in = bearer(local_idp.token("owner@example.org"))
    refused = client("portal").get("/v1/portal/keys", headers=signed_in)
    assert refused.status_code == 403
    problem = refused.get_json()
    assert problem["code"] == "not_provisioned"
    assert "verified primary email address" in problem["detail"]
    no_primary = updated("owner@example.org", 1_500, user_id, primary_email_address_id=None)
    assert send(no_primary).status_code == 204
    assert list(get_db().collection(CONSUMERS).stream()) == []

    verified = updated("owner@example.org", 2_000, user_id)  # the primary, verified
    assert send(verified).status_code == 204
    assert consumer_of(user_id)["email"] == "owner@example.org"
    assert client("portal").get("/v1/portal/keys", headers=signed_in).status_code == 200

    # a new primary not yet verified does not replace the verified one
    changed = updated("owner@example.org", 3_000, user_id)
    changed["data"]["email_addresses"] = [_address("other@example.org", primary, None)]
    assert send(changed).status_code == 204
    assert consumer_of(user_id)["email"] == "owner@example.org"


def test_duplicate_delivery_has_no_second_effect(db):
    user_id = local_user_id("dup@example.org")
    send(created("dup@example.org"))
    first = send(updated("new@example.org", 2_000, user_id), msg_id="msg_same")
    consumer = consumer_of(user_id)
    get_db().collection(CONSUMERS).document(consumer["id"]).update({"email": "changed@x.org"})
    again = send(updated("new@example.org", 2_000, user_id), msg_id="msg_same")
    assert first.status_code == again.status_code == 204
    assert consumer_of(user_id)["email"] == "changed@x.org"  # the replay changed nothing
    assert len(list(get_db().collection(CONSUMERS).stream())) == 1


def test_an_older_update_never_overwrites_a_newer_one(db):
    user_id = local_user_id("order@example.org")
    send(created("order@example.org", at_ms=1_000))
    send(updated("newest@example.org", 3_000, user_id))
    send(updated("older@example.org", 2_000, user_id))
    assert consumer_of(user_id)["email"] == "newest@example.org"
    send(created("order@example.org", at_ms=1_000))  # a late, repeated create
    assert consumer_of(user_id)["email"] == "newest@example.org"


def test_update_before_create_provisions_and_the_late_create_is_ignored(db):
    user_id = local_user_id("early@example.org")
    send(updated("early-new@example.org", 5_000, user_id))
    send(created("early@example.org", at_ms=1_000))
    assert consumer_of(user_id)["email"] == "early-new@example.org"
    assert len(list(get_db().collection(CONSUMERS).stream())) == 1


def test_banned_user_is_disabled_and_its_keys_stop_working(db):
    user_id = local_user_id("ban@example.org")
    send(created("ban@example.org"))
    key = keys.issue_key(consumer_of(user_id)["id"]).plaintext
    assert keys.verify(key) is not None
    send(updated("ban@example.org", 2_000, user_id, banned=True))
    keys.clear_cache()
    assert consumer_of(user_id)["status"] == "disabled"
    assert keys.verify(key) is None


def test_user_deleted_erases_the_consumers_data(db):
    user_id = local_user_id("gone@example.org")
    send(created("gone@example.org"))
    consumer = consumer_of(user_id)
    key = keys.issue_key(consumer["id"]).plaintext
    keyed = {**bearer(key), "Idempotency-Key": "create-fur-1"}  # its answer is stored
    created_sub = (
        client()
        .post("/v1/tracking/subscriptions", json={"topics": ["fur"]}, headers=keyed)
        .get_json()["data"]
    )
    assert list(get_db().collection(IDEMPOTENCY_KEYS).stream())
    sub_ref = get_db().collection(SUBSCRIPTIONS).document(created_sub["id"])
    sub_ref.collection(RESULTS).document("r1").set({"title": "x"})
    get_db().collection(MEMORIES).document("m1").set({"consumer_id": consumer["id"]})
    get_db().collection("usage").document("u1").set({"consumer_id": consumer["id"], "cost": 1})

    assert send(user_event("user.deleted", "gone@example.org")).status_code == 204

    keys.clear_cache()
    assert keys.verify(key) is None
    assert all(k["revoked_at"] for k in keys.list_keys(consumer["id"]))
    assert not sub_ref.get().exists
    assert list(sub_ref.collection(RESULTS).stream()) == []
    assert list(get_db().collection(MEMORIES).stream()) == []
    assert list(get_db().collection(IDEMPOTENCY_KEYS).stream()) == []
    stored = get_consumer(consumer["id"])
    assert stored["status"] == "disabled"
    assert stored["email"] == ""
    assert stored["name"] == ""
    assert find_by_email("gone@example.org") is None
    assert get_db().collection("usage").document("u1").get().exists  # billing records stay


def test_a_deleted_user_is_never_resurrected(db):
    user_id = local_user_id("zombie@example.org")
    send(created("zombie@example.org", at_ms=1_000))
    send(user_event("user.deleted", "zombie@example.org"))
    send(updated("zombie@example.org", 9_999_999_999_999, user_id))
    send(created("zombie@example.org", at_ms=9_999_999_999_999))
    consumers = [d.to_dict() for d in get_db().collection(CONSUMERS).stream()]
    assert len(consumers) == 1
    assert consumers[0]["status"] == "disabled"


def test_deleted_before_created_leaves_a_tombstone(db):
    send(user_event("user.deleted", "never@example.org"))
    send(created("never@example.org"))
    assert list(get_db().collection(CONSUMERS).stream()) == []


def test_unknown_event_types_are_acknowledged_and_ignored(db):
    event = {"type": "session.created", "data": {"id": "sess_1"}, "object": "event"}
    assert send(event).status_code == 204
    assert list(get_db().collection(CONSUMERS).stream()) == []


def test_a_second_delete_of_a_user_never_seen_is_acknowledged(db):
    # The first leaves a tombstone link with no consumer; a retry of the provider (or another
    # delivery of the same deletion) used to update the consumer "None" and fail with 502.
    first = send(user_event("user.deleted", "ghost@example.org"), msg_id="msg_del_1")
    second = send(user_event("user.deleted", "ghost@example.org"), msg_id="msg_del_2")
    assert (first.status_code, second.status_code) == (204, 204)
    assert send(created("ghost@example.org")).status_code == 204
    assert list(get_db().collection(CONSUMERS).stream()) == []  # still never created


def _event_with_addresses(addresses: list[dict], **data) -> dict:
    event = created("placeholder@example.org", user_id="user_unusable")
    event["data"]["email_addresses"] = addresses
    event["data"].pop("primary_email_address_id")
    event["data"].update(data)
    return event


def _without(event: dict, name: str) -> dict:
    event["data"].pop(name)
    return event


NON_ASCII = "jörg.müller@example.org"


@pytest.mark.parametrize(
    ("event", "fields"),
    [
        (_event_with_addresses([]), None),  # a user who signs in with a phone number
        (_without(created("x@example.org", user_id="user_unusable"), "email_addresses"), None),
        (_event_with_addresses([{"id": "e", "email_address": NON_ASCII}]), None),
        (_event_with_addresses([{"id": "e", "email_address": "not-an-email"}]), None),
        (_without(created("x@example.org", user_id="user_unusable"), "updated_at"), True),
        (created("x@example.org", at_ms=2**64, user_id="user_unusable"), True),  # not an int64
        ({"type": "user.created", "data": {"id": "user_x"}}, True),
        ({"type": "user.created", "data": "user_x"}, True),
        ({"type": "user.updated", "data": None}, True),
        ({"type": "user.deleted", "data": {}}, True),
        ({"type": "user.deleted", "data": ["user_x"]}, True),
    ],
)
def test_verified_events_that_can_never_be_used_are_acknowledged_and_logged(
    db, caplog, event, fields
):
    # A 4xx makes the provider retry for days an event no retry can fix: it is acknowledged.
    caplog.set_level(logging.INFO, logger="ars.webhooks")
    response = send(event, msg_id="msg_unusable")

    assert response.status_code == 204
    assert list(get_db().collection(CONSUMERS).stream()) == []
    [record] = [r for r in caplog.records if r.name == "ars.webhooks"]
    assert record.levelno == logging.WARNING
    assert record.eventType == event["type"]
    assert record.outcome.startswith("ignored: ")
    assert bool(getattr(record, "fields", None)) is bool(fields)  # where, when the data is bad
    logged = json.dumps([r.__dict__ for r in caplog.records], default=str)
    assert "@example.org" not in logged  # never the address
    assert NON_ASCII not in logged
    # Acknowledged once: a redelivery is a duplicate, not a second attempt.
    assert send(event, msg_id="msg_unusable").status_code == 204


def test_a_ban_still_applies_when_the_new_address_is_unusable(db):
    user_id = local_user_id("ban2@example.org")
    send(created("ban2@example.org"))
    event = updated(NON_ASCII, 2_000, user_id, banned=True)

    assert send(event).status_code == 204

    consumer = consumer_of(user_id)
    assert consumer["status"] == "disabled"
    assert consumer["email"] == "ban2@example.org"  # kept: the new one cannot be used


@pytest.mark.parametrize("body", [{"data": {}}, {"type": 5, "data": {}}, ["user.created"]])
def test_a_verified_body_that_is_not_an_event_envelope_is_400(db, body):
    response = send(body)
    assert response.status_code == 400
    assert response.get_json()["code"] == "invalid_request"
    assert list(get_db().collection(CONSUMERS).stream()) == []


def test_verified_non_json_body_is_400(db):
    raw, at = "not json", datetime.now(UTC)
    headers = {
        "webhook-id": "msg_text",
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(LOCAL_WEBHOOK_SECRET).sign("msg_text", at, raw),
    }
    response = client("webhooks").post(URL, data=raw, headers=headers)
    assert response.status_code == 400


def test_bad_signature_or_stale_timestamp_is_401_and_changes_nothing(db):
    other = "whsec_" + "b3RoZXItc2VjcmV0LWZvci10ZXN0cy0xMjM0NTY3OA=="
    stale = datetime.now(UTC) - timedelta(minutes=10)
    for response in (
        send(created("x@example.org"), secret=other),
        send(created("x@example.org"), at=stale),
    ):
        assert response.status_code == 401
        assert response.get_json()["code"] == "invalid_signature"
    body, headers = signed_webhook(created("x@example.org"), LOCAL_WEBHOOK_SECRET)
    tampered = json.loads(body)
    tampered["data"]["email_addresses"][0]["email_address"] = "attacker@example.org"
    response = client("webhooks").post(URL, data=json.dumps(tampered), headers=headers)
    assert response.status_code == 401
    assert list(get_db().collection(CONSUMERS).stream()) == []
