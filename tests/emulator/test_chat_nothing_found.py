"""Summaries, memory and intent on content with nothing in it are answered and free (issue 44,
decision 0068), judged by what the answer holds: a summary with no goal, decision, fact or open
question; a memory with every field empty; general chat with no entity in a message the
classifier knows no word of. The same operations on content are billed. Over the in-process
functions-framework app on the real emulator; /v1/usage reconciles."""

from __future__ import annotations

import pytest

from tests.emulator.test_mcp import rpc
from tests.helpers import chat_post as post
from tests.helpers import client

pytestmark = pytest.mark.emulator

GREETINGS = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hi"},
    {"role": "user", "content": "hello!"},
    {"role": "assistant", "content": "Hello, how can I help?"},
]
INTRODUCTION = [
    {"role": "user", "content": "I'm the campaign manager at Hope for Hens."},
    {"role": "assistant", "content": "Nice to meet you."},
    {"role": "user", "content": "We work on fur and cage-free eggs."},
    {"role": "assistant", "content": "Understood."},
]


def bill(auth: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Per operation: (requests billed, requests answered but not billed)."""
    usage = client().get("/v1/usage", headers=auth).get_json()
    return {
        op["operation"]: (op["requests"], op["unbilled_requests"]) for op in usage["operations"]
    }


def test_a_summary_with_nothing_in_it_says_so_and_is_free(alice):
    _, auth = alice
    answer = post("summarize", {"messages": GREETINGS[:2]}, auth)

    assert answer.status_code == 200
    assert answer.get_json()["summary"].startswith("Small talk only: no goal, decision")
    assert bill(auth) == {"chat.summarize": (0, 1)}


def test_memory_from_greetings_is_empty_and_free(alice):
    _, auth = alice
    answer = post("extract-memory", {"messages": GREETINGS}, auth)

    assert answer.status_code == 200
    assert answer.get_json()["memory"] == {
        "organization": None,
        "role": None,
        "causeAreas": [],
        "researchTopics": [],
        "preferences": [],
    }
    assert bill(auth) == {"chat.extract_memory": (0, 1)}


@pytest.mark.parametrize("message", [".", "?!", "xqzv plorf wibble"])
def test_the_intent_of_a_message_with_nothing_in_it_is_general_chat_and_free(alice, message):
    _, auth = alice
    answer = post("intent", {"message": message}, auth)

    assert answer.status_code == 200
    assert answer.get_json()["intent"] == "GENERAL_CHAT"
    assert answer.get_json()["extractedInfo"] == {}
    assert bill(auth) == {"chat.intent": (0, 1)}


def test_the_same_operations_on_content_are_billed(alice):
    _, auth = alice
    summary = post("summarize", {"messages": INTRODUCTION}, auth).get_json()["summary"]
    memory = post("extract-memory", {"messages": INTRODUCTION}, auth).get_json()["memory"]
    greeting = post("intent", {"message": "hello"}, auth).get_json()
    draft = post("intent", {"message": "Draft a tweet about cage-free eggs"}, auth).get_json()

    assert not summary.startswith("Small talk only")
    assert memory["organization"] == "Hope for Hens"
    assert greeting["intent"] == "GENERAL_CHAT"  # a greeting is read: general chat, billed
    assert draft["intent"] == "CREATE_CONTENT"
    assert bill(auth) == {
        "chat.summarize": (1, 0),
        "chat.extract_memory": (1, 0),
        "chat.intent": (2, 0),
    }


def test_the_mcp_tools_answer_nothing_found_free(alice):
    _, auth = alice
    for name, arguments in (
        ("summarize_text", {"messages": GREETINGS[:2]}),
        ("classify_intent", {"message": "."}),
    ):
        result = rpc(auth, "tools/call", {"name": name, "arguments": arguments}).get_json()
        assert "isError" not in result["result"]
    assert bill(auth) == {"chat.summarize": (0, 1), "chat.intent": (0, 1)}
