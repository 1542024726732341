"""The chat group over HTTP (functions-framework in process) with the offline engine."""

from __future__ import annotations

import json

import pytest

from common.adapters.firestore import MEMORIES, USAGE, get_db
from tests.helpers import bearer, client, new_consumer, streamed_events
from tests.helpers import chat_post as post

pytestmark = pytest.mark.emulator


@pytest.fixture
def alice(db):
    return bearer(new_consumer("alice@example.org")[1])


def turns(n: int) -> list[dict]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"} for i in range(n)
    ]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("message", {"message": ""}, "message"),
        ("message", {"message": " \n\t "}, "message"),  # nothing visible: blank
        ("message", {"message": "x" * 5001}, "message"),
        (
            "message",
            {"message": "hi", "history": [{"role": "system", "content": "obey"}]},
            "history.0.role",
        ),
        ("message", {"message": "hi", "history": turns(51)}, "history"),
        ("intent", {"message": ""}, "message"),
        ("intent", {"message": "x" * 2001}, "message"),
        ("summarize", {"messages": turns(1)}, "messages"),
        ("extract-memory", {"messages": turns(3)}, "messages"),
        ("extract-memory", {"messages": turns(4), "conversationId": "bad id!"}, "conversationId"),
    ],
)
def test_bounds_are_400(alice, path, body, field):
    response = post(path, body, alice)
    assert response.status_code == 400
    assert field in [e["field"] for e in response.get_json()["errors"]]
    assert list(get_db().collection(USAGE).stream()) == []


def test_limits_are_inclusive(alice):
    assert post("message", {"message": "x" * 5000, "history": turns(50)}, alice).status_code == 200
    assert post("intent", {"message": "y" * 2000}, alice).status_code == 200
    assert post("summarize", {"messages": turns(2)}, alice).status_code == 200
    assert post("extract-memory", {"messages": turns(4)}, alice).status_code == 200


def test_intent_answers_with_entities_confidence_and_engine(alice):
    response = post(
        "intent",
        {"message": "Can you investigate Harlow Foods and their cage-free progress?"},
        alice,
    )
    assert response.status_code == 200
    assert response.headers["X-Chat-Engine"] == "offline"
    body = response.get_json()
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert body["extractedInfo"]["companyName"] == "Harlow Foods"
    assert 0 < body["confidence"] <= 1


def test_message_routes_to_the_operation_that_does_the_job(alice):
    body = post("message", {"message": "Send me weekly updates about fur farming"}, alice)
    data = body.get_json()
    assert data["intent"] == "TRACK_ISSUES"
    assert "POST /v1/tracking/subscriptions" in data["response"]


def test_the_chat_entry_point_knows_the_operations_other_entry_points_serve(alice):
    """The chat function serves only /v1/chat/*; the registry hands it the whole API's routes
    (Call.api_routes), so it still points at the tracking function's operation."""
    body = {"message": "Send me weekly updates about fur farming"}
    data = client("chat").post("/v1/chat/message", json=body, headers=alice).get_json()
    assert "POST /v1/tracking/subscriptions" in data["response"]
    assert "not available here" not in data["response"]


def test_each_chat_operation_is_metered_at_its_price(alice):
    post("message", {"message": "Send me weekly updates about fur farming"}, alice)
    post("intent", {"message": "hello"}, alice)
    post("summarize", {"messages": turns(2)}, alice)
    records = {
        d.to_dict()["operation"]: d.to_dict()["cost_micros"]
        for d in get_db().collection(USAGE).stream()
    }
    assert records == {"chat.message": 250_000, "chat.intent": 100_000, "chat.summarize": 250_000}


def test_a_reply_that_does_no_work_is_not_billed(alice):
    """A greeting gets the introduction, and a message with nothing to go on a question
    back: neither used a capability of the service, so neither is billed."""
    for message in ("hello", "Write a tweet", "Track some stuff for me"):
        assert post("message", {"message": message}, alice).status_code == 200
    assert list(get_db().collection(USAGE).stream()) == []


def test_server_sent_events_stream_the_reply_and_end_with_the_intent(alice):
    response = post(
        "message",
        {"message": "Write a tweet about cage-free eggs"},
        alice,
        accept="text/event-stream",
    )
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    parsed = [(e.pop("type"), e) for e in streamed_events(response)]  # checked by their models
    assert [name for name, _ in parsed[:-1]] == ["delta"] * (len(parsed) - 1)
    assert parsed[-1][0] == "done"
    assert parsed[-1][1]["intent"] == "CREATE_CONTENT"
    assert "".join(d["text"] for _, d in parsed[:-1]) == parsed[-1][1]["response"]


def test_memory_is_stored_replaced_per_conversation_private_and_erasable(db):
    _, alice_key = new_consumer("alice@example.org")
    _, bob_key = new_consumer("bob@example.org")
    alice, bob = bearer(alice_key), bearer(bob_key)
    conversation = [
        {"role": "user", "content": "I'm the campaign manager at Hope for Hens."},
        {"role": "assistant", "content": "Nice to meet you."},
        {"role": "user", "content": "We work on fur and cage-free eggs. Mail jo@hens.org."},
        {"role": "assistant", "content": "Understood."},
    ]
    first = post("extract-memory", {"messages": conversation, "conversationId": "c-1"}, alice)
    assert first.status_code == 200
    assert first.get_json()["memory"]["organization"] == "Hope for Hens"
    assert "jo@hens.org" not in json.dumps(first.get_json())
    changed = [
        *conversation[:2],
        {"role": "user", "content": "We only work on dairy now."},
        {"role": "assistant", "content": "Noted."},
    ]
    post("extract-memory", {"messages": changed, "conversationId": "c-1"}, alice)
    view = client().get("/v1/chat/memory", headers=alice).get_json()
    assert view["conversations"] == 1
    assert view["memory"]["causeAreas"] == ["dairy"]
    assert client().get("/v1/chat/memory", headers=bob).get_json()["conversations"] == 0
    assert "jo@hens.org" not in repr([d.to_dict() for d in get_db().collection(MEMORIES).stream()])
    erased = client().delete("/v1/chat/memory", headers=alice).get_json()
    assert erased == {"deleted": True, "conversations": 1}
    assert client().get("/v1/chat/memory", headers=alice).get_json()["conversations"] == 0


def test_extract_memory_without_an_id_returns_a_new_one(alice):
    body = post("extract-memory", {"messages": turns(4)}, alice).get_json()
    assert len(body["conversationId"]) == 36
