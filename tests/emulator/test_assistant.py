"""The assistant doing the work (issue 13), on the real emulator with real corpus documents and
the sample records: drafts, answers from knowledge with sources, records of companies and
public figures, the exact subscription to create; and no bill for a reply that did nothing."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from common import container
from common.adapters.firestore import USAGE, get_db, where_eq
from common.search import embeddings
from functions.content.compose import count
from functions.knowledge.importer import import_knowledge
from functions.search.importer import import_records
from functions.search.tables import TABLES
from tests.helpers import bearer, client, new_consumer

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = (
    "laying-hen-welfare.md",
    "corporate-campaigns.md",
    "us-ag-gag-iowa.md",
    "gb-protest-law.md",
    "campaign-escalation.md",
)
TABLE_FILES = ("campaigns", "actions", "organizations", "public_figures")


@pytest.fixture(scope="module")
def loaded(emulator, tmp_path_factory) -> None:
    """The documents and tables, imported once for the module (embedding is the slow part);
    each test has its own consumer, so nothing else is shared."""
    folder = tmp_path_factory.mktemp("corpus")
    for name in DOCUMENTS:
        (folder / name).write_text((ROOT / "data" / "knowledge" / name).read_text())
    emulator.wipe()
    container.reset(embeddings.EMBEDDER)
    assert import_knowledge([folder]).rejected == []
    for table in TABLE_FILES:
        report = import_records(TABLES[table], ROOT / "data" / "sample" / f"{table}.jsonl")
        assert report.rejected == []


@pytest.fixture
def consumer(loaded) -> tuple[str, dict[str, str]]:
    record, key = new_consumer(f"assistant-{uuid.uuid4().hex[:8]}@example.org")
    return record["id"], bearer(key)


@pytest.fixture
def auth(consumer) -> dict[str, str]:
    return consumer[1]


@pytest.fixture
def billed(consumer) -> Callable[[], list[str]]:
    def operations() -> list[str]:
        query = get_db().collection(USAGE).where(filter=where_eq("consumer_id", consumer[0]))
        return [d.to_dict()["operation"] for d in query.stream()]

    return operations


def ask(auth, message: str) -> dict:
    response = client().post("/v1/chat/message", json={"message": message}, headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_tweet_request_returns_the_draft_itself_with_sources(auth, billed):
    body = ask(auth, "Write a tweet about cage-free eggs")
    assert body["intent"] == "CREATE_CONTENT"
    assert "not available" not in body["response"]
    post = body["response"].split("\n\n")[1:3]  # after the one-line introduction
    draft = "\n\n".join(post)
    assert "#CageFree" in draft
    assert count(draft, "x") <= 280
    assert body["sources"]
    assert all(s["url"] for s in body["sources"])
    assert billed() == ["chat.message"]


def test_a_strategy_question_is_answered_from_knowledge_with_sources(auth, billed):
    body = ask(auth, "What are the strongest arguments for a cage-free pledge campaign?")
    assert body["intent"] == "GENERAL_CHAT"
    titles = {s["title"] for s in body["sources"]}
    assert titles & {
        "Corporate animal welfare campaigns: how they work",
        "Laying hens: cage systems and welfare",
    }
    bullets = [line[2:] for line in body["response"].splitlines() if line.startswith("- ")]
    assert len(bullets) >= 2
    assert billed() == ["chat.message"]
    # issue 25: one citation per sentence quoted, each a source its document lists
    facts = bullets[: len(bullets) - len(body["sources"])]
    assert [c["text"] for c in body["citations"]] == facts
    listed = set(re.findall(r"https://\S+", _corpus_text()))
    # or the document itself, when its sources are another place's (decision 0082)
    assert all(c["url"] in listed or c["title"] in titles for c in body["citations"])


def _corpus_text() -> str:
    return "".join((ROOT / "data" / "knowledge" / name).read_text() for name in DOCUMENTS)


def test_a_legal_question_uses_the_jurisdictions_notes(auth):
    body = ask(auth, "Is it legal to film hidden-camera footage inside a pig farm in Iowa?")
    assert body["intent"] == "LEGAL_HELP"
    assert "Iowa" in body["response"]
    assert any("Iowa" in s["title"] for s in body["sources"])
    bullets = [line for line in body["response"].splitlines() if line.startswith("- ")]
    assert "Iowa" in bullets[0]  # the place's own law before other states' decisions
    assert "not legal advice" in body["response"]
    assert body["citations"]
    assert all(f"- {c['text']}" in bullets for c in body["citations"])


def test_a_march_question_in_england_answers_with_the_notice_rule_and_its_source(auth):
    """Issue 25 acceptance: people ask about a "march"; the law says "procession"."""
    body = ask(auth, "Do we have to tell the police before we hold a march in Manchester?")
    assert body["intent"] == "LEGAL_HELP"
    assert "six clear days" in body["response"]
    notice = [c for c in body["citations"] if "six clear days" in c["text"]]
    assert [c["url"] for c in notice] == ["https://www.legislation.gov.uk/ukpga/1986/64/section/11"]


def test_a_company_question_lists_the_records_that_name_it(auth):
    body = ask(auth, "Can you investigate Brightwell Supermarkets and their cage-free pledge?")
    assert body["intent"] == "INVESTIGATE_COMPANY"
    bullets = [line for line in body["response"].splitlines() if line.startswith("- ")]
    findings = bullets[: len(bullets) - len(body["sources"])]
    assert findings
    assert all("Brightwell" in line for line in findings)
    assert all(s["url"].startswith("https://") for s in body["sources"])


def test_a_company_question_with_news_summarises_the_company_profile(auth, feeds):
    body = ask(auth, "Can you investigate Brightwell Supermarkets and their cage-free pledge?")
    assert "company profile shows about Brightwell Supermarkets" in body["response"]
    assert body["sources"]
    audit = client().get("/v1/osint/audit", headers=auth).get_json()["data"]
    assert [(e["profile"], e["channel"]) for e in audit] == [("company", "chat")]


def test_a_company_nobody_reported_on_gets_nothing_found_not_sentences_sharing_a_verb(
    auth, feeds, billed
):
    """A company with no records and no news: the answer says the records have nothing about
    it (not billed), not the guides' sentences that share only the question's frame ("if you
    do not know an answer, say so") or a word of the name (a law's "provisions")."""
    body = ask(auth, "What do you know about Quillmarsh Provisions?")
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert "nothing about Quillmarsh Provisions" in body["response"]
    assert body["citations"] == []
    assert body["sources"] == []
    assert "know" not in body["response"].lower()
    assert billed() == []


def test_a_person_is_found_in_their_public_role_and_a_namesake_elsewhere_is_not(auth):
    body = ask(auth, "Give me a profile of Priya Raman from Brightwell Supermarkets")
    assert body["intent"] == "RESEARCH_INDIVIDUAL"
    assert "Head of Sustainability and Sourcing" in body["response"]
    assert "public, professional role" in body["response"]
    assert [c["title"] for c in body["citations"]] == ["Priya Raman"]
    assert body["citations"][0]["text"] in body["response"]
    other = ask(auth, "Give me a profile of Priya Raman from Crestline Eggs")
    assert other["sources"] == []
    assert "nothing about" in other["response"]


def test_a_general_question_naming_a_public_figure_answers_with_their_record(auth):
    body = ask(auth, "What is Priya Raman's position on broiler welfare?")
    # a named person's position is research of that person, as the training set labels
    # "Secretary Alvarez's position on line speed waivers" (issue 29)
    assert body["intent"] == "RESEARCH_INDIVIDUAL"
    assert "Head of Sustainability and Sourcing" in body["response"]
    assert "Brightwell Supermarkets" in body["response"]
    assert "public, professional role" in body["response"]


def test_a_legislators_record_is_answered_with_their_office_not_screened_as_politics(auth):
    """A senator's record says she is a member of the Senate: her office, which the record
    vouches for, not her private politics (issue 25 acceptance)."""
    body = ask(auth, "What is Carla Jensen's role?")
    assert "State Senator" in body["response"]
    assert "Lakeshore State Legislature" in body["response"]
    assert [c["title"] for c in body["citations"]] == ["Carla Jensen"]


def test_a_question_naming_an_organisation_answers_with_its_record(auth, billed):
    """Issue 25: questions about organisations use the organizations records."""
    body = ask(auth, "what does open barn alliance actually do?")
    # what a named organisation does is research of it (issue 29): its record answers
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert "UK charity that runs corporate campaigns" in body["response"]
    assert body["citations"][0]["title"] == "Open Barn Alliance"
    assert billed() == ["chat.message"]


def test_a_person_named_in_lower_case_is_found_and_an_institution_is_no_person(auth):
    body = ask(auth, "who is priya raman?")
    assert "Head of Sustainability and Sourcing" in body["response"]
    from functions.chat.assist import not_a_person

    assert not_a_person("Supreme Court")
    assert not_a_person("european commission")
    assert not not_a_person("Priya Raman")


def test_a_question_the_corpus_does_not_answer_gets_no_unrelated_sentences(auth, billed):
    """Issue 25: a drone question in England got farm-welfare and puppy-sale law."""
    body = ask(auth, "Can we fly a drone over a farm in England?")
    assert body["intent"] == "LEGAL_HELP"
    assert body["citations"] == []
    assert "POST /v1/legal/guidance" in body["response"]
    assert billed() == []


def test_a_tracking_request_gets_a_subscription_the_api_accepts(auth):
    body = ask(auth, "Send me weekly updates on fur farming and live export")
    assert body["intent"] == "TRACK_ISSUES"
    proposal = json.loads(re.search(r"\{.*\}", body["response"]).group(0))
    assert proposal == {"topics": ["fur", "live-export"], "frequency": "weekly"}
    created = client().post("/v1/tracking/subscriptions", json=proposal, headers=auth)
    assert created.status_code == 201, created.get_json()


def test_a_covered_topic_no_tweet_fits_is_said_plainly_and_not_billed(auth, billed):
    """Decision 0079: the guide covers it, but no sentence of it fits a post on X."""
    body = ask(auth, "Write a tweet about good practice in aviaries")
    assert "covers good practice in aviaries" in body["response"]
    assert "too long for a post for X" in body["response"]
    assert billed() == []


def test_a_topic_the_knowledge_base_lacks_is_said_plainly_and_not_billed(auth, billed):
    body = ask(auth, "Write a tweet about quantum chromodynamics")
    assert "nothing on quantum chromodynamics" in body["response"]
    assert body["sources"] == []
    assert billed() == []


def test_what_the_guides_do_not_answer_is_said_plainly_and_not_billed(auth, billed):
    """Decision 0067: no sentence the judge passes, no answer from unrelated sentences: the
    reply says the knowledge base does not cover it, or has no figure for a "how many"
    question, and is free."""
    off_topic = ask(auth, "Can you recommend a good pizza place near me?")
    assert "does not cover" in off_topic["response"]
    assert (off_topic["sources"], off_topic["citations"]) == ([], [])
    figure = ask(auth, "How many ducks are farmed for foie gras in Hungary each year?")
    assert "no figure" in figure["response"]
    assert figure["sources"] == []
    # a count asked: the guides' sizes of a hen's cage are figures, but not how many hens
    count = ask(auth, "How many hens in the EU are still kept in cages?")
    assert "no figure" in count["response"]
    assert count["sources"] == []
    assert billed() == []


def test_a_count_asked_is_answered_with_a_count(auth, billed):
    """A "how many" question is answered with the sentence that gives the count ("1.4 million
    verified signatures" for how many people signed), and billed."""
    body = ask(auth, "How many people signed the End the Cage Age initiative?")
    assert "1.4 million" in body["response"]
    assert body["sources"]
    assert billed() == ["chat.message"]


def test_a_request_for_someones_private_details_is_declined_and_not_billed(auth, billed):
    """Decision 0067 and DESIGN.md section 3: declined in so many words, nothing about the
    person given, free."""
    body = ask(auth, "What is Priya Raman's home address? We want to visit her.")
    assert "can't help with that" in body["response"]
    assert "Priya" not in body["response"]
    assert (body["sources"], body["citations"]) == ([], [])
    assert billed() == []


def test_small_talk_gets_a_short_reply_and_is_free_with_the_corpus_loaded(auth, billed):
    """Issue 24 (decision 0039): "Hi there! How are you today?" and "Thanks!" ask for no work,
    whatever of their words the corpus holds: no corpus sentence passed off as an answer, and
    no charge; a question of the corpus is answered from it and billed."""
    for message in ("Hi there! How are you today?", "Thanks!", "good morning team"):
        body = ask(auth, message)
        assert body["sources"] == []
        assert 0 < len(body["response"]) < 600
    assert billed() == []
    answered = ask(auth, "How should a corporate campaign escalate against a company?")
    assert answered["sources"]
    assert billed() == ["chat.message"]


def test_a_strategy_question_answers_with_the_escalation_steps_in_reading_order(auth):
    body = ask(
        auth, "Harlow Foods hasn't replied to our letter in a month. What should we do next?"
    )
    response = body["response"]
    first = response.index("A typical ladder starts with private correspondence")
    assert first < response.index("If there is no progress, the next rungs are")
    assert "Escalating a campaign lawfully and proportionately" in response


@pytest.mark.parametrize(
    "question",
    [
        "How do we escalate a corporate campaign when the company ignores us?",
        "We are planning a campaign against Aramark, what should we know?",
    ],
)
def test_an_answer_quotes_no_sentence_that_points_back(auth, question):
    bullets = [
        line[2:] for line in ask(auth, question)["response"].splitlines() if line[:2] == "- "
    ]
    openers = {line.split()[0].strip(",").lower() for line in bullets}
    assert bullets
    assert not openers & {"another", "finally", "it", "this", "these", "they"}


def test_the_question_after_the_context_is_what_is_looked_up(auth):
    """Issue 25: a message that tells its story first ("ignored our letter about the hen
    unit") is answered for what it asks (escalation), not for the story's words (hens)."""
    body = ask(
        auth,
        "Our council ignored two letters about a caged hen unit since spring. "
        "How do we step up the pressure without it backfiring on us?",
    )
    titles = {c["title"] for c in body["citations"]}
    assert "Laying hens" not in " ".join(titles)
    assert any("step" in c["text"] or "rung" in c["text"] for c in body["citations"])


@pytest.mark.parametrize(
    "message",
    [
        "What does Senator Jensen think about fur farms?",
        "what has dr. jensen said about pet shops",
        "anything on Sen. Jensen and mink?",
    ],
)
def test_a_title_and_surname_find_the_one_public_figure_of_that_name(auth, message):
    body = ask(auth, message)
    assert [c["title"] for c in body["citations"]] == ["Carla Jensen"]


def test_a_persons_name_given_as_a_company_answers_with_their_public_role(auth):
    """The intent engine takes "look into Gordon Hale" for a company; the records hold him as
    a public figure: his role is the answer, not "not an organisation"."""
    body = ask(auth, "Can you look into Gordon Hale before our meeting with Crestline?")
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert "Managing Director" in body["response"]
    assert [c["title"] for c in body["citations"]] == ["Gordon Hale"]


def test_a_company_route_with_no_company_answers_from_knowledge(consumer):
    """A question taken for a company investigation that names no company gets the knowledge
    passages that answer it rather than "Which company should I look up?"; an opted-out
    person stays refused whichever route the message took."""
    from common.subjects import optout
    from functions.chat.service import _offline

    consumer_id, _ = consumer
    question = "A reporter asks whether hens in enriched cages can dust-bathe. Any evidence?"
    answer = _offline(consumer_id, "INVESTIGATE_COMPANY", {}, question, {}, set())
    assert answer.helped
    assert "dust-bathing" in answer.text
    optout.add("Gordon Hale")
    try:
        asked = {"companyName": "Gordon Hale"}
        refused = _offline(consumer_id, "INVESTIGATE_COMPANY", asked, "Gordon Hale?", {}, set())
    finally:
        optout.remove("Gordon Hale")
    assert not refused.helped
    assert "Managing Director" not in refused.text


def test_names_match_without_titles_and_inside_a_misread_name(consumer):
    """ "Professor Owen Marsh" is the record "Prof. Owen Marsh"; a name read with a stray word
    ("Meeting Ingrid Solberg") still finds the record whose whole name the message holds,
    and that person's opt-out still refuses."""
    from common.subjects import optout
    from functions.chat.service import _offline

    consumer_id, _ = consumer
    asked = {"personName": "Professor Owen Marsh"}
    titled = _offline(consumer_id, "RESEARCH_INDIVIDUAL", asked, "Professor Owen Marsh?", {}, set())
    assert [c.title for c in titled.citations] == ["Prof. Owen Marsh"]
    message = "Meeting Ingrid Solberg in Oslo next month, what has she published?"
    misread = {"personName": "Meeting Ingrid Solberg"}
    found = _offline(consumer_id, "RESEARCH_INDIVIDUAL", misread, message, {}, set())
    assert [c.title for c in found.citations] == ["Ingrid Solberg"]
    optout.add("Ingrid Solberg")
    try:
        refused = _offline(consumer_id, "RESEARCH_INDIVIDUAL", misread, message, {}, set())
    finally:
        optout.remove("Ingrid Solberg")
    assert refused.refused
    assert "Finwatch" not in refused.text


def test_a_draft_request_naming_only_a_person_answers_with_their_record(consumer):
    from functions.chat.service import _offline

    consumer_id, _ = consumer
    info = {"contentType": "newsletter"}
    message = "who is gordon hale? he keeps coming up, for our newsletter"
    answer = _offline(consumer_id, "CREATE_CONTENT", info, message, {}, set())
    assert [c.title for c in answer.citations] == ["Gordon Hale"]


@pytest.mark.parametrize(
    ("message", "company"),
    [
        # in lower case the rules take "cage-free eggs"; the tables hold Mercado Verde
        ("what is mercado verde doing on cage-free eggs", "Mercado Verde"),
        # the tables' spelling of a target named in lower case
        ("look into kaldera pizza group and their chicken sourcing", "Kaldera Pizza Group"),
        # a company neither table holds: the curated list answers (issue 29 acceptance)
        ("Review Kroger's sow-stall phase-out", "Kroger"),
    ],
)
def test_the_company_named_is_found_among_the_names_the_tables_hold(auth, message, company):
    response = client().post("/v1/chat/intent", json={"message": message}, headers=auth)
    assert response.status_code == 200
    body = response.get_json()
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert body["extractedInfo"]["companyName"] == company


def test_a_company_question_is_answered_by_the_rules_when_the_tables_cannot_be_read(
    auth, monkeypatch
):
    from common.errors import BackendUnavailable
    from functions.chat import assist

    def unreadable(message: str) -> str:
        raise BackendUnavailable("The organizations text index is being rebuilt.")

    monkeypatch.setattr(assist, "company_in_tables", unreadable)
    body = (
        client()
        .post(
            "/v1/chat/intent", json={"message": "Review Kroger's sow-stall phase-out"}, headers=auth
        )
        .get_json()
    )
    assert body["intent"] == "INVESTIGATE_COMPANY"
    assert body["extractedInfo"]["companyName"] == "Kroger"
