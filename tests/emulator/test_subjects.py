"""Who each request is about (issue 42, decision 0058), on the real emulator with the fixture
news of the OSINT tests: the company door profiles no one by a surname, the opt-out holds at
the research, tracking and MCP doors, a look-alike letter or an initial does not open another
person's day, and summaries are screened."""

from __future__ import annotations

import json

import pytest

from tests.emulator.test_osint import (  # noqa: F401 (fixtures)
    AUDIT,
    COMPANY,
    DANA,
    PERSON,
    audit_entries,
    events,
    news_server,
    osint,
    usage_count,
)
from tests.helpers import client

pytestmark = pytest.mark.emulator

RESEARCH = "/v1/research/topics"
TRACKING = "/v1/tracking/subscriptions"


@pytest.mark.parametrize(
    "name", ["Whitfield", "Whitfield & Co", "Whitfield and", "Whitfield Ltd", "D. Whitfield"]
)
def test_a_surname_at_the_company_door_profiles_no_one(alice, osint, name):  # noqa: F811
    consumer, auth = alice
    answer = client().post(COMPANY, json={"companyName": name}, headers=auth)
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert answer.get_json()["code"] == "not_an_organization"
    assert usage_count(consumer["id"], "osint.company_profile") == 0
    assert [p for p, _ in osint.requests if p.startswith("/raw.xml")] == []  # nothing searched
    (entry,) = audit_entries(consumer["id"])
    assert entry["outcome"] == "refused_not_an_organization"


def test_a_known_single_word_company_and_a_domain_are_still_served(alice, osint):  # noqa: F811
    _, auth = alice
    listed = client().post(COMPANY, json={"companyName": "Kroger"}, headers=auth)
    assert listed.status_code == 200
    by_domain = client().post(
        COMPANY,
        json={"companyName": "Harlow", "companyDomain": "harlowfoods.example"},
        headers=auth,
    )
    assert by_domain.status_code == 200


def test_the_limit_holds_at_every_door_and_spelling(alice, osint, settings_env):  # noqa: F811
    settings_env(OSINT_SUBJECT_DAILY_LIMIT="1")
    _, auth = alice
    events(client().post(PERSON, json=DANA, headers=auth))  # her one profile today
    for first in ("D.", "Dána", "Dan\u0430"):  # an initial, an accent, a Cyrillic a (U+0430)
        again = client().post(PERSON, json={**DANA, "firstName": first}, headers=auth)
        assert again.status_code == 429, (first, again.get_data(as_text=True))
    surname = client().post(COMPANY, json={"companyName": "Whitfield"}, headers=auth)
    assert surname.status_code == 422  # and no findings about her through the company door


def test_an_opted_out_person_is_refused_at_every_keyword_door(alice, osint):  # noqa: F811
    from common.subjects import optout

    consumer, auth = alice
    optout.add("Dana Whitfield")
    try:
        for keywords in (
            ["Dana Whitfield"],
            ["d whitfield"],
            ["Dana Whitf\u0456eld"],
            ["Whitfield"],
        ):
            research = client().post(RESEARCH, json={"customKeywords": keywords}, headers=auth)
            assert research.status_code == 403, (keywords, research.get_data(as_text=True))
            assert research.get_json()["code"] == "subject_opted_out"
            created = client().post(
                TRACKING, json={"custom_keywords": keywords, "frequency": "daily"}, headers=auth
            )
            assert created.status_code == 403, keywords
        assert usage_count(consumer["id"], "research.topics") == 0
        listed = client().get(TRACKING, headers=auth).get_json()
        assert listed["total"] == 0  # nothing was saved
        # A subscription made before she asked cannot be turned to her by PATCH either.
        sub = (
            client()
            .post(
                TRACKING,
                json={"custom_keywords": ["cage-free"], "frequency": "daily"},
                headers=auth,
            )
            .get_json()["data"]
        )
        patched = client().patch(
            f"{TRACKING}/{sub['id']}", json={"custom_keywords": ["Dana Whitfield"]}, headers=auth
        )
        assert patched.status_code == 403
        company = client().post(COMPANY, json={"companyName": "Dana Whitfield Ltd"}, headers=auth)
        assert company.status_code == 403
    finally:
        optout.remove("Dana Whitfield")


def test_research_leaves_out_every_item_naming_an_opted_out_person(alice, osint):  # noqa: F811
    from common.subjects import optout

    _, auth = alice
    body = {"customKeywords": ["Harlow Foods"], "limit": 20}
    before = [e for e in events(client().post(RESEARCH, json=body, headers=auth))]
    shown = json.dumps([e for e in before if e["type"] == "item"])
    assert "Whitfield" in shown  # the fixture news names her
    optout.add("Dana Whitfield")
    try:
        after = events(client().post(RESEARCH, json=body, headers=auth))
        text = json.dumps(after)
        assert "Whitfield" not in text
        assert "Dana" not in text
        assert [e for e in after if e["type"] == "item"]  # the company's own news still shows
    finally:
        optout.remove("Dana Whitfield")


def test_a_tracking_run_stops_naming_a_person_who_opted_out_later(alice, osint):  # noqa: F811
    from common.subjects import optout

    assert optout.without_named(["Dana Whitfield", "mink"]) == ["Dana Whitfield", "mink"]
    optout.add("Dana Whitfield")
    try:
        kept = optout.without_named(["Dana Whitfield", "mink", "D. Whitfield"])
        assert kept == ["mink"]
    finally:
        optout.remove("Dana Whitfield")


def test_a_keyword_naming_a_person_takes_a_place_in_her_day(alice, osint, settings_env):  # noqa: F811
    settings_env(OSINT_SUBJECT_DAILY_LIMIT="1")
    consumer, auth = alice
    body = {"customKeywords": ["Dana Whitfield"]}
    events(client().post(RESEARCH, json=body, headers=auth))
    again = client().post(RESEARCH, json={"customKeywords": ["D. Whitfield"]}, headers=auth)
    assert again.status_code == 429
    assert again.get_json()["code"] == "subject_rate_limited"
    assert client().post(PERSON, json=DANA, headers=auth).status_code == 429  # one day, any door
    outcomes = sorted((e["profile"], e["outcome"]) for e in audit_entries(consumer["id"]))
    assert ("research", "completed") in outcomes
    assert ("research", "refused_rate_limited") in outcomes
    shown = client().get(AUDIT, headers=auth)
    assert shown.status_code == 200, shown.get_data(as_text=True)
    assert {e["profile"] for e in shown.get_json()["data"]} >= {"research", "person"}
    topic_only = client().post(RESEARCH, json={"customKeywords": ["mink farming"]}, headers=auth)
    assert topic_only.status_code == 200  # a keyword that names no one takes no place


def test_the_audit_log_shows_a_refusal_at_the_company_door(alice, osint):  # noqa: F811
    _, auth = alice
    assert (
        client().post(COMPANY, json={"companyName": "Whitfield"}, headers=auth).status_code == 422
    )
    shown = client().get(AUDIT, headers=auth)
    assert shown.status_code == 200, shown.get_data(as_text=True)  # it was a 500
    assert shown.get_json()["data"][0]["outcome"] == "refused_not_an_organization"


def test_the_assistant_proposes_no_tracking_of_an_opted_out_person(alice, osint):  # noqa: F811
    from common.subjects import optout

    _, auth = alice
    optout.add("Dana Whitfield")
    try:
        for message in (
            "Track news about Dana Whitfield every week",
            "Research the latest news on Dana Whitfield",
            "What do you know about Dana Whitfield?",
        ):
            answer = client().post("/v1/chat/message", json={"message": message}, headers=auth)
            assert answer.status_code == 200
            assert "Whitfield" not in answer.get_json()["response"], (message, answer.get_json())
    finally:
        optout.remove("Dana Whitfield")


def test_research_news_through_mcp_refuses_and_leaves_out_an_opted_out_person(alice, osint):  # noqa: F811
    """The MCP door is the research route's own: a keyword naming her (or her surname alone)
    is a tool error naming ``subject_opted_out``, nothing is searched or billed, and a company
    keyword's result no longer names her."""
    from common.subjects import optout
    from tests.emulator.test_mcp import rpc

    consumer, auth = alice

    def research_news(keywords: list[str]) -> dict:
        answered = rpc(
            auth,
            "tools/call",
            {"name": "research_news", "arguments": {"customKeywords": keywords, "limit": 20}},
        )
        assert answered.status_code == 200, answered.get_data(as_text=True)
        return answered.get_json()["result"]

    before = research_news(["Harlow Foods"])
    assert "isError" not in before
    assert "Whitfield" in json.dumps(before["structuredContent"]["items"])  # the news names her
    billed = usage_count(consumer["id"], "research.topics")
    assert billed == 1
    optout.add("Dana Whitfield")
    try:
        osint.clear_requests()
        for keywords in (["Dana Whitfield"], ["Whitfield"]):
            refused = research_news(keywords)
            assert refused.get("isError") is True, (keywords, refused)
            assert "subject_opted_out" in refused["content"][0]["text"], keywords
            assert "structuredContent" not in refused
        assert usage_count(consumer["id"], "research.topics") == billed  # neither was billed
        assert [p for p, _ in osint.requests if p.startswith("/raw.xml")] == []  # nor searched

        after = research_news(["Harlow Foods"])
        assert "isError" not in after
        text = json.dumps(after, ensure_ascii=False)
        assert "Whitfield" not in text
        assert "whitfield" not in text.lower()
        assert after["structuredContent"]["items"]  # the company's own news still shows
        assert "Whitfield" not in after["content"][0]["text"]
    finally:
        optout.remove("Dana Whitfield")


def test_a_subscription_made_before_she_opted_out_neither_searches_nor_names_her(
    alice,
    osint,  # noqa: F811
    sendgrid,
):
    """A subscription whose keywords named her before she was listed: its next run still
    delivers the company's news, does not search for her, and neither the digest (subject,
    text, HTML) nor what the run stored names her. A twin subscription run before she opted
    out shows the fixture news would have named her."""
    from common.adapters.firestore import RESULTS, SUBSCRIPTIONS, TASKS, USAGE, get_db
    from common.subjects import optout
    from functions.tracking.run import run_task
    from registry import run_task as execute
    from tests.helpers import create_subscription, subscription_doc

    _, auth = alice
    body = {"custom_keywords": ["Harlow Foods", "Dana Whitfield"], "frequency": "daily"}
    twin = create_subscription(auth, body)
    sub = create_subscription(auth, body)

    def run(subscription: dict):
        task = run_task(
            subscription["id"],
            subscription["user_id"],
            subscription_doc(subscription["id"])["next_run_at"],
        )
        return task, execute(task)

    _, outcome = run(twin)  # before she opts out: her name is searched and shown
    assert outcome == "sent"
    assert "Whitfield" in json.dumps(sendgrid.messages[-1])
    assert any("Whitfield" in p for p, _ in osint.requests)

    optout.add("Dana Whitfield")
    try:
        osint.clear_requests()
        sent_before = len(sendgrid.messages)
        task, outcome = run(sub)
        assert outcome == "sent"  # the company keyword still delivers

        searched = [p for p, _ in osint.requests if p.startswith("/raw.xml")]
        assert searched == ["/raw.xml?q=Harlow+Foods"], searched  # her name was not searched

        assert len(sendgrid.messages) == sent_before + 1
        message = sendgrid.messages[-1]
        assert message["custom_args"]["task_id"] == task.task_id
        parts = [message["subject"]] + [c["value"] for c in message["content"]]
        assert len(parts) == 3  # subject, text/plain, text/html
        for part in parts:
            assert "whitfield" not in part.lower(), part
        assert "Harlow Foods" in parts[1]  # the company keyword is still what is tracked
        assert "whitfield" not in json.dumps(message, ensure_ascii=False).lower()

        stored = [
            doc.to_dict()
            for doc in get_db()
            .collection(SUBSCRIPTIONS)
            .document(sub["id"])
            .collection(RESULTS)
            .stream()
        ]
        assert stored  # the run kept what it sent
        record = get_db().collection(TASKS).document(task.task_id).get().to_dict()
        assert record["status"] == "succeeded"
        assert record["result"]["items"] == len(stored)
        usage = get_db().collection(USAGE).document(task.task_id).get().to_dict()
        assert usage is not None  # the run that sent a digest is billed
        for kept in (stored, record, usage):
            assert "whitfield" not in json.dumps(kept, default=str).lower(), kept
    finally:
        optout.remove("Dana Whitfield")
