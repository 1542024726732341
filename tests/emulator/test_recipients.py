"""Consent of third-party recipients and the suppression list, on the real emulator.

Nobody gets a digest they did not ask for: an address other than the owner's own first gets one
confirmation email and nothing else; a recipient can stop all mail to their address, and no
owner can undo that; SendGrid's bounces and spam reports stop it too. Feeds and SendGrid are
loopback fakes; the worker code is the production code, called as the queue would call it.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlparse

import pytest

from common.adapters.firestore import CONSENTS, collection, get_db
from common.adapters.tasks import Enqueued, Task
from common.errors import EmailNotSent
from functions.tracking.run import run_task
from registry import run_task as execute
from tests.helpers import client, create_subscription
from tests.helpers import subscription_doc as sub_doc

pytestmark = pytest.mark.emulator
URL = "/v1/tracking/subscriptions"
CAROL = "Carol@example.net"
SPAM = "BUY CHEAP PILLS"


class Queue:
    """Stands in for the task queue of request_confirmation: records what it was given."""

    def __init__(self, answer: Enqueued = Enqueued.CREATED) -> None:
        self.tasks: list[Task] = []
        self.answer = answer

    def __call__(self, task: Task) -> Enqueued:
        self.tasks.append(task)
        return self.answer


@pytest.fixture
def queue(monkeypatch) -> Queue:
    collected = Queue()
    monkeypatch.setattr("functions.tracking.recipients.enqueue", collected)
    return collected


def subscribe_carol(auth: dict[str, str], **extra) -> dict:
    body = {
        "topics": ["cage-free"],
        "custom_keywords": [SPAM],
        "specific_interests": "Call 555-0100 to claim your prize",
        "frequency": "realtime",
        "delivery_email": CAROL,
        **extra,
    }
    return create_subscription(auth, body)


_runs = itertools.count(1)


def run_now(sub: dict) -> Task:
    """A new run of the subscription (run ids have whole seconds: each call a later one)."""
    return run_task(sub["id"], sub["user_id"], datetime.now(UTC) + timedelta(seconds=next(_runs)))


def text_of(message: dict) -> str:
    return next(c["value"] for c in message["content"] if c["type"] == "text/plain")


def html_of(message: dict) -> str:
    return next(c["value"] for c in message["content"] if c["type"] == "text/html")


def link_in(message: dict, path: str) -> str:
    match = re.search(
        rf"https://api\.example\.org{re.escape(path)}\?token=[A-Za-z0-9_.-]+", text_of(message)
    )
    assert match, f"no {path} link in the email"
    return match.group()


def post_link(link: str):
    parts = urlparse(link)
    token = parse_qs(parts.query)["token"][0]
    return client().post(
        parts.path,
        query_string={"token": token},
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )


def status_of(auth: dict[str, str], sub_id: str) -> str:
    listed = client().get(URL, headers=auth).get_json()["data"]
    return next(s["delivery_status"] for s in listed if s["id"] == sub_id)


def confirm_carol(auth, queue, sendgrid) -> dict:
    sub = subscribe_carol(auth)
    assert execute(queue.tasks[-1]) == "sent"
    assert post_link(link_in(sendgrid.messages[-1], "/v1/tracking/confirm")).status_code == 200
    assert status_of(auth, sub["id"]) == "confirmed"
    return sub


def test_a_digest_is_not_sent_to_an_address_replaced_during_the_research(
    alice, queue, feeds, sendgrid, monkeypatch
):
    """Built for Carol's (confirmed) address, the digest finds the subscription moved to the
    owner's own address as it is sent: it goes to neither (the next run sends to the new
    one), and nothing is billed."""
    from functions.research import summaries

    _, auth = alice
    sub = confirm_carol(auth, queue, sendgrid)
    sent_before = len(sendgrid.messages)
    real = summaries.summarise_items

    def move_meanwhile(items, *args):
        moved = {"delivery_email": "alice@example.org"}
        assert client().patch(f"{URL}/{sub['id']}", json=moved, headers=auth).status_code == 200
        return real(items, *args)

    monkeypatch.setattr(summaries, "summarise_items", move_meanwhile)

    assert execute(run_now(sub)) == "skipped_address_changed"
    assert len(sendgrid.messages) == sent_before
    monkeypatch.setattr(summaries, "summarise_items", real)
    assert execute(run_now(sub)) == "sent"
    assert sendgrid.messages[-1]["personalizations"][0]["to"][0]["email"] == "alice@example.org"


def test_the_owners_own_address_needs_no_confirmation(alice, queue):
    _, auth = alice
    own = create_subscription(auth, {"topics": ["fur"]})
    spelled = create_subscription(auth, {"topics": ["fur"], "delivery_email": "ALICE@example.org"})

    assert own["delivery_status"] == spelled["delivery_status"] == "confirmed"
    assert queue.tasks == []


def test_a_third_party_address_gets_only_a_confirmation_until_it_confirms(
    alice, queue, feeds, sendgrid
):
    _, auth = alice
    sub = subscribe_carol(auth)
    assert sub["delivery_status"] == "pending_confirmation"
    assert [t.kind for t in queue.tasks] == ["recipient.confirm"]

    assert execute(queue.tasks[0]) == "sent"
    assert execute(run_now(sub)) == "skipped_unconfirmed"  # no digest before the answer

    [confirmation] = sendgrid.messages
    assert confirmation["personalizations"][0]["to"] == [{"email": CAROL}]
    assert confirmation["subject"].startswith("Confirm")
    for part in (text_of(confirmation), html_of(confirmation)):
        assert "alice@example.org" in part  # who asked
        assert SPAM not in part  # nothing of the owner's own text
        assert "555-0100" not in part
    unsubscribe = confirmation["headers"]["List-Unsubscribe"]
    assert unsubscribe.startswith("<https://api.example.org/v1/tracking/unsubscribe?token=")

    confirm = link_in(confirmation, "/v1/tracking/confirm")
    page = client().get(urlparse(confirm).path + "?" + urlparse(confirm).query)
    assert page.status_code == 200
    assert status_of(auth, sub["id"]) == "pending_confirmation"  # a GET changes nothing
    assert post_link(confirm).status_code == 200
    assert post_link(confirm).status_code == 200  # confirming twice is harmless
    assert status_of(auth, sub["id"]) == "confirmed"

    assert execute(run_now(sub)) == "sent"
    digest = sendgrid.messages[-1]
    assert digest["personalizations"][0]["to"] == [{"email": CAROL}]
    assert "you confirmed it" in text_of(digest)
    assert "PATCH" not in text_of(digest)
    assert "555-0100" not in text_of(digest) + html_of(digest)
    assert "/v1/tracking/unsubscribe?token=" in text_of(digest)


def test_an_address_is_asked_once_however_often_the_owner_subscribes_it(alice, queue):
    _, auth = alice
    first = subscribe_carol(auth)
    second = subscribe_carol(auth, topics=["fur"])
    client().patch(f"{URL}/{first['id']}", json={"delivery_email": CAROL.lower()}, headers=auth)
    client().patch(f"{URL}/{first['id']}", json={"active": True}, headers=auth)

    assert second["delivery_status"] == "pending_confirmation"
    assert len(queue.tasks) == 1


def test_a_run_does_not_repeat_an_unanswered_confirmation(alice, queue, feeds, sendgrid):
    _, auth = alice
    sub = subscribe_carol(auth)
    execute(queue.tasks[0])

    for _ in range(3):
        assert execute(run_now(sub)) == "skipped_unconfirmed"

    assert len(queue.tasks) == 1
    assert len(sendgrid.messages) == 1


def test_a_confirmation_that_failed_after_every_attempt_is_asked_again_by_the_next_run(
    alice, queue, feeds, sendgrid, settings_env
):
    """SendGrid down past the confirmation's last attempt: the address was never asked,
    so the next run asks it (decision 0051); one that was sent is not asked again."""
    settings_env(TASK_MAX_ATTEMPTS="2")
    _, auth = alice
    sub = subscribe_carol(auth)
    sendgrid.fail_next(503, count=2)
    with pytest.raises(EmailNotSent):
        execute(queue.tasks[0])
    assert execute(queue.tasks[0]) == "failed"

    assert execute(run_now(sub)) == "skipped_unconfirmed"

    assert len(queue.tasks) == 2
    assert execute(queue.tasks[1]) == "sent"
    assert sendgrid.messages[0]["subject"].startswith("Confirm")
    assert execute(run_now(sub)) == "skipped_unconfirmed"
    assert len(queue.tasks) == 2  # sent: not asked again


def test_a_confirmation_that_could_not_be_queued_is_asked_again_by_the_next_run(
    alice, feeds, sendgrid, monkeypatch
):
    _, auth = alice
    refused = Queue(Enqueued.FAILED)
    monkeypatch.setattr("functions.tracking.recipients.enqueue", refused)
    sub = subscribe_carol(auth)
    assert len(refused.tasks) == 1
    accepted = Queue()
    monkeypatch.setattr("functions.tracking.recipients.enqueue", accepted)

    assert execute(run_now(sub)) == "skipped_unconfirmed"

    assert len(accepted.tasks) == 1
    assert execute(accepted.tasks[0]) == "sent"
    assert sendgrid.messages[0]["subject"].startswith("Confirm")


def test_a_suppressed_address_gets_nothing_whatever_any_owner_does(
    alice, bob, queue, feeds, sendgrid
):
    _, auth = alice
    sub = confirm_carol(auth, queue, sendgrid)
    assert execute(run_now(sub)) == "sent"
    sent = len(sendgrid.messages)

    stop = link_in(sendgrid.messages[-1], "/v1/tracking/unsubscribe")
    assert client().get(urlparse(stop).path + "?" + urlparse(stop).query).status_code == 200
    assert status_of(auth, sub["id"]) == "confirmed"  # the page alone changes nothing
    assert post_link(stop).status_code == 200

    assert status_of(auth, sub["id"]) == "suppressed"
    patched = client().patch(f"{URL}/{sub['id']}", json={"active": True}, headers=auth)
    assert patched.get_json()["data"]["delivery_status"] == "suppressed"
    again = subscribe_carol(auth, topics=["fur"])
    assert again["delivery_status"] == "suppressed"
    _, bob_auth = bob
    assert subscribe_carol(bob_auth)["delivery_status"] == "suppressed"
    tasks_before = len(queue.tasks)
    assert execute(run_now(sub)) == "skipped_suppressed"
    assert execute(run_now(again)) == "skipped_suppressed"
    assert len(queue.tasks) == tasks_before  # no confirmation for a suppressed address
    assert len(sendgrid.messages) == sent


def test_a_digest_in_flight_is_not_sent_once_its_address_is_suppressed(
    alice, queue, feeds, sendgrid, monkeypatch
):
    from functions.research import summaries

    _, auth = alice
    sub = confirm_carol(auth, queue, sendgrid)
    stop = link_in(sendgrid.messages[-1], "/v1/tracking/unsubscribe")  # the confirmation's
    sent = len(sendgrid.messages)
    real = summaries.summarise_items

    def summarise_then_unsubscribe(items):
        post_link(stop)  # the recipient unsubscribes while the research runs
        return real(items)

    monkeypatch.setattr(summaries, "summarise_items", summarise_then_unsubscribe)

    assert execute(run_now(sub)) == "skipped_suppressed"
    assert len(sendgrid.messages) == sent


def test_a_recipients_pause_needs_their_consent_again_before_the_owner_resumes(
    alice, queue, feeds, sendgrid
):
    _, auth = alice
    sub = confirm_carol(auth, queue, sendgrid)
    execute(run_now(sub))
    pause = sendgrid.messages[-1]["headers"]["List-Unsubscribe"].strip("<>")
    assert post_link(pause).status_code == 200
    assert sub_doc(sub["id"])["active"] is False

    resumed = client().patch(f"{URL}/{sub['id']}", json={"active": True}, headers=auth)

    assert resumed.get_json()["data"]["delivery_status"] == "pending_confirmation"
    sent = len(sendgrid.messages)
    assert execute(run_now(sub)) == "skipped_unconfirmed"
    assert len(sendgrid.messages) == sent


def test_the_owner_pausing_their_own_digest_can_resume_it(alice, queue, feeds, sendgrid):
    _, auth = alice
    sub = create_subscription(auth, {"topics": ["cage-free"], "frequency": "realtime"})
    execute(run_now(sub))
    assert (
        post_link(sendgrid.messages[-1]["headers"]["List-Unsubscribe"].strip("<>")).status_code
        == 200
    )

    resumed = client().patch(f"{URL}/{sub['id']}", json={"active": True}, headers=auth)

    assert resumed.get_json()["data"]["delivery_status"] == "confirmed"
    assert execute(run_now(sub)) == "nothing_new"  # it ran (not skipped); all was sent before


def test_links_are_not_interchangeable_and_tampering_is_refused(alice, queue, sendgrid):
    _, auth = alice
    subscribe_carol(auth)
    execute(queue.tasks[0])
    confirm = link_in(sendgrid.messages[0], "/v1/tracking/confirm")
    stop = link_in(sendgrid.messages[0], "/v1/tracking/unsubscribe")
    confirm_token = parse_qs(urlparse(confirm).query)["token"][0]

    as_unsubscribe = client().post(
        "/v1/tracking/unsubscribe", query_string={"token": confirm_token}
    )
    as_pause = client().post("/v1/tracking/pause", query_string={"token": confirm_token})
    tampered = client().post(
        "/v1/tracking/confirm", query_string={"token": confirm_token[:-2] + "xx"}
    )

    for response in (as_unsubscribe, as_pause, tampered):
        assert response.status_code == 400
        assert response.get_json()["code"] == "invalid_request"
    assert post_link(stop).status_code == 200


def test_erasing_a_consumer_forgets_the_addresses_it_asked(db, queue, local_idp):
    from common.accounts.keys import issue_key
    from devtools.localidp import local_user_id
    from functions.webhooks.service import erase
    from tests.helpers import bearer

    dave = local_idp.provision("dave@example.org")
    subscribe_carol(bearer(issue_key(dave).plaintext))
    assert len(list(collection(CONSENTS).stream())) == 1

    assert erase(local_user_id("dave@example.org")) == "erased"

    assert list(collection(CONSENTS).stream()) == []


# --- control characters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"topics": ["fur"], "custom_keywords": ["fur\u202efarms"]}, "custom_keywords.0"),
        ({"topics": ["fur"], "specific_interests": "nul\x00here"}, "specific_interests"),
        ({"topics": ["fur"], "custom_keywords": ["\u2066isolate"]}, "custom_keywords.0"),
    ],
)
def test_control_and_bidi_characters_are_refused_naming_the_field(alice, body, field):
    _, auth = alice

    response = client().post(URL, json=body, headers=auth)

    assert response.status_code == 400
    problem = response.get_json()
    assert problem["code"] == "invalid_request"
    assert [e["field"] for e in problem["errors"]] == [field]
    assert "U+" in problem["errors"][0]["message"]
    assert client().get(URL, headers=auth).get_json()["total"] == 0


def test_ordinary_unicode_and_line_breaks_are_accepted(alice):
    _, auth = alice
    body = {"topics": ["fur"], "specific_interests": "Élevages de visons\nand ‏שלום‏ — ok"}

    assert client().post(URL, json=body, headers=auth).status_code == 201


# --- SendGrid's Event Webhook ------------------------------------------------------------------


@pytest.fixture
def sendgrid_key(settings_env):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    settings_env(SENDGRID_WEBHOOK_PUBLIC_KEY=base64.b64encode(public).decode())
    return private


def signed(private, body: bytes, timestamp: str | None = None) -> dict[str, str]:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    timestamp = timestamp or str(int(time.time()))
    signature = private.sign(timestamp.encode() + body, ec.ECDSA(hashes.SHA256()))
    return {
        "X-Twilio-Email-Event-Webhook-Signature": base64.b64encode(signature).decode(),
        "X-Twilio-Email-Event-Webhook-Timestamp": timestamp,
        "Content-Type": "application/json",
    }


EVENTS = [
    {"email": "bounced@example.net", "event": "bounce", "type": "bounce", "sg_event_id": "a"},
    {"email": "spam@example.net", "event": "spamreport", "sg_event_id": "b"},
    {"email": "Unsub@Example.net", "event": "unsubscribe", "sg_event_id": "c"},
    {"email": "dropped@example.net", "event": "dropped", "reason": "Bounced Address"},
    {"email": "blocked@example.net", "event": "bounce", "type": "blocked", "sg_event_id": "d"},
    {"email": "fine@example.net", "event": "delivered", "sg_event_id": "e"},
    {"email": "opened@example.net", "event": "open", "useragent": "x", "ip": "1.2.3.4"},
]


def test_signed_sendgrid_events_suppress_bounced_and_complaining_addresses(
    alice, queue, sendgrid_key
):
    _, auth = alice
    body = json.dumps(EVENTS).encode()

    response = client().post("/webhooks/sendgrid", data=body, headers=signed(sendgrid_key, body))

    assert response.status_code == 204
    statuses = {
        address: subscribe_carol(auth, delivery_email=address)["delivery_status"]
        for address in (
            "bounced@example.net",
            "spam@example.net",
            "unsub@example.net",
            "dropped@example.net",
            "blocked@example.net",
            "fine@example.net",
        )
    }
    assert statuses == {
        "bounced@example.net": "suppressed",
        "spam@example.net": "suppressed",
        "unsub@example.net": "suppressed",
        "dropped@example.net": "suppressed",
        "blocked@example.net": "pending_confirmation",  # a temporary refusal
        "fine@example.net": "pending_confirmation",
    }
    # a retry of the same delivery is harmless
    assert (
        client()
        .post("/webhooks/sendgrid", data=body, headers=signed(sendgrid_key, body))
        .status_code
        == 204
    )


def test_sendgrid_events_with_a_bad_or_missing_signature_change_nothing(
    alice, queue, sendgrid_key, settings_env
):
    from cryptography.hazmat.primitives.asymmetric import ec

    _, auth = alice
    body = json.dumps(EVENTS[:1]).encode()
    headers = signed(sendgrid_key, body)
    other_key = ec.generate_private_key(ec.SECP256R1())
    attempts = [
        {"Content-Type": "application/json"},
        {**headers, "X-Twilio-Email-Event-Webhook-Timestamp": "1"},
        signed(other_key, body),
        {**headers, "X-Twilio-Email-Event-Webhook-Signature": "not base64!"},
    ]
    for attempt in attempts:
        response = client().post("/webhooks/sendgrid", data=body, headers=attempt)
        assert response.status_code == 401
        assert response.get_json()["code"] == "invalid_signature"
    tampered = body.replace(b"bounced", b"bouncer")
    assert client().post("/webhooks/sendgrid", data=tampered, headers=headers).status_code == 401
    settings_env(SENDGRID_WEBHOOK_PUBLIC_KEY="")
    assert client().post("/webhooks/sendgrid", data=body, headers=headers).status_code == 401

    subscription = subscribe_carol(auth, delivery_email="bounced@example.net")
    assert subscription["delivery_status"] == "pending_confirmation"


def test_new_recipients_per_day_are_capped_before_anything_is_saved(alice, queue, settings_env):
    """CONFIRMATIONS_PER_DAY=2: two new addresses get their confirmation; a third is 429
    confirmation_limit with Retry-After, saves nothing and mails nobody; the owner's own
    address and one already asked still work; a run finding the day full asks later."""
    settings_env(CONFIRMATIONS_PER_DAY="2")
    _, auth = alice
    for n in (1, 2):
        sub = create_subscription(auth, {"topics": ["fur"], "delivery_email": f"r{n}@x.org"})
        assert sub["delivery_status"] == "pending_confirmation"
    assert len(queue.tasks) == 2
    listed = client().get(URL, headers=auth).get_json()["total"]

    third = {"topics": ["fur"], "delivery_email": "r3@x.org"}
    refused = client().post(URL, json=third, headers=auth)
    assert refused.status_code == 429
    assert refused.get_json()["code"] == "confirmation_limit"
    assert 0 < int(refused.headers["Retry-After"]) <= 86_400
    assert client().get(URL, headers=auth).get_json()["total"] == listed  # nothing saved
    assert len(queue.tasks) == 2  # nobody mailed

    moved = client().patch(f"{URL}/{sub['id']}", json={"delivery_email": "r3@x.org"}, headers=auth)
    assert moved.status_code == 429
    assert sub_doc(sub["id"])["delivery_email"] == "r2@x.org"  # unchanged
    create_subscription(auth, {"topics": ["fur"]})  # the owner's own address
    again = create_subscription(auth, {"topics": ["cage-free"], "delivery_email": "r1@x.org"})
    assert again["delivery_status"] == "pending_confirmation"  # asked already: no new email
    assert len(queue.tasks) == 2


def test_a_run_on_a_full_day_leaves_the_asking_to_a_later_run(alice, queue, settings_env):
    settings_env(CONFIRMATIONS_PER_DAY="1")
    _, auth = alice
    queue.answer = Enqueued.FAILED  # the first asking could not be queued: a run asks again
    sub = create_subscription(auth, {"topics": ["fur"], "delivery_email": "r1@x.org"})
    queue.answer = Enqueued.CREATED
    create_subscription(auth, {"topics": ["cage-free"], "delivery_email": "r2@x.org"})  # the place
    asked = len(queue.tasks)

    assert execute(run_now(sub)) == "skipped_unconfirmed"
    assert len(queue.tasks) == asked  # no place left today: nobody mailed


def test_consents_suppressions_and_confirmation_counts_live_in_the_recipients_database(
    alice, queue
):
    """Decision 0051: only the functions granted the recipients database can read them."""
    from common.adapters import suppressions
    from common.adapters.firestore import CONFIRMATION_COUNTS, RECIPIENTS, SUPPRESSIONS

    _, auth = alice
    subscribe_carol(auth)
    suppressions.suppress_addresses({"gone@example.net": "bounce"}, "test")
    for name in (CONSENTS, SUPPRESSIONS, CONFIRMATION_COUNTS):
        assert list(get_db(RECIPIENTS).collection(name).limit(1).stream()), name
        assert not list(get_db().collection(name).limit(1).stream()), name
