"""Legal guides quote the knowledge base's notes on the place's law (decision 0026): the real
documents data/knowledge/gb-protest-law.md and us-ag-gag-iowa.md imported into the emulator
(offline embedder), guidance jobs run over HTTP with the inline queue, guides read back from
GET /v1/tasks/{id} and from the email sent to a loopback SendGrid."""

from __future__ import annotations

import re

import pytest

from common.adapters.firestore import KNOWLEDGE, SEARCH_INDEXES, get_db
from common.adapters.tasks import inline_queue
from common.datafiles import DATA
from common.language.sentences import split
from tests.emulator.conftest import LEGAL_NOTES
from tests.helpers import client

pytestmark = pytest.mark.emulator

GUIDANCE = "/v1/legal/guidance"
PROTEST_LAW = "https://www.legislation.gov.uk/ukpga/1986/64"
IOWA_LAW = "https://www.legis.iowa.gov/docs/code/717A.3A.pdf"
MARCH = "We're planning a march through central London next month"
FOOTAGE = "We have hidden-camera footage from an Iowa pig farm; can we publish it?"


def guide_for(auth: dict[str, str], body: dict) -> dict:
    accepted = client().post(GUIDANCE, json=body, headers=auth)
    assert accepted.status_code == 202, accepted.get_json()
    assert inline_queue().drain(60)
    task = client().get(f"/v1/tasks/{accepted.get_json()['taskId']}", headers=auth).get_json()
    assert task["status"] == "succeeded", task
    return task["result"]


def sections(guide: dict) -> dict[str, str]:
    return {s["heading"]: s["body"] for s in guide["sections"]}


def quoted(guide: dict) -> list[str]:
    """The sentences of the guide's notes sections (without their "Source:" lines)."""
    found = []
    for heading, body in sections(guide).items():
        if heading.startswith("What the law says in "):
            for paragraph in body.split("\n\n"):
                if not paragraph.startswith("Source: "):
                    found += split(paragraph)
    return found


def source_text() -> str:
    return " ".join(
        " ".join((DATA / "knowledge" / f"{name}.md").read_text(encoding="utf-8").split())
        for name in LEGAL_NOTES
    )


def assert_nothing_invented(guide: dict) -> None:
    text = source_text()
    for sentence in quoted(guide):
        assert sentence in text, f"not in the sources: {sentence!r}"


def test_a_march_in_england_cites_the_protest_law_and_its_six_clear_days(
    legal_corpus, alice, sendgrid
):
    _, auth = alice
    result = guide_for(auth, {"prompt": MARCH, "jurisdiction": "England", "timeline": "next month"})

    guide = result["guide"]
    notes = sections(guide)["What the law says in England and Wales"]
    assert "six clear days" in notes
    assert (
        "Source: Protest law in England and Wales: notice, conditions and offences, " + PROTEST_LAW
    ) in notes
    assert guide["sources"] == [
        {
            "title": "Protest law in England and Wales: notice, conditions and offences",
            "url": PROTEST_LAW,
        }
    ]
    assert (
        "quote the service's notes on the law of England and Wales"
        in (sections(guide)["Jurisdiction"])
    )
    assert_nothing_invented(guide)
    assert "six clear days" in result["markdown"]
    assert "## Sources\n\n- Protest law in England and Wales" in result["markdown"]
    [email] = sendgrid.messages
    bodies = {part["type"]: part["value"] for part in email["content"]}
    for body in bodies.values():
        assert "six clear days" in body
        assert PROTEST_LAW in body
        assert "not legal advice" in body


def test_hidden_camera_footage_in_iowa_cites_iowas_law_and_decisions(legal_corpus, alice):
    _, auth = alice
    guide = guide_for(auth, {"prompt": FOOTAGE, "jurisdiction": "Iowa"})["guide"]

    notes = sections(guide)["What the law says in Iowa"]
    assert re.search(r"Iowa Code 717A|717A\.3|727\.8A", notes)
    assert re.search(r"Reynolds|Eighth Circuit", notes)
    assert {
        "title": "Ag-gag laws in the United States: Iowa Code 717A.3A and the court decisions",
        "url": IOWA_LAW,
    } in guide["sources"]
    assert PROTEST_LAW not in [s["url"] for s in guide["sources"]]
    assert not re.search(r"Idaho|Kansas", notes)  # other states' law is not Iowa's
    assert_nothing_invented(guide)


def test_a_place_the_service_does_not_know_is_refused_before_any_guide(legal_corpus, alice):
    # It was a guide that said it had no notes on Narnia, billed $1.00; since decision 0068 it
    # is a free 422 (tests/emulator/test_legal_recognition.py).
    _, auth = alice
    answer = client().post(
        GUIDANCE,
        json={"prompt": "We want to hold a protest outside the palace.", "jurisdiction": "Narnia"},
        headers=auth,
    )

    assert answer.status_code == 422
    assert answer.get_json()["code"] == "jurisdiction_not_recognised"


def test_scotland_is_not_given_the_england_and_wales_notes(legal_corpus, alice):
    _, auth = alice
    guide = guide_for(
        auth,
        {
            "prompt": "We're planning a march through Edinburgh next month",
            "jurisdiction": "Scotland",
        },
    )["guide"]

    jurisdiction = sections(guide)["Jurisdiction"]
    assert "The service has no notes on the law of Scotland" in jurisdiction
    assert "they are not used for Scotland" in jurisdiction
    assert "six clear days" not in str(guide)
    assert guide["sources"] == []


def test_a_place_named_only_in_the_request_is_used_and_said(legal_corpus, alice):
    _, auth = alice
    guide = guide_for(auth, {"situation": FOOTAGE})["guide"]

    assert guide["jurisdiction"] is None
    assert "What the law says in Iowa" in sections(guide)
    assert sections(guide)["Jurisdiction"].startswith(
        "You did not name a jurisdiction, but your request mentions Iowa"
    )
    assert_nothing_invented(guide)


def test_a_knowledge_base_that_cannot_be_searched_gives_a_guide_without_notes(legal_corpus, alice):
    # The index was built with another model: the search refuses (a 502 on its own route).
    get_db().collection(SEARCH_INDEXES).document(KNOWLEDGE).update(
        {"model": "vertex:text-embedding-005@768"}
    )
    _, auth = alice
    guide = guide_for(auth, {"prompt": MARCH, "jurisdiction": "England"})["guide"]

    assert "could not consult its notes on the law of England" in sections(guide)["Jurisdiction"]
    assert guide["sources"] == []
    assert guide["questionsForLawyer"]
