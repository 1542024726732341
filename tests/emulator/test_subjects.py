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
