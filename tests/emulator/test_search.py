"""Search and knowledge on the real emulator with the offline embedder: import, find by words
and by meaning, refuse bad input and mixed models, lose nothing already stored."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from common import container
from common.adapters.firestore import KNOWLEDGE, SEARCH_INDEXES, USAGE, get_db, where_eq
from common.errors import IndexMismatch
from common.search import embeddings, relevance, retrieval
from functions.knowledge import service as knowledge_service
from functions.knowledge.importer import import_knowledge
from functions.search.importer import import_records, reindex
from functions.search.tables import TABLES
from tests.helpers import client

pytestmark = pytest.mark.emulator

CAMPAIGNS = [
    {
        "id": "camp-1",
        "title": "Harlow Foods: keep your cage-free egg pledge",
        "description": "Harlow Foods promised to stop selling eggs from caged hens by 2025.",
        "status": "active",
        "target": "Harlow Foods",
        "organization": "Hope for Hens",
        "topics": ["cage-free", "corporate-campaigns"],
        "country": "GB",
        "start_date": "2023-04-01",
    },
    {
        "id": "camp-2",
        "title": "End mink farming in Poland",
        "description": "A coalition asks parliament to ban fur farms.",
        "status": "won",
        "target": "Sejm",
        "topics": ["fur", "legislation"],
        "country": "PL",
    },
    {
        "id": "camp-3",
        "title": "Better lives for broiler chickens at QuickBite",
        "description": "Asks the restaurant chain to adopt slower-growing breeds and more space.",
        "status": "active",
        "target": "QuickBite",
        "topics": ["factory-farming", "corporate-campaigns"],
        "country": "US",
    },
]

KNOWLEDGE_DOCS = {
    "undercover.md": """---
id: undercover-filming
title: Undercover filming on farms
url: https://example.org/undercover
tags: legal, jurisdiction-us
---
# Undercover filming on farms

## Ag-gag laws

Several US states passed ag-gag statutes that make it a crime to gain access to an agricultural
facility under false pretences or to record audio or video there without the owner's consent.

## Courts

Federal courts struck down parts of some of these statutes on free speech grounds.
""",
    "hens.md": """---
id: hen-welfare
title: Laying hen welfare
url: https://example.org/hens
tags: welfare-science, cage-free
---
# Laying hen welfare

## Space

A hen in a barren battery cage has less floor space than a sheet of A4 paper and cannot
spread her wings, dust-bathe or nest.

## Enrichment

Perches, litter and nest boxes let hens perform their strongly motivated natural behaviours.
""",
    "protest.md": """---
id: protest-planning
title: Planning a peaceful protest
url: https://example.org/protest
tags: campaign-tactics
---
# Planning a peaceful protest

## Safety

Agree on roles, brief every participant, and keep the route and exits clear.
""",
}


@pytest.fixture
def auth(alice) -> dict[str, str]:
    return alice[1]


@pytest.fixture
def offline(settings_env):
    container.reset(embeddings.EMBEDDER)
    settings_env(EMBEDDINGS_BACKEND="offline")
    yield
    container.reset(embeddings.EMBEDDER)


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture
def campaigns(db, offline, tmp_path) -> None:
    report = import_records(TABLES["campaigns"], write_jsonl(tmp_path / "c.jsonl", CAMPAIGNS))
    assert (report.written, report.rejected) == (3, [])


@pytest.fixture
def corpus(db, offline, tmp_path) -> Path:
    for name, text in KNOWLEDGE_DOCS.items():
        (tmp_path / name).write_text(text)
    report = import_knowledge([tmp_path])
    assert (report.documents, report.rejected) == (3, [])
    return tmp_path


def search(auth, body, table: str | None = None):
    path = "/v1/search" + (f"/{table}" if table else "")
    return client().post(path, json=body, headers=auth)


def ids(response) -> list[str]:
    assert response.status_code == 200, response.get_json()
    return ids_of(response.get_json())


def ids_of(body: dict) -> list[str]:
    return [hit["id"] for hit in body["data"]]


# --- import ------------------------------------------------------------------------------------


def test_an_import_reports_bad_rows_by_line_and_still_loads_the_good_ones(db, offline, tmp_path):
    path = write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            CAMPAIGNS[0],
            "{not json",
            {"id": "camp-x", "status": "active"},
            {"id": "camp-y", "title": "Y", "status": "maybe"},
            CAMPAIGNS[1],
        ],
    )

    report = import_records(TABLES["campaigns"], path)

    assert report.written == 2
    assert [line for line, _ in report.rejected] == [2, 3, 4]
    assert "title: required" in report.rejected[1][1]
    assert "status" in report.rejected[2][1]
    stored = {doc.id for doc in get_db().collection("campaigns").stream()}
    assert stored == {"camp-1", "camp-2"}


def test_importing_the_same_file_again_writes_nothing_and_changes_update(campaigns, tmp_path):
    again = import_records(TABLES["campaigns"], write_jsonl(tmp_path / "c.jsonl", CAMPAIGNS))
    assert (again.written, again.unchanged) == (0, 3)

    changed = [{**CAMPAIGNS[1], "status": "lost"}]
    report = import_records(TABLES["campaigns"], write_jsonl(tmp_path / "d.jsonl", changed))

    assert report.written == 1
    assert get_db().collection("campaigns").document("camp-2").get().get("status") == "lost"
    assert get_db().collection("campaigns").document("camp-1").get().exists  # nothing lost


def test_every_record_stores_the_relevance_judges_vector_and_one_without_gets_it(
    campaigns, tmp_path
):
    """The judge's vector is written at import (issue 44): with the offline embedder it is the
    stored embedding itself, packed; a record imported before the judge (no judge_model) is
    not fresh, and the next import writes it again with its vector."""
    from common.search import relevance

    ref = get_db().collection("campaigns").document("camp-1")
    stored = ref.get().to_dict()
    vector = relevance.unpack(stored[relevance.VECTOR_FIELD])
    assert stored["judge_model"] == relevance.VECTOR_MODEL
    assert vector is not None
    assert max(abs(a - b) for a, b in zip(vector, list(stored["embedding"]), strict=True)) < 1e-3
    from google.cloud.firestore_v1 import DELETE_FIELD

    ref.update({"judge_model": DELETE_FIELD, relevance.VECTOR_FIELD: DELETE_FIELD})
    again = import_records(TABLES["campaigns"], write_jsonl(tmp_path / "c.jsonl", CAMPAIGNS))

    assert (again.written, again.unchanged) == (1, 2)
    assert relevance.unpack(ref.get().get(relevance.VECTOR_FIELD)) is not None


def test_a_dry_run_writes_nothing(db, offline, tmp_path):
    report = import_records(
        TABLES["campaigns"], write_jsonl(tmp_path / "c.jsonl", CAMPAIGNS), dry_run=True
    )

    assert (report.valid, report.written) == (3, 0)
    assert list(get_db().collection("campaigns").stream()) == []


# --- search ------------------------------------------------------------------------------------


def test_words_find_records_with_stemmed_terms(campaigns, auth):
    found = ids(search(auth, {"query": "caged hens eggs", "search_type": "text"}, "campaigns"))

    assert found[0] == "camp-1"
    assert "camp-2" not in found


def test_meaning_finds_a_record_in_other_words_and_nothing_unrelated(campaigns, auth):
    """Semantic candidates are judged (decision 0067): the record that answers comes first;
    a query nothing answers gets no results, free."""
    query = {"query": "a ban on fur farming", "search_type": "semantic"}

    found = ids(search(auth, query, "campaigns"))
    unrelated = search(
        auth, {"query": "weather forecast London tomorrow", "search_type": "semantic"}, "campaigns"
    )

    assert found[0] == "camp-2"  # "End mink farming in Poland"
    assert unrelated.status_code == 200
    assert unrelated.get_json()["data"] == []


def test_hybrid_is_the_default_and_answers_the_documented_shape(campaigns, auth, alice):
    response = search(auth, {"query": "campaigns", "limit": 2}, "campaigns")

    body = response.get_json()
    assert body["searchType"] == "hybrid"
    assert body["total"] == len(body["data"]) == 2  # three answer; the limit is two
    response = search(auth, {"query": "cage-free pledge", "limit": 2}, "campaigns")
    body = response.get_json()
    first = body["data"][0]
    assert first["table"] == "campaigns"
    assert first["id"] == "camp-1"
    assert first["record"]["title"] == CAMPAIGNS[0]["title"]
    assert first["record"]["start_date"] == "2023-04-01"
    assert not {"embedding", "search_terms", "embedding_model"} & set(first["record"])
    assert not {"judge_vector", "judge_model"} & set(first["record"])
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    assert [u.get("operation") for u in usage.stream()] == ["search.query"] * 2


def test_a_search_that_finds_nothing_is_not_billed(campaigns, auth, alice):
    """Issue 24 (decision 0039): no charge for nothing; a search with results is billed."""
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    empty = search(auth, {"query": "zqxjv wombatry", "search_type": "text"}, "campaigns")
    assert empty.status_code == 200
    assert empty.get_json()["total"] == 0
    assert list(usage.stream()) == []
    found = search(auth, {"query": "cage-free pledge", "search_type": "text"}, "campaigns")
    assert found.get_json()["total"] > 0
    assert [u.get("operation") for u in usage.stream()] == ["search.query"]
    bill = client().get("/v1/usage", headers=auth).get_json()  # the bill reconciles
    assert bill["operations"] == [
        {
            "operation": "search.query",
            "requests": 1,
            "cost_micros": 50_000,
            "cost": "$0.05",
            "unbilled_requests": 1,
        }
    ]
    assert bill["total"]["unbilled_requests"] == 1


def test_a_search_is_billed_when_a_record_answers_and_says_so_when_none_does(
    campaigns, auth, alice
):
    """Decision 0067: results keep retrieval's order and carry the judge's probability; a
    search whose results the judge scores below the floor answers the nearest with a message, free;
    one whose results all score below ``SHOWN_FLOOR`` (noise), or that no record holds a word
    of, gets nothing, free."""
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    nearest = search(auth, {"query": "rabbit fur"}, "campaigns").get_json()
    assert nearest["data"]
    assert all(
        relevance.SHOWN_FLOOR <= hit["score"] < relevance.RECORD_FLOOR for hit in nearest["data"]
    )
    assert "not billed" in nearest["message"]
    noise = search(auth, {"query": "caged rabbits on farms in Spain"}, "campaigns").get_json()
    assert (noise["data"], noise["total"]) == ([], 0)
    assert "not billed" in noise["message"]
    gibberish = search(auth, {"query": "qwzx plorf vvbn"}, "campaigns").get_json()
    assert (gibberish["data"], gibberish["total"]) == ([], 0)
    assert "not billed" in gibberish["message"]
    assert list(usage.stream()) == []
    answered = search(auth, {"query": "mink farming ban"}, "campaigns").get_json()
    assert answered["data"][0]["id"] == "camp-2"
    assert answered["message"] is None
    assert [u.get("operation") for u in usage.stream()] == ["search.query"]


def test_a_search_about_another_field_gets_nothing_free_and_a_name_or_animal_is_kept(
    campaigns, auth, alice
):
    """Decision 0077: a query about another field altogether gets data [] with a message, free,
    even when a record's text holds its words (camp-3: "restaurant chain", "space"); one that
    names an animal or a word of what a record is called is searched and judged as before."""
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    for query in (
        "best sourdough starter recipe for beginners",
        "best restaurant chain for a birthday dinner",
        "cheap storage space to rent near me",
    ):
        body = search(auth, {"query": query}, "campaigns").get_json()
        assert (body["data"], body["total"]) == ([], 0)
        assert "another field" in body["message"]
        assert "not billed" in body["message"]
    assert list(usage.stream()) == []

    animal = search(auth, {"query": "mink"}, "campaigns").get_json()  # the encoder: "outside"
    assert ids_of(animal)[0] == "camp-2"
    named = search(auth, {"query": "QuickBite"}, "campaigns").get_json()  # the same
    assert ids_of(named)[0] == "camp-3"
    assert "another field" not in (named["message"] or "")


def test_a_knowledge_search_about_another_field_gets_nothing_free(corpus, auth, alice):
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    response = client().post(
        "/v1/knowledge/search", json={"query": "cheapest flights to Lisbon in March"}, headers=auth
    )
    assert response.status_code == 200
    assert response.get_json()["data"] == []
    assert "another field" in response.get_json()["message"]
    assert list(usage.stream()) == []


def test_every_table_is_searched_and_filters_apply(campaigns, auth, tmp_path):
    orgs = [{"id": "org-1", "name": "Hope for Hens", "description": "Cage-free campaigners."}]
    import_records(TABLES["organizations"], write_jsonl(tmp_path / "o.jsonl", orgs))

    both = search(auth, {"query": "hens cage-free", "search_type": "text"}).get_json()["data"]
    only_orgs = search(auth, {"query": "hens", "tables": ["organizations"]}).get_json()["data"]
    filtered = ids(search(auth, {"query": "farming", "filters": {"status": "won"}}, "campaigns"))
    by_topic = ids(search(auth, {"query": "farming", "filters": {"topics": "fur"}}, "campaigns"))
    other = ids(search(auth, {"query": "farming", "filters": {"status": "active"}}, "campaigns"))

    assert {hit["table"] for hit in both} == {"campaigns", "organizations"}
    assert {hit["table"] for hit in only_orgs} == {"organizations"}
    assert filtered == ["camp-2"]
    assert by_topic == ["camp-2"]
    assert "camp-2" not in other


@pytest.mark.parametrize(
    ("body", "table", "status", "field"),
    [
        ({"query": "hens"}, "whales", 404, None),
        ({"query": ""}, "campaigns", 400, "query"),
        ({"query": "   "}, "campaigns", 400, "query"),
        ({"query": "hens", "limit": 0}, "campaigns", 400, "limit"),
        ({"query": "hens", "limit": 51}, "campaigns", 400, "limit"),
        ({"query": "hens", "search_type": "fuzzy"}, "campaigns", 400, "search_type"),
        ({"query": "hens", "filters": {"colour": "red"}}, "campaigns", 400, "filters.colour"),
        ({"query": "hens", "tables": ["whales"]}, None, 400, "tables.0"),
        ({"query": "x" * 501}, "campaigns", 400, "query"),
    ],
)
def test_bad_searches_are_clear_errors_and_not_billed(
    campaigns, auth, alice, body, table, status, field
):
    response = search(auth, body, table)

    assert response.status_code == status
    problem = response.get_json()
    if field:
        assert field in [e["field"] for e in problem["errors"]]
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))
    assert list(usage.stream()) == []


def test_vectors_of_another_model_are_never_mixed(campaigns, auth, tmp_path):
    get_db().collection(SEARCH_INDEXES).document("campaigns").update(
        {"model": "vertex:text-embedding-005@768"}
    )

    semantic = search(auth, {"query": "fur", "search_type": "semantic"}, "campaigns")
    text = search(auth, {"query": "fur", "search_type": "text"}, "campaigns")
    report_error = None
    try:
        import_records(TABLES["campaigns"], write_jsonl(tmp_path / "c.jsonl", CAMPAIGNS))
    except IndexMismatch as exc:
        report_error = str(exc)

    assert semantic.status_code == 502
    assert "reindex" in semantic.get_json()["detail"]
    assert ids(text) == ["camp-2"]  # words still work
    assert report_error is not None
    assert "reindex" in report_error

    assert reindex(TABLES["campaigns"]) == 3
    assert (
        ids(
            search(
                auth,
                {"query": "a ban on fur farming", "search_type": "semantic"},
                "campaigns",
            )
        )[0]
        == "camp-2"
    )


# --- knowledge ---------------------------------------------------------------------------------


def test_a_paraphrased_question_finds_its_passage(corpus, auth):
    response = client().post(
        "/v1/knowledge/search",
        json={"query": "Can I get in trouble for secretly videoing inside a farm?", "limit": 5},
        headers=auth,
    )

    assert response.status_code == 200
    data = response.get_json()["data"]
    assert data[0]["title"] == "Undercover filming on farms"
    assert data[0]["section"] == "Undercover filming on farms > Ag-gag laws"
    assert data[0]["url"] == "https://example.org/undercover"
    assert "ag-gag" in data[0]["passage"]


def test_a_knowledge_search_is_billed_when_a_passage_answers_and_says_so_when_none_does(
    corpus, auth, alice
):
    """Decision 0067, at the knowledge door: passages the judge scores below the floor come as the
    nearest with a message, free; a query whose passages all score below ``SHOWN_FLOOR``, or
    that no passage holds a word of, gets nothing, free; a passage that answers is billed,
    once."""
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", alice[0]["id"]))

    def ask(query: str) -> dict:
        response = client().post("/v1/knowledge/search", json={"query": query}, headers=auth)
        assert response.status_code == 200
        return response.get_json()

    nearest = ask("rabbit cages")
    assert nearest["data"]
    assert all(
        relevance.SHOWN_FLOOR <= p["score"] < relevance.PASSAGE_FLOOR for p in nearest["data"]
    )
    assert "not billed" in nearest["message"]
    noise = ask("rabbit cages in Spanish farms")
    assert (noise["data"], noise["total"]) == ([], 0)
    assert "not billed" in noise["message"]
    gibberish = ask("qwzx plorf vvbn")
    assert (gibberish["data"], gibberish["total"]) == ([], 0)
    assert "not billed" in gibberish["message"]
    assert list(usage.stream()) == []
    answered = ask("how much floor space does a hen get in a battery cage")
    assert answered["data"][0]["title"] == "Laying hen welfare"
    assert answered["data"][0]["score"] >= relevance.PASSAGE_FLOOR
    assert answered["message"] is None
    assert [u.get("operation") for u in usage.stream()] == ["knowledge.search"]


def test_tags_narrow_the_passages(corpus, auth):
    def titles(tags: list[str]) -> set[str]:
        body = {"query": "space for hens", "tags": tags}
        response = client().post("/v1/knowledge/search", json=body, headers=auth)
        return {p["title"] for p in response.get_json()["data"]}

    assert titles(["cage-free"]) == {"Laying hen welfare"}
    assert titles(["campaign-tactics"]) == set()  # the protest guide does not answer it


def test_a_words_ranking_shows_other_documents_than_the_longest(db, offline, tmp_path, monkeypatch):
    """A guide whose every passage repeats the query's word has its first ``PER_DOCUMENT``
    passages in the words ranking, then the other document that answers (decision 0049)."""
    sections = "".join(
        f"## Part {n}\n\nMarches and marches: a march route, march {n}.\n\n" for n in range(6)
    )
    (tmp_path / "guide.md").write_text(f"---\nid: march-guide\ntitle: Marches\n---\n{sections}")
    (tmp_path / "notice.md").write_text(
        "---\nid: notice\ntitle: Notice rules\n---\nOrganisers give six days' notice of a march."
    )
    assert import_knowledge([tmp_path]).rejected == []

    def documents() -> list[str]:
        return [hit.doc["doc_id"] for hit in knowledge_service.text_search("march", 5)]

    assert documents() == ["march-guide"] * 3 + ["notice", "march-guide"]
    monkeypatch.setattr(knowledge_service, "PER_DOCUMENT", 0)  # none: the guide fills it
    assert documents() == ["march-guide"] * 5


def test_importing_a_document_again_replaces_its_passages(corpus, tmp_path):
    shorter = KNOWLEDGE_DOCS["hens.md"].split("## Enrichment")[0]
    (corpus / "hens.md").write_text(shorter)

    report = import_knowledge([corpus / "hens.md"])

    passages = get_db().collection(KNOWLEDGE).where(filter=where_eq("doc_id", "hen-welfare"))
    sections = sorted(doc.get("section") for doc in passages.stream())
    assert sections == ["Laying hen welfare > Space"]
    assert (report.embedded, report.removed) == (0, 1)  # the kept passage is not re-embedded


# --- tuning, budget and backpressure (issue 26, decision 0048) -------------------------------


def test_hybrid_weight_and_min_score_tune_the_ranking(campaigns, auth):
    """The weight chooses and orders the candidates; the judge scores them (decision 0067):
    the same record scores the same whichever part found it, and ``min_score`` leaves out the
    records scored below it."""
    words = search(auth, {"query": "mink fur", "hybrid_weight": 0}, "campaigns").get_json()
    assert ids_of(words)[0] == "camp-2"
    score = words["data"][0]["score"]
    assert relevance.RECORD_FLOOR <= score <= 1
    assert all(
        hit["score"] < relevance.RECORD_FLOOR for hit in words["data"][1:]
    )  # the others answer nothing
    meaning = search(auth, {"query": "mink fur", "hybrid_weight": 1}, "campaigns").get_json()
    assert ids_of(meaning)[0] == "camp-2"
    assert meaning["data"][0]["score"] == score
    strict = {"query": "mink fur", "min_score": score}
    assert ids_of(search(auth, strict, "campaigns").get_json()) == ["camp-2"]
    above = {"query": "mink fur", "min_score": min(1.0, score + 0.001)}
    assert search(auth, above, "campaigns").get_json()["data"] == []
    ignored = search(auth, {"query": "mink", "search_type": "text", "hybrid_weight": 0.3})
    assert ids(ignored) == ["camp-2"]  # text ignores it, as documented
    wrong = search(auth, {"query": "mink", "hybrid_weight": 1.5})
    assert wrong.status_code == 400
    assert "hybrid_weight" in json.dumps(wrong.get_json())


def test_a_part_past_the_budget_is_left_out_and_the_answer_says_degraded(
    campaigns, alice, monkeypatch, settings_env
):
    """The meaning half stalls past the search's budget: the words half answers, with
    degraded true, billed as the results it delivered; when every part stalls the answer is
    502, never a 500 or a hang, and not billed."""
    import threading

    from functions.search import service

    consumer, auth = alice
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", consumer["id"]))

    release = threading.Event()
    real = retrieval.semantic_search

    def stalled(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(service.retrieval, "semantic_search", stalled)
    settings_env(SEARCH_BUDGET_S="0.5")
    try:
        body = search(auth, {"query": "mink fur farms"}, "campaigns").get_json()
        assert body["degraded"] is True
        assert body["data"][0]["id"] == "camp-2"
        semantic = search(auth, {"query": "mink fur", "search_type": "semantic"}, "campaigns")
        assert semantic.get_json()["degraded"] is True  # words stood in for meaning
        assert ids(semantic)[0] == "camp-2"
        whole = search(auth, {"query": "mink fur"}, "campaigns").get_json()
        assert whole["degraded"] is True
        # words that take 0.4 of the budget still stand in: they start at half of it, not
        # once the whole budget is spent
        words = retrieval.text_search

        def slow_words(*args, **kwargs):
            time.sleep(0.8)
            return words(*args, **kwargs)

        monkeypatch.setattr(service.retrieval, "text_search", slow_words)
        settings_env(SEARCH_BUDGET_S="2")
        slow = search(auth, {"query": "mink fur", "search_type": "semantic"}, "campaigns")
        assert slow.status_code == 200
        assert slow.get_json()["degraded"] is True
        assert ids(slow)[0] == "camp-2"
        assert [u.get("operation") for u in usage.stream()] == ["search.query"] * 4
        monkeypatch.setattr(service.retrieval, "text_search", stalled)
        settings_env(SEARCH_BUDGET_S="0.5")
        assert search(auth, {"query": "mink fur"}, "campaigns").status_code == 502
        assert len(list(usage.stream())) == 4  # the 502 is not billed
    finally:
        release.set()


def test_a_burst_beyond_the_instances_capacity_gets_a_quick_503(campaigns, alice, settings_env):
    """With one search slot, a search that finds it taken waits CAPACITY_WAIT_MS and is
    answered 503 overloaded with Retry-After, before any work, and is not billed."""
    from common.http import capacity

    settings_env(MAX_CONCURRENT_SEARCHES="1", CAPACITY_WAIT_MS="100")
    capacity.reset()
    consumer, auth = alice
    usage = get_db().collection(USAGE).where(filter=where_eq("consumer_id", consumer["id"]))
    try:
        held = capacity.take("search", "another-consumer")  # holds the only slot
        try:
            busy = search(auth, {"query": "mink", "search_type": "text"}, "campaigns")
        finally:
            held.release()
        assert busy.status_code == 503
        assert busy.get_json()["code"] == "overloaded"
        assert "as many searches as it can" in busy.get_json()["detail"]
        assert busy.headers["Retry-After"] == "1"
        assert list(usage.stream()) == []
        assert ids(search(auth, {"query": "mink", "search_type": "text"}, "campaigns"))
        assert [u.get("operation") for u in usage.stream()] == ["search.query"]
    finally:
        capacity.reset()


def test_one_consumers_burst_is_refused_before_anothers_first_search(
    campaigns, alice, bob, settings_env
):
    """Fair shares (issue 43): a consumer whose requests already hold its allowance of a pool
    gets 503 at once, while another consumer's search in the same instance is served."""
    from common.http import capacity

    settings_env(MAX_CONCURRENT_SEARCHES="2", CAPACITY_PER_CONSUMER="1", CAPACITY_WAIT_MS="2000")
    capacity.reset()
    (alices_consumer, alices), (_, bobs) = alice, bob
    held = capacity.take("search", alices_consumer["id"])  # one of Alice's searches runs
    try:
        started = time.monotonic()
        burst = search(alices, {"query": "mink", "search_type": "text"}, "campaigns")
        assert burst.status_code == 503
        assert burst.get_json()["code"] == "overloaded"
        assert "your share" in burst.get_json()["detail"]
        assert time.monotonic() - started < 1.5  # refused at once, not after the wait
        assert ids(search(bobs, {"query": "mink", "search_type": "text"}, "campaigns"))
    finally:
        held.release()
        capacity.reset()


def test_admin_reindex_check_reads_every_passage_and_finds_none_stale(corpus, capsys):
    import admin

    assert admin.main(["reindex", "--check", "knowledge"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["knowledge"]["stale"] == 0
    assert report["knowledge"]["checked"] == len(list(get_db().collection(KNOWLEDGE).stream()))
    assert report["knowledge"]["checked"] > 0


def test_an_interrupted_import_run_again_writes_each_row_once(db, offline, tmp_path, monkeypatch):
    """Streamed in batches: an import that stops after two batches, run again, skips what it
    wrote (no embedding), writes the rest, and the text index counts every record once."""
    from common.search import postings
    from functions.search import importer

    rows = [
        {"id": f"r-{n}", "title": f"Hen welfare report {n}", "description": "Cage-free pledge."}
        for n in range(7)
    ]
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    monkeypatch.setattr(importer, "BATCH", 2)
    real, calls = importer._write, []

    def stops_after_two(*args):
        calls.append(1)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(importer, "_write", stops_after_two)
    with pytest.raises(KeyboardInterrupt):
        import_records(TABLES["campaigns"], path)
    assert len(list(get_db().collection("campaigns").stream())) == 4
    monkeypatch.setattr(importer, "_write", real)
    seen: list[tuple[int, int]] = []
    report = import_records(TABLES["campaigns"], path, progress=lambda d, t: seen.append((d, t)))
    assert (report.rows, report.valid, report.written, report.unchanged) == (7, 7, 3, 4)
    assert seen[-1] == (7, 7)
    head = get_db().collection("text_postings").document("campaigns~hen~0").get()
    assert head.get("df") == 7
    stats = get_db().collection("text_postings").document("campaigns~~stats").get()
    assert stats.get("documents") == 7
    assert len(postings.search("campaigns", "hen welfare", 10)) == 7


def test_a_filtered_semantic_search_prefilters_on_the_records_filter_keys(campaigns, auth):
    """The nearest records among those that can match (decision 0048), not the nearest of
    all filtered afterwards: the filter is one of the record's filter_keys in the vector query."""
    stored = get_db().collection("campaigns").document("camp-1").get().to_dict()
    assert {"status=active", "topics=cage-free", "country=gb"} <= set(stored["filter_keys"])
    embedder = embeddings.get_embedder()
    vector = retrieval.embed_query("cage-free eggs", embedder)
    only = ("filter_keys", "array_contains", "status=won")
    nearest = retrieval.semantic_search("campaigns", vector, embedder, 1, None, only)
    assert [hit.id for hit in nearest] == ["camp-2"]  # the only won campaign, though farthest
    body = {"query": "fur farming", "search_type": "semantic", "filters": {"status": "WON"}}
    assert ids(search(auth, body, "campaigns")) == ["camp-2"]
    active = search(auth, {**body, "filters": {"status": "active"}}, "campaigns").get_json()
    assert {hit["id"] for hit in active["data"]} <= {"camp-1", "camp-3"}
    assert all(hit["score"] < 0.3 for hit in active["data"])  # nothing active is about fur
    assert "filter_keys" not in search(auth, body, "campaigns").get_json()["data"][0]["record"]
