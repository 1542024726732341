"""Legal guidance refuses what it cannot speak to (issue 44, decision 0068): an activity that
neither the guide's sections nor the knowledge base's notes on the law speak to, and a
jurisdiction the service does not know, are a 422 problem naming the field and what the
service knows, answered before any job is queued and not billed; real requests are still
accepted and billed once their guide is written. Over the in-process functions-framework app
on the real emulator, the REST and MCP doors alike."""

from __future__ import annotations

import pytest

from common.adapters.firestore import KNOWLEDGE, SEARCH_INDEXES, TASKS, get_db
from common.adapters.tasks import inline_queue
from tests.emulator.test_mcp import rpc
from tests.helpers import client

pytestmark = pytest.mark.emulator

GUIDANCE = "/v1/legal/guidance"
SITUATION = "We plan a protest outside a poultry farm and want to film the sheds from the road."


def guidance(auth: dict[str, str], body: dict):
    return client().post(GUIDANCE, json=body, headers=auth)


def assert_free_and_nothing_queued(auth: dict[str, str]) -> None:
    assert list(get_db().collection(TASKS).stream()) == []
    bill = client().get("/v1/usage", headers=auth).get_json()
    assert bill["operations"] == []
    assert bill["total"]["requests"] == 0
    assert bill["total"]["cost_micros"] == 0


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"prompt": "xqzv plorf wibble"}, ["prompt"]),
        ({"prompt": "../../../../etc/passwd", "jurisdiction": "England"}, ["prompt"]),
        ({"situation": "SELECT * FROM users WHERE 1=1; --"}, ["situation"]),
        ({"prompt": "..."}, ["prompt"]),
        ({"prompt": "Lorem ipsum dolor sit amet, consectetur adipiscing elit."}, ["prompt"]),
        (
            {"prompt": "What is a good recipe for banana bread?", "situation": "Baking at home."},
            ["prompt", "situation"],
        ),
    ],
)
def test_an_activity_the_service_does_not_recognise_is_422_naming_the_fields_and_free(
    legal_corpus, alice, body, fields
):
    _, auth = alice
    answer = guidance(auth, body)

    assert answer.status_code == 422
    assert answer.content_type == "application/problem+json"
    problem = answer.get_json()
    assert problem["code"] == "activity_not_recognised"
    assert [e["field"] for e in problem["errors"]] == fields
    assert "nothing was billed" in problem["detail"]
    assert "protests and demonstrations" in problem["detail"]  # what its guides cover
    assert_free_and_nothing_queued(auth)


@pytest.mark.parametrize("jurisdiction", ["../../../../etc/passwd", "Narnia", "xqzv plorf"])
def test_a_jurisdiction_the_service_does_not_know_is_422_listing_the_places_and_free(
    alice, jurisdiction
):
    _, auth = alice
    answer = guidance(auth, {"situation": SITUATION, "jurisdiction": jurisdiction})

    assert answer.status_code == 422
    problem = answer.get_json()
    assert problem["code"] == "jurisdiction_not_recognised"
    assert [e["field"] for e in problem["errors"]] == ["jurisdiction"]
    for known in ("the United Kingdom (England, Wales", "the United States", "Canada"):
        assert known in problem["detail"]
    assert jurisdiction not in problem["detail"]  # what was sent is not echoed
    assert_free_and_nothing_queued(auth)


@pytest.mark.parametrize(
    "body",
    [
        {"situation": SITUATION, "jurisdiction": "Des Moines, IA"},  # an activity of the guide
        # No activity pattern of the guide names these: the judge finds a guide section that
        # speaks to the first, and only a note on Iowa's law that speaks to the second.
        {"prompt": "Is it lawful to project animal rights videos onto a building at night?"},
        {"prompt": "Is Iowa Code 717A.3A still enforceable after Reynolds?"},
    ],
)
def test_a_real_request_is_accepted_and_billed_once_when_its_guide_is_written(
    legal_corpus, alice, body
):
    from functions.legal import content

    assert content.detect(body.get("prompt", "")) == []  # the prompts: no pattern names them
    _, auth = alice
    accepted = guidance(auth, body)

    assert accepted.status_code == 202, accepted.get_json()
    assert inline_queue().drain(60)
    task = client().get(f"/v1/tasks/{accepted.get_json()['taskId']}", headers=auth).get_json()
    assert task["status"] == "succeeded"
    bill = client().get("/v1/usage", headers=auth).get_json()
    assert bill["operations"] == [
        {
            "operation": "legal.guidance",
            "requests": 1,
            "cost_micros": 1_000_000,
            "cost": "$1.00",
            "unbilled_requests": 0,
        }
    ]


def test_a_knowledge_base_that_cannot_be_searched_is_a_free_502_not_a_guess(legal_corpus, alice):
    # The index was built with another model: the notes cannot be searched. A request the
    # guide's patterns recognise is still accepted; one that needs the notes is neither
    # accepted nor refused.
    get_db().collection(SEARCH_INDEXES).document(KNOWLEDGE).update(
        {"model": "vertex:text-embedding-005@768"}
    )
    _, auth = alice
    mash = guidance(auth, {"prompt": "xqzv plorf wibble is wibbling the plorf"})
    assert mash.status_code == 422  # no real words: refused before any search
    undecided = guidance(auth, {"prompt": "Is Iowa Code 717A.3A still enforceable?"})
    assert undecided.status_code == 502
    assert undecided.get_json()["code"] == "backend_unavailable"
    assert_free_and_nothing_queued(auth)
    assert guidance(auth, {"situation": SITUATION}).status_code == 202
    # its task runs to its end here, not during the next test (it would write its record
    # after that test's database is wiped)
    assert inline_queue().drain(60)


def test_the_mcp_tool_gets_the_same_refusals_free(legal_corpus, alice):
    _, auth = alice
    for arguments, code in (
        ({"prompt": "xqzv plorf wibble"}, "activity_not_recognised"),
        ({"situation": SITUATION, "jurisdiction": "../../../../etc/passwd"}, "jurisdiction_"),
    ):
        called = rpc(auth, "tools/call", {"name": "request_legal_guidance", "arguments": arguments})
        result = called.get_json()["result"]
        assert result["isError"] is True
        assert code in result["content"][0]["text"]
    assert_free_and_nothing_queued(auth)


def test_the_assistant_says_it_has_no_notes_for_a_place_it_does_not_know_and_is_free():
    # A provider's intent may name a place the service does not know: the reply says so
    # rather than quoting notes on another place's law, and did no billable work.
    from functions.chat import assist

    answer = assist.legal(
        "Can we hold a protest outside the palace?",
        {"activity": "protest", "jurisdiction": "Narnia"},
        {"POST /v1/legal/guidance"},
    )

    assert answer.helped is False
    assert "has no notes that answer this for Narnia" in answer.text
    assert "POST /v1/legal/guidance" in answer.text
    assert answer.sources == []
