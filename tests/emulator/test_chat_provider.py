"""Chat on a remote provider: the fake speaks the real Chat Completions protocol."""

from __future__ import annotations

import json

import pytest

from common import container
from tests.fakes.openai_server import reply, status, stream
from tests.helpers import Connection, bearer, client, new_consumer, read_until
from tests.helpers import chat_post as post

pytestmark = pytest.mark.emulator


GUIDE = """---
id: pressure-campaigns
title: Pressure campaigns
url: https://example.org/pressure
tags: campaign-tactics
---
# Pressure campaigns

## What makes a pressure campaign work

A pressure campaign works when it makes one clear ask of one decision-maker and raises the cost
of refusing it step by step.

## Cage-free campaigns

The strongest arguments for a cage-free campaign are the welfare evidence against battery cages
and the pledges other retailers have made; each phase of a cage-free campaign is planned around
a deadline for the company's reply.

## Fur campaigns

A fur campaign asks retailers to stop selling fur and lawmakers to ban fur farming.
"""


@pytest.fixture
def fake(db, fake_llm, settings_env, tmp_path):
    """The provider's fake, and a guide whose passages answer the questions asked here: a
    first message no passage answers is not sent to a provider (decision 0067)."""
    from common.search import embeddings
    from functions.knowledge.importer import import_knowledge

    container.reset(embeddings.EMBEDDER)
    settings_env(EMBEDDINGS_BACKEND="offline")
    (tmp_path / "pressure.md").write_text(GUIDE)
    assert import_knowledge([tmp_path]).rejected == []
    yield fake_llm
    container.reset(embeddings.EMBEDDER)


@pytest.fixture
def alice(fake):
    return bearer(new_consumer("alice@example.org")[1])


def test_message_uses_the_provider_with_memory_as_labelled_context(fake, alice):
    fake.script(reply("Here is a plan for your fur campaign."))
    response = post(
        "message",
        {
            "message": "Help me plan a fur campaign",
            "history": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
            ],
        },
        alice,
    )
    assert response.status_code == 200
    assert response.headers["X-Chat-Engine"] == "openai:fake-1"
    assert response.get_json()["response"] == "Here is a plan for your fur campaign."
    sent = fake.requests[-1].body["messages"]
    assert sent[0]["role"] == "system"
    assert "Help me plan" not in sent[0]["content"]  # user text never enters instructions
    assert sent[-1] == {"role": "user", "content": "Help me plan a fur campaign"}
    assert sent[-3:-1] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
    ]


def test_long_histories_are_compressed_before_the_provider(fake, alice):
    fake.script(reply("ok"))
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * 50}
        for i in range(40)
    ]
    post("message", {"message": "and what should we ask them for now?", "history": history}, alice)
    sent = fake.requests[-1].body["messages"]
    assert len(sent) == 1 + 1 + 10 + 1  # instructions, context, 10 recent turns, the message
    assert "earlier_conversation" in sent[1]["content"]


def test_confident_intents_never_reach_the_provider(fake, alice):
    response = post("intent", {"message": "Please write a tweet about cage-free eggs"}, alice)
    assert response.get_json()["intent"] == "CREATE_CONTENT"
    assert response.headers["X-Chat-Engine"] == "offline"
    assert fake.requests == []


def test_with_intent_from_provider_always_a_confident_intent_is_the_providers(
    fake, alice, settings_env
):
    """INTENT_FROM_PROVIDER=always (decision 0054): the provider answers every message, in
    the engine's schema; the engine answers when the provider fails."""
    from common.adapters.llm import PROVIDER
    from functions.chat.models import ExtractedFields

    settings_env(INTENT_FROM_PROVIDER="always")
    container.reset(PROVIDER)
    message = {"message": "Please write a tweet about cage-free eggs"}
    found = {**dict.fromkeys(ExtractedFields.model_fields), "platform": "twitter"}
    body = {"intent": "CREATE_CONTENT", "confidence": 0.97, "extractedInfo": found}
    fake.script(reply(json.dumps(body)), status(500), status(500))
    asked = post("intent", message, alice)
    assert asked.headers["X-Chat-Engine"] == "openai:fake-1"
    assert asked.get_json()["extractedInfo"] == {"platform": "twitter"}
    fallback = post("intent", message, alice)
    assert fallback.headers["X-Chat-Engine"] == "offline"
    assert fallback.get_json()["intent"] == "CREATE_CONTENT"
    assert len(fake.requests) == 3


def test_unsure_intents_ask_the_provider_and_fall_back_when_it_fails(fake, alice, monkeypatch):
    from common.offline import engine

    monkeypatch.setattr(engine, "detect_intent", lambda m: ("GENERAL_CHAT", 0.3, {}))
    fields = dict.fromkeys(
        [
            "contentType",
            "platform",
            "topic",
            "companyName",
            "focus",
            "personName",
            "role",
            "activity",
            "jurisdiction",
            "topics",
            "keywords",
            "frequency",
        ]
    )
    fake.script(
        reply(
            json.dumps(
                {
                    "intent": "LEGAL_HELP",
                    "confidence": 0.7,
                    "extractedInfo": {**fields, "activity": "protest", "companyName": "off-intent"},
                }
            )
        )
    )
    asked = post("intent", {"message": "can we stand outside the farm gate"}, alice)
    assert asked.headers["X-Chat-Engine"] == "openai:fake-1"
    assert asked.get_json() == {
        "intent": "LEGAL_HELP",
        "confidence": 0.7,
        "extractedInfo": {"activity": "protest"},
    }
    assert fake.requests[-1].body["response_format"]["type"] == "json_schema"
    fake.script(status(500), status(500))
    fallback = post("intent", {"message": "can we stand outside the farm gate"}, alice)
    assert fallback.status_code == 200
    assert fallback.headers["X-Chat-Engine"] == "offline"
    assert fallback.get_json()["intent"] == "GENERAL_CHAT"


def test_a_failing_provider_is_502_and_not_metered(fake, alice):
    from common.adapters.firestore import USAGE, get_db

    fake.script(status(500), status(503))
    response = post("message", {"message": "What makes a pressure campaign work?"}, alice)
    assert response.status_code == 502
    assert response.get_json()["code"] == "backend_unavailable"
    assert "sk-test-secret" not in response.get_data(as_text=True)
    assert list(get_db().collection(USAGE).stream()) == []


def test_schema_violating_summaries_are_502_after_one_retry(fake, alice):
    fake.script(reply('{"wrong": 1}'), reply("not json"))
    turns = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert post("summarize", {"messages": turns}, alice).status_code == 502
    assert len(fake.requests) == 2


def test_memory_from_the_provider_is_scrubbed_before_storage(fake, alice):
    fake.script(
        reply(
            json.dumps(
                {
                    "organization": "Hope for Hens",
                    "role": "campaigner jo@hens.org",
                    "causeAreas": ["fur", "call +1 555 010 9999"],
                    "researchTopics": ["Dana Whitfield"],
                    "preferences": ["short answers"],
                }
            )
        )
    )
    turns = [{"role": "user", "content": f"m{i}"} for i in range(4)]
    memory = post("extract-memory", {"messages": turns}, alice).get_json()["memory"]
    assert memory == {
        "organization": "Hope for Hens",
        "role": None,
        "causeAreas": ["fur"],
        "researchTopics": [],
        "preferences": ["length: short"],
    }


def test_streaming_from_the_provider(fake, alice):
    """A sentence at a time: each is screened for personal data before it is sent."""
    fake.script(stream(["Cage", "-free ", "now. ", "Act ", "today."]))
    response = post(
        "message",
        {"message": "What are the strongest arguments for a cage-free campaign?"},
        alice,
        accept="text/event-stream",
    )
    raw = response.get_data(as_text=True)
    deltas = [json.loads(d.split("\n")[0])["text"] for d in raw.split("event: delta\ndata: ")[1:]]
    assert deltas == ["Cage-free now. ", "Act today."]
    done = json.loads(raw.split("event: done\ndata: ")[1])
    assert done == {
        "intent": "GENERAL_CHAT",
        "response": "Cage-free now. Act today.",
        "sources": [{"title": "Pressure campaigns", "url": "https://example.org/pressure"}],
        "citations": [],  # the reply quotes no sentence of the passage it was given
    }


def usage_operations() -> list[str]:
    from common.adapters.firestore import USAGE, get_db

    return [d.to_dict()["operation"] for d in get_db().collection(USAGE).stream()]


def test_a_completed_stream_is_billed_once(fake, alice):
    fake.script(stream(["All ", "done."]))
    post(
        "message",
        {"message": "What makes a pressure campaign work?"},
        alice,
        accept="text/event-stream",
    ).get_data()
    assert usage_operations() == ["chat.message"]


def unbilled_operations() -> list[str]:
    from common.adapters.firestore import USAGE_UNBILLED, get_db

    return [d.to_dict()["operation"] for d in get_db().collection(USAGE_UNBILLED).stream()]


QUESTION = {"message": "What makes a pressure campaign work?"}
SSE_HEADERS = {"Accept": "text/event-stream"}


def test_a_streamed_reply_left_after_its_first_words_is_not_billed(fake, alice):
    """Issue 43: a client that read the first words and hung up was billed $0.25. The server
    goes on writing the reply into the closed connection (TCP takes it without an error) to
    its end: the client never had it whole (decision 0066)."""
    fake.script(stream(["Pressure works. ", "Name a target. ", "Ask for one thing."]))
    with Connection() as connection:
        answer = client().post(
            "/v1/chat/message",
            json=QUESTION,
            headers={**alice, **SSE_HEADERS},
            buffered=False,
            environ_overrides=connection.environ,
        )
        chunks = read_until(answer, lambda chunk: chunk.startswith("event: delta"))
        connection.hang_up()
        rest = b"".join(chunks)  # every write accepted, the stream ends
        assert b"event: done" in rest
        answer.close()
    assert usage_operations() == []
    assert unbilled_operations() == ["chat.message"]


def test_a_streamed_reply_read_whole_on_a_connection_is_billed_once(fake, alice):
    fake.script(stream(["Pressure works. ", "Name a target."]))
    with Connection() as connection:
        answer = client().post(
            "/v1/chat/message",
            json=QUESTION,
            headers={**alice, **SSE_HEADERS},
            environ_overrides=connection.environ,
        )
        assert "event: done" in answer.get_data(as_text=True)
    assert usage_operations() == ["chat.message"]


PERSONAL = [  # every sentence personal data the screen drops
    "She lives on Mill Lane in Otley with her husband. ",
    "Her email is dana.whitfield at gmail.com.",
]


@pytest.mark.parametrize("streamed", [False, True])
def test_a_reply_the_screen_emptied_is_not_billed(fake, alice, streamed):
    """Issue 43: a provider reply whose every sentence the personal-data screen dropped was
    billed: it delivers nothing."""
    fake.script(stream(PERSONAL) if streamed else reply("".join(PERSONAL)))
    answer = post("message", QUESTION, alice, accept="text/event-stream" if streamed else None)
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    for planted in ("Mill", "Otley", "husband", "gmail"):
        assert planted not in text
    assert usage_operations() == []
    assert unbilled_operations() == ["chat.message"]


def test_a_provider_failing_before_the_stream_is_a_502_and_free(fake, alice):
    fake.script(status(500), status(500))
    response = post(
        "message",
        {"message": "What makes a pressure campaign work?"},
        alice,
        accept="text/event-stream",
    )
    assert response.status_code == 502
    assert response.mimetype == "application/problem+json"
    assert usage_operations() == []


def test_a_stream_cut_mid_reply_ends_with_an_error_event_and_is_free(fake, alice):
    fake.script(stream(["A whole sentence. ", "Half ", "a ", "reply"], cut_after=1))
    raw = post(
        "message",
        {"message": "What makes a pressure campaign work?"},
        alice,
        accept="text/event-stream",
    ).get_data(as_text=True)
    assert "event: delta" in raw
    assert "Half" not in raw  # an unfinished sentence is never sent (it was not screened)
    assert "event: error" in raw
    assert "event: done" not in raw
    assert usage_operations() == []


def test_a_stream_cut_inside_its_first_sentence_is_a_502_and_free(fake, alice):
    fake.script(stream(["Half ", "a ", "reply"], cut_after=1))
    response = post(
        "message",
        {"message": "What makes a pressure campaign work?"},
        alice,
        accept="text/event-stream",
    )
    assert response.status_code == 502
    assert response.mimetype == "application/problem+json"
    assert usage_operations() == []


def test_few_but_long_turns_are_compressed_too(fake, alice):
    fake.script(reply("ok"))
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"{i} " + "x" * 4800}
        for i in range(6)
    ]
    post("message", {"message": "and what should we ask them for now?", "history": history}, alice)
    sent = fake.requests[-1].body["messages"]
    assert len(sent) == 1 + 1 + 2 + 1  # instructions, context, the 2 last turns, the message
    assert sum(len(m["content"]) for m in sent) < 6 * 4800 / 2


def test_a_providers_reply_passes_the_personal_data_screen_as_it_streams(fake, alice):
    """Issue 22: what an LLM writes about people is screened like everything else, sentence
    by sentence, including sentences split across the provider's pieces."""
    fake.script(
        stream(
            [
                "Dana Whitfield leads sustainability at Harlow Foods. She lives on Mill ",
                "Lane in Otley with her husband. Her email is dana.whitfield at gm",
                "ail.com. The chain pledged to go cage-free by 2026.",
            ]
        )
    )
    raw = post(
        "message",
        {"message": "How should we plan the next phase of our cage-free campaign?"},
        alice,
        accept="text/event-stream",
    ).get_data(as_text=True)
    done = json.loads(raw.split("event: done\ndata: ")[1])
    assert done["response"] == (
        "Dana Whitfield leads sustainability at Harlow Foods. "
        "The chain pledged to go cage-free by 2026."
    )
    for planted in ("Mill", "Otley", "husband", "gm", "ail.com"):
        assert planted not in raw


def test_a_providers_summary_passes_the_personal_data_screen(fake, alice):
    """Issue 42: summaries were not screened (/v1/chat/summarize, MCP summarize_text)."""
    fake.script(
        reply(
            json.dumps(
                {
                    "summary": "Dana Whitfield runs sourcing at Harlow Foods. She is battling "
                    "leukaemia. The team will ask Harlow Foods for yearly cage-free figures."
                }
            )
        )
    )
    turns = [
        {"role": "user", "content": "Dana Whitfield runs sourcing. She is battling leukaemia."},
        {"role": "assistant", "content": "Let us keep to her public role and the pledge."},
    ]
    answer = post("summarize", {"messages": turns}, alice)
    assert answer.status_code == 200
    summary = answer.get_json()["summary"]
    assert "leukaemia" not in summary
    assert "yearly cage-free figures" in summary


def test_a_first_message_no_passage_answers_is_not_sent_to_the_provider(fake, alice):
    """Decision 0067: the provider is given only passages the relevance judge passes; with none
    and no conversation under way, the offline reply says what the knowledge base does not
    cover, and it is free."""
    response = post("message", {"message": "Can you recommend a good pizza place?"}, alice)
    assert response.status_code == 200, (response.get_data(as_text=True), fake.requests)
    assert response.headers["X-Chat-Engine"] == "offline"
    assert "does not cover" in response.get_json()["response"]
    assert fake.requests == []
    assert usage_operations() == []


def test_the_provider_is_given_only_passages_judged_at_its_floor(fake, alice, monkeypatch):
    """Decision 0067: the passages a provider reads are judged ``PROVIDER_FLOOR`` or more (the
    search doors' lower floor, chosen to bill covered searches, is not theirs)."""
    from functions.chat import service
    from functions.knowledge import service as knowledge

    given: list[tuple[float, list[float]]] = []
    real = knowledge.search

    def spy(query, limit, tags=None, floor=knowledge.relevance.FLOOR, kind="question"):
        hits = real(query, limit, tags, floor, kind)
        given.append((floor, [h["score"] for h in hits]))
        return hits

    monkeypatch.setattr(knowledge, "search", spy)
    fake.script(reply("Plan each phase around the company's deadline."))
    response = post("message", {"message": "How do I run a cage-free campaign?"}, alice)
    assert response.status_code == 200
    assert response.headers["X-Chat-Engine"] == "openai:fake-1"
    [(floor, scores)] = given
    assert floor == service.PROVIDER_FLOOR > knowledge.relevance.FLOOR
    assert scores
    assert all(score >= service.PROVIDER_FLOOR for score in scores)
