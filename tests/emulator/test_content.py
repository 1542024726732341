"""Content generation on the real emulator with the offline embedder and the real corpus
documents: drafts within platform limits, every fact a sentence of a cited passage, bad input
refused, uncovered topics unbilled, streaming, and a provider's draft checked."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from common import container
from common.adapters.firestore import KNOWLEDGE, USAGE, get_db, where_eq
from common.language.sentences import split
from common.search import embeddings
from functions.content.compose import count
from functions.knowledge.importer import chunks, import_knowledge, read_documents
from tests.fakes.openai_server import reply
from tests.helpers import bearer, client, new_consumer, streamed_events

pytestmark = pytest.mark.emulator

CORPUS = Path(__file__).resolve().parents[2] / "data" / "knowledge"
DOCUMENTS = ("laying-hen-welfare.md", "corporate-campaigns.md", "california-prop-12.md")


@pytest.fixture(scope="module")
def corpus(emulator, tmp_path_factory) -> list[dict]:
    """The documents, imported once for the module (embedding is the slow part); each test
    has its own consumer, so nothing else is shared."""
    folder = tmp_path_factory.mktemp("corpus")
    for name in DOCUMENTS:
        (folder / name).write_text((CORPUS / name).read_text())
    emulator.wipe()
    container.reset(embeddings.EMBEDDER)
    report = import_knowledge([folder])
    assert (report.documents, report.rejected) == (3, [])
    return [d.to_dict() for d in get_db().collection(KNOWLEDGE).stream()]


@pytest.fixture
def consumer(corpus) -> tuple[str, dict[str, str]]:
    record, key = new_consumer(f"writer-{uuid.uuid4().hex[:8]}@example.org")
    return record["id"], bearer(key)


@pytest.fixture
def auth(consumer) -> dict[str, str]:
    return consumer[1]


def usage(consumer_id: str) -> list[tuple[str, int]]:
    query = get_db().collection(USAGE).where(filter=where_eq("consumer_id", consumer_id))
    return [(d.to_dict()["operation"], d.to_dict()["cost_micros"]) for d in query.stream()]


def generate(auth, body, accept: str | None = None):
    headers = {**auth, **({"Accept": accept} if accept else {})}
    return client().post("/v1/content/generate", json=body, headers=headers)


def source_sentences(corpus: list[dict], sources: list[dict]) -> set[str]:
    titles = {s["title"] for s in sources}
    return {s for p in corpus if p["title"] in titles for s in split(p["passage"])}


def facts_of(text: str, corpus: list[dict]) -> list[str]:
    """The sentences of the whole corpus that appear in the text."""
    every = {s for p in corpus for s in split(p["passage"]) if len(s) >= 40}
    return [s for s in every if s in text]


def test_a_tweet_fits_has_hashtags_and_cites_the_passages_its_fact_comes_from(auth, corpus):
    response = generate(auth, {"topic": "cage-free eggs", "platform": "x"})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert response.headers["X-Content-Engine"] == "offline"
    assert body["contentType"] == "social_post"
    assert body["platform"] == "x"
    assert body["characterLimit"] == 280
    assert body["characterCount"] == count(body["content"], "x") <= 280
    assert [p["text"] for p in body["posts"]] == [body["content"]]
    assert "#CageFree" in body["hashtags"]
    assert "#CageFree" in body["content"]
    assert body["sources"]
    assert all(s["url"].startswith("https://") for s in body["sources"])
    used = facts_of(body["content"], corpus)
    assert used, "the post carries at least one sentence of the corpus"
    assert set(used) <= source_sentences(corpus, body["sources"])


@pytest.mark.parametrize(
    ("topic", "content_type", "audience"),
    [
        ("enriched colony cages for laying hens", "letter", "the CEO of Brightwell Supermarkets"),
        ("Proposition 12 and the Supreme Court", "press_release", None),
        ("battery cages and the EU ban", "blog_post", None),
    ],
)
def test_each_citation_is_the_source_the_guides_footnote_gives(
    auth, corpus, topic, content_type, audience
):
    """Decision 0089, over HTTP: the guides mark each sentence a listed source holds with its
    footnote; every drafted fact is cited to the source its footnote names, and one the guide
    leaves unmarked to the guide itself (no URL)."""
    given: dict[str, tuple[str, ...]] = {}
    for name in DOCUMENTS:
        [(_, document)] = list(read_documents([CORPUS / name]))
        assert not isinstance(document, str)
        for chunk in chunks(document):
            given.update(chunk.given)
    body = {"topic": topic, "contentType": content_type}
    if audience:
        body["audience"] = audience
    drafted = generate(auth, body).get_json()
    assert drafted["citations"]
    for citation in drafted["citations"]:
        urls = given.get(citation["text"])
        if urls:
            assert citation["url"] == urls[0], citation["text"]
        else:
            assert citation["url"] is None, citation["text"]
    # what the guides' footnotes give is quoted before anything they leave unmarked
    assert any(citation["url"] for citation in drafted["citations"])


def test_every_post_of_a_thread_fits_and_is_numbered(auth, corpus):
    body = generate(
        auth, {"topic": "enriched cages for laying hens", "contentType": "thread"}
    ).get_json()
    posts = [p["text"] for p in body["posts"]]
    assert len(posts) >= 4
    for i, post in enumerate(posts, 1):
        assert count(post, "x") <= 280
        assert post.endswith(f" {i}/{len(posts)}")
    assert body["content"] == "\n\n".join(posts)
    # only the facts a reader reads as on the topic (decision 0088): fewer than the thread
    # wants when the others are judged below 0.8 and those at 0.8 or more fit
    assert len(facts_of(body["content"], corpus)) >= 2
    assert set(facts_of(body["content"], corpus)) <= source_sentences(corpus, body["sources"])


@pytest.mark.parametrize(
    ("content_type", "platform", "marker"),
    [
        ("social_post", "instagram", "#CageFree"),
        ("social_post", "linkedin", "#CageFree"),
        ("email", None, "Subject: "),
        ("letter", None, "Dear [Name],"),
        ("press_release", None, "FOR IMMEDIATE RELEASE"),
        ("blog_post", None, "# "),
        ("petition", None, "We, the undersigned"),
        ("talking_points", None, "- "),
    ],
)
def test_each_content_type_is_grounded_and_within_its_platform(
    auth, corpus, content_type, platform, marker
):
    request = {"topic": "cage-free housing for laying hens", "contentType": content_type}
    if platform:
        request["platform"] = platform
    body = generate(auth, request).get_json()
    assert body["contentType"] == content_type
    assert body["characterCount"] <= body["characterLimit"]
    assert marker in body["content"]
    used = facts_of(body["content"], corpus)
    assert used
    assert set(used) <= source_sentences(corpus, body["sources"])
    if body["platform"] in ("web", "email"):  # long forms list the sources they cite
        listed = body["content"].split("Sources", 1)[1]
        cited = {(c["title"], c["url"]) for c in body["citations"]}
        lines = [line for line in listed.splitlines() if line.startswith("- ")]
        assert sorted(lines) == sorted(
            f"- {title}: {url}" if url else f"- {title}" for title, url in cited
        )


def test_audience_and_call_to_action_are_used_as_written(auth, corpus):
    body = generate(
        auth,
        {
            "topic": "cage-free eggs",
            "contentType": "letter",
            "audience": "the CEO of Harlow Foods",
            "callToAction": "Publish a cage-free timeline by March.",
            "length": "short",
        },
    ).get_json()
    assert "To: the CEO of Harlow Foods" in body["content"]
    assert "Publish a cage-free timeline by March." in body["content"]


def test_a_letter_names_the_organisation_it_asks_and_the_date_for_a_reply(auth, corpus):
    """Issue 46: the letter's first line names the audience's organisation; a reply date given
    is asked for, and without one no date (and no placeholder) is."""
    day = datetime.now(UTC).date() + timedelta(days=30)
    body = {
        "topic": "cage-free eggs",
        "contentType": "letter",
        "audience": "the Head of Sustainability at Northgate Foods",
        "replyBy": day.isoformat(),
    }
    dated = generate(auth, body).get_json()["content"]
    assert "I am writing to you at Northgate Foods about cage-free eggs" in dated
    assert f"Please reply by {day.day} {day:%B %Y}." in dated
    undated = generate(auth, {**body, "replyBy": None}).get_json()["content"]
    assert "Please reply by" not in undated
    assert "reply by" not in undated.lower()
    to_people = generate(auth, {**body, "audience": "our supporters"}).get_json()["content"]
    assert "I am writing to you about cage-free eggs" in to_people


def test_a_press_release_with_an_audience_calls_on_its_organisation(auth, corpus):
    body = {"topic": "cage-free eggs", "contentType": "press_release", "audience": "Crestline Eggs"}
    content = generate(auth, body).get_json()["content"]
    assert "today called on Crestline Eggs to act on cage-free eggs." in content


def test_markup_in_the_topic_and_audience_never_reaches_the_draft(auth, corpus):
    """Issue 46: an email's subject echoed a topic's <script> as written."""
    # the organisation's bare "&" is as written, in an email and on the web (Markdown prints
    # it as it is; decision 0089)
    for content_type, platform, named in (
        ("email", "email", "Crestline & Co"),
        ("letter", "web", "Crestline & Co"),
        ("petition", "web", "Crestline & Co"),
    ):
        body = {
            "topic": "<b>cage-free</b> eggs <script>alert(1)</script>",
            "contentType": content_type,
            "platform": platform,
            "audience": "<i>the CEO</i> of Crestline &amp; Co",
        }
        content = generate(auth, body).get_json()["content"]
        assert "<" not in content
        assert "script" not in content
        assert "alert" not in content
        assert "cage-free eggs" in content.lower()
        assert named in content


def test_talking_points_carry_no_advice_on_how_to_close(auth, corpus):
    """Issue 46: talking points closed with "Close with one clear ask and a date for a reply.",
    advice for campaigners; they close with the caller's ask, or with none."""
    body = {"topic": "cage-free eggs", "contentType": "talking_points"}
    content = generate(auth, body).get_json()["content"]
    assert "Close with" not in content
    assert "Closing ask" not in content
    asked = generate(auth, {**body, "callToAction": "Ask Brightwell to publish its data."})
    assert "Ask Brightwell to publish its data." in asked.get_json()["content"]


def test_length_changes_how_many_facts_a_draft_uses(auth, corpus):
    short = generate(
        auth, {"topic": "cage-free eggs", "contentType": "talking_points", "length": "short"}
    ).get_json()
    long = generate(
        auth, {"topic": "cage-free eggs", "contentType": "talking_points", "length": "long"}
    ).get_json()
    assert len(facts_of(short["content"], corpus)) < len(facts_of(long["content"], corpus))


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "topic"),
        ({"topic": ""}, "topic"),
        ({"topic": "x" * 501}, "topic"),
        ({"topic": "eggs", "contentType": "haiku"}, "contentType"),
        ({"topic": "eggs", "platform": "myspace"}, "platform"),
        ({"topic": "eggs", "contentType": "thread", "platform": "linkedin"}, "platform"),
        ({"topic": "eggs", "contentType": "email", "platform": "x"}, "platform"),
        ({"topic": "eggs", "callToAction": "y" * 201}, "callToAction"),
        ({"topic": "eggs", "audience": "z" * 101}, "audience"),
        ({"topic": "eggs", "tone": "angry"}, "tone"),
        ({"topic": "eggs", "length": "epic"}, "length"),
        ({"topic": "eggs", "colour": "red"}, "colour"),
        # issue 46: what is left once markup is removed, and a reply date that fits
        ({"topic": "<script>alert(1)</script>"}, "topic"),
        ({"topic": "eggs", "audience": "<b></b>"}, "audience"),
        ({"topic": "eggs", "contentType": "letter", "replyBy": "2020-01-01"}, "replyBy"),
        ({"topic": "eggs", "contentType": "letter", "replyBy": "soon"}, "replyBy"),
        ({"topic": "eggs", "contentType": "social_post", "replyBy": "2027-01-01"}, "replyBy"),
        ({"topic": "eggs", "contentType": "letter", "replyBy": "9999-12-31"}, "replyBy"),
        ({"topic": "<b>?</b>"}, "topic"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(auth, body, field):
    response = generate(auth, body)
    assert response.status_code == 400
    assert response.content_type == "application/problem+json"
    assert field in [e["field"] for e in response.get_json()["errors"]]


@pytest.mark.parametrize(
    "topic",
    [
        "quantum chromodynamics of gluons",
        # Issue 24: an advocacy topic that shares words with the corpus ("farming") used to be
        # drafted from passages about hens and billed.
        "octopus farming",
    ],
)
def test_a_topic_the_knowledge_base_does_not_cover_is_422_and_not_billed(consumer, topic):
    response = generate(consumer[1], {"topic": topic})
    assert response.status_code == 422
    assert response.get_json()["code"] == "topic_not_covered"
    assert usage(consumer[0]) == []


def test_a_covered_topic_no_post_fits_is_422_saying_where_one_would_and_not_billed(consumer):
    """Decision 0079: the laying-hen guide's sentence on good practice in aviaries (327
    characters, no clause to cut) fits no post on X; on LinkedIn it is drafted."""
    refused = generate(consumer[1], {"topic": "good practice in aviaries", "platform": "x"})
    assert refused.status_code == 422
    problem = refused.get_json()
    assert problem["code"] == "draft_does_not_fit"
    assert "linkedin" in problem["detail"]
    assert usage(consumer[0]) == []
    drafted = generate(consumer[1], {"topic": "good practice in aviaries", "platform": "linkedin"})
    assert drafted.status_code == 200
    assert "aviaries" in drafted.get_json()["content"]


def test_a_draft_is_billed_once_at_its_price(consumer):
    assert generate(consumer[1], {"topic": "cage-free eggs"}).status_code == 200
    assert usage(consumer[0]) == [("content.generate", 250_000)]


def test_server_sent_events_carry_sources_text_and_the_whole_answer(auth):
    plain = generate(auth, {"topic": "cage-free eggs", "contentType": "thread"}).get_json()
    streamed = generate(
        auth, {"topic": "cage-free eggs", "contentType": "thread"}, "text/event-stream"
    )
    assert streamed.status_code == 200
    assert streamed.mimetype == "text/event-stream"
    events = [(e.pop("type"), e) for e in streamed_events(streamed)]  # checked by their models
    assert events[0] == ("sources", {"sources": plain["sources"]})
    assert "".join(e[1]["text"] for e in events if e[0] == "delta") == plain["content"]
    assert events[-1] == ("done", plain)


@pytest.fixture
def provider(corpus, fake_llm):
    return fake_llm


def test_a_providers_draft_is_used_when_it_keeps_the_rules(provider, auth):
    draft = {
        "posts": ["Caged hens cannot nest or dust-bathe. Ask for cage-free. #CageFree"],
        "hashtags": ["#CageFree"],
        "sources": ["S1", "S99"],
    }
    provider.script(reply(json.dumps(draft)))
    response = generate(auth, {"topic": "cage-free eggs"})
    body = response.get_json()
    assert response.headers["X-Content-Engine"] == "openai:fake-1"
    assert body["content"] == draft["posts"][0]
    assert len(body["sources"]) == 1  # S99 names no passage
    sent = json.loads(provider.requests[-1].messages[-1]["content"])
    assert sent["characterLimit"] == 280
    assert sent["passages"][0]["id"] == "S1"
    assert sent["passages"][0]["text"]


def test_a_providers_draft_over_the_limit_is_replaced_by_the_offline_draft(provider, auth):
    provider.script(reply(json.dumps({"posts": ["x" * 300], "hashtags": [], "sources": ["S1"]})))
    response = generate(auth, {"topic": "cage-free eggs"})
    assert response.headers["X-Content-Engine"] == "offline"
    assert response.get_json()["characterCount"] <= 280


def test_a_providers_draft_passes_the_personal_data_screen(provider, auth):
    """Issue 22: a draft never carries personal data, whoever wrote it."""
    draft = {
        "posts": [
            "Caged hens cannot nest or dust-bathe. Its CEO Sam Ortiz lives at Brook Road. "
            "Ask for cage-free. #CageFree"
        ],
        "hashtags": ["#CageFree"],
        "sources": ["S1"],
    }
    provider.script(reply(json.dumps(draft)))
    body = generate(auth, {"topic": "cage-free eggs"}).get_json()
    assert "Brook Road" not in json.dumps(body)
    assert body["content"] == "Caged hens cannot nest or dust-bathe. Ask for cage-free. #CageFree"


def listed_sources(corpus: list[dict], sentence: str) -> set[str]:
    """The URLs the document holding ``sentence`` lists as its sources (and its own)."""
    holding = [p for p in corpus if sentence in p["passage"]]
    return {s["url"] for p in holding for s in p["sources"]} | {p["url"] for p in holding}


# Issue 46: what a provider may plant in a draft on cage-free eggs, beside a sentence of the
# laying-hen guide (which says: enriched cages give at least 750 square centimetres a hen;
# conventional cages prohibited from 1 January 2012; about 1.4 million people supported End
# the Cage Age).
HELD = (
    "Outside the EU, many companies have adopted cage-free egg policies, and some "
    "jurisdictions, including California under Proposition 12, require cage-free housing by law."
)
PLANTED = [
    "Enriched cages must give each hen at least 1,200 square centimetres of cage area.",  # figure
    "The EU prohibited conventional cages from 1 January 2015.",  # a date moved
    '"Cages are a relic of the past," said EU commissioner Maria Keller.',  # an invented quote
    "About 3 million people supported the End the Cage Age initiative.",  # a figure
    "Hens in enriched cages live twice as long as hens in barns.",  # an invented claim
    "All EU member states banned enriched cages in 2021.",  # an overstatement and a date
]


@pytest.mark.parametrize("planted", PLANTED)
def test_a_claim_the_passages_do_not_hold_never_reaches_the_client(provider, auth, planted):
    draft = {
        "posts": [f"{HELD} {planted}\n\nAsk your supermarket to go cage-free."],
        "hashtags": [],
        "sources": ["S1"],
    }
    provider.script(reply(json.dumps(draft)))
    response = generate(auth, {"topic": "cage-free eggs", "platform": "linkedin"})
    body = response.get_json()
    assert response.headers["X-Content-Engine"] == "openai:fake-1"
    assert body["content"] == f"{HELD}\n\nAsk your supermarket to go cage-free."
    # cited to the guide that holds it: its own source, the EU's directive, is another place's
    assert body["citations"] == [
        {"text": HELD, "title": "Laying hens: cage systems and welfare", "url": None}
    ]


def test_a_provider_draft_left_without_a_held_claim_or_its_ask_is_the_offline_draft(provider, auth):
    nothing_held = {"posts": [" ".join(PLANTED[:3])], "hashtags": [], "sources": ["S1"]}
    ask = "Write to Brightwell about its cage-free deadline."
    lost_ask = {"posts": [f"{HELD} {PLANTED[0]}"], "hashtags": [], "sources": ["S1"]}
    provider.script(reply(json.dumps(nothing_held)), reply(json.dumps(lost_ask)))
    body = {"topic": "cage-free eggs", "platform": "linkedin"}
    first = generate(auth, body)
    second = generate(auth, {**body, "callToAction": ask})
    for response in (first, second):
        assert response.headers["X-Content-Engine"] == "offline"
        assert not set(PLANTED) & set(split(response.get_json()["content"]))
    assert ask in second.get_json()["content"]


def test_every_fact_is_cited_to_a_source_its_document_lists_for_it(auth, corpus):
    """Issue 25: one citation per factual sentence, its URL the source of that sentence (the
    section of the Code it names, the court case), not only the document's front page."""
    body = generate(
        auth,
        {
            "topic": "Proposition 12 exceptions and the Supreme Court challenge",
            "contentType": "talking_points",
            "length": "long",
        },
    ).get_json()
    citations = body["citations"]
    assert {c["text"] for c in citations} == set(facts_of(body["content"], corpus))
    for citation in citations:
        # or, when every source the document lists is another place's (decision 0082), the
        # document itself: its title, no URL
        holding = {p["title"] for p in corpus if citation["text"] in p["passage"]}
        cited_itself = citation["url"] is None and citation["title"] in holding
        assert cited_itself or citation["url"] in listed_sources(corpus, citation["text"])
        assert citation["title"]
    urls = {c["url"] for c in citations} - {None}
    front = {p["url"] for p in corpus if p["doc_id"] == "california-prop-12"}
    assert urls - front, "every fact cited to a front page"
    assert any("25992" in url or "598/21-468" in url for url in urls)


def test_a_providers_draft_cites_the_sentences_it_took_from_a_passage(provider, auth, corpus):
    sentence = next(
        s
        for p in corpus
        if p["doc_id"] == "laying-hen-welfare"
        for s in split(p["passage"])
        if "1999/74/EC" in s and len(s) < 200
    )
    draft = {"posts": [f"{sentence} Act now!"], "hashtags": [], "sources": ["S1", "S2", "S3"]}
    provider.script(reply(json.dumps(draft)))
    body = generate(auth, {"topic": "Directive 1999/74/EC cages for laying hens"}).get_json()
    assert body["content"] == draft["posts"][0]
    assert [c["text"] for c in body["citations"]] == [sentence]  # "Act now!" is no fact
    assert body["citations"][0]["url"] in listed_sources(corpus, sentence)


@pytest.fixture(scope="module")
def campaigns(corpus) -> None:
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    sample = CORPUS.parent / "sample" / "campaigns.jsonl"
    assert import_records(TABLES["campaigns"], sample).rejected == []


def test_a_company_that_already_committed_is_asked_to_deliver_not_to_commit(auth, campaigns):
    """Issue 25: the campaigns table records Brightwell's cage-free campaign as won."""

    def addressed(topic: str, content_type: str, audience: str) -> str:
        body = {"topic": topic, "contentType": content_type, "audience": audience}
        return generate(auth, body).get_json()["content"]

    letter = addressed("cage-free eggs", "letter", "the CEO of Brightwell Supermarkets")
    assert "the commitment Brightwell Supermarkets has already made" in letter
    assert "progress report on that commitment" in letter
    petition = addressed("cage-free eggs", "petition", "Brightwell Supermarkets")
    assert "call on Brightwell Supermarkets to deliver the commitment" in petition
    # a company with no won campaign on the topic is asked to act, as before
    other = addressed("Proposition 12 pork", "letter", "Brightwell Supermarkets")
    assert "I am writing to you at Brightwell Supermarkets about Proposition 12 pork" in other
    assert "already made" not in other
    # the judge reads whether the won campaign answers the topic (decision 0089): a letter on
    # keel bone fractures in cage-free aviaries shares the catalog's cage-free topic with the
    # cage-free campaign, and is about no commitment of Brightwell's
    keel = addressed("keel bone fractures in cage-free aviaries", "letter", "Brightwell")
    assert "Brightwell Supermarkets" in keel
    assert "already made" not in keel


def test_the_organisation_a_topic_names_is_addressed_when_the_audience_names_none(auth, campaigns):
    """Issue 46: a petition on a company's eggs "To: [the decision maker]", or to the shoppers
    who sign it, called on no one; a letter with no audience never named the company. The
    campaigns table's target is found by its shorter form ("Atlas Poultry")."""

    def drafted(content_type: str, audience: str | None = None) -> str:
        body = {
            "topic": "Atlas Poultry still sells eggs from caged hens",
            "contentType": content_type,
        }
        body |= {"audience": audience} if audience else {}
        return generate(auth, body).get_json()["content"]

    petition = drafted("petition")
    assert "To: Atlas Poultry Group" in petition
    # the topic is a sentence, and stands as its own (decision 0086), in a title without the
    # full stop the frame adds (decision 0087)
    assert "call on Atlas Poultry Group to act." in petition
    assert "# Petition: Atlas Poultry still sells eggs from caged hens\n" in petition
    signed = drafted("petition", "shoppers in Leeds")  # the signers, not the target
    assert "To: Atlas Poultry Group" in signed
    assert "shoppers in Leeds" not in signed
    assert "I am writing to you at Atlas Poultry Group" in drafted("letter")
    assert "called on Atlas Poultry Group to act." in drafted("press_release", "local media")
    # a letter to its own audience, which names no organisation, is written to them
    to_supporters = drafted("letter", "our supporters")
    assert "To: our supporters" in to_supporters
    assert "you at Atlas" not in to_supporters
    # a topic that names no organisation is addressed as before
    body = {"topic": "cage-free eggs", "contentType": "petition"}
    assert "To: [the decision maker]" in generate(auth, body).get_json()["content"]


def test_a_petition_calls_on_the_topics_company_to_deliver_what_it_committed(auth, campaigns):
    """The party a petition calls on is the one whose commitment is looked up: the campaigns
    table records Marigold Grocers' cage-free campaign as won, so a petition its shoppers sign
    asks Marigold to deliver, not to act (decision 0084)."""
    body = {
        "topic": "Marigold cage-free eggs",
        "contentType": "petition",
        "audience": "shoppers in Leeds",
    }
    petition = generate(auth, body).get_json()["content"]
    assert "To: Marigold Grocers" in petition
    assert "call on Marigold Grocers to deliver the commitment" in petition


def test_an_audience_that_is_only_a_name_the_tables_hold_is_written_to(auth, campaigns):
    """An audience the rules read no organisation in ("Sunny Griddle Diners" ends in no word
    of an organisation's name) is looked up in the tables, allies included."""
    body = {"topic": "cage-free eggs", "contentType": "email", "audience": "Sunny Griddle Diners"}
    assert "you at Sunny Griddle Diners" in generate(auth, body).get_json()["content"]


def test_a_word_of_a_name_written_in_lower_case_names_no_organisation(auth, campaigns):
    """``organisation_in`` reads a table's name only as a name is written: "marigold" in a
    topic about hen feed is a flower, not Marigold Grocers, whom a petition never calls on."""
    body = {"topic": "marigold extract in hen feed and cage-free eggs", "contentType": "petition"}
    petition = generate(auth, body).get_json()["content"]
    assert "To: [the decision maker]" in petition
    assert "Marigold Grocers" not in petition


@pytest.fixture
def organisations(corpus) -> None:
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    sample = CORPUS.parent / "sample" / "organizations.jsonl"
    assert import_records(TABLES["organizations"], sample).rejected == []


def test_an_ally_is_one_the_organisations_table_records_as_neither_company_nor_government(
    organisations,
):
    """Decision 0088: a letter or email to an ally's volunteers does not call on an
    organisation (campaign advice may reach them); a company or one the tables do not hold
    is called on."""
    from functions.content.service import ally

    assert ally("Hen Liberty Project")  # a nonprofit of the sample records
    assert not ally("Brightwell Supermarkets")  # a company
    assert not ally("Hen Liberty")  # not the name the table holds
    assert not ally("Nowhere Holdings Ltd")
