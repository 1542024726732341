"""Legal-guidance jobs, the task view, one-shot research (NDJSON), internal authentication and
erasure, over the in-process functions-framework app on the real emulator."""

from __future__ import annotations

import pytest

from common.adapters.firestore import TASKS, USAGE, USAGE_UNBILLED, get_db, where_eq
from common.adapters.tasks import inline_queue
from tests.helpers import Connection, bearer, client, read_until, streamed_events

pytestmark = pytest.mark.emulator
GUIDANCE = "/v1/legal/guidance"
SITUATION = "We plan a protest outside a poultry farm and want to film the sheds from the road."


def usage_count(consumer_id: str, operation: str, collection: str = USAGE) -> int:
    query = (
        get_db()
        .collection(collection)
        .where(filter=where_eq("consumer_id", consumer_id))
        .where(filter=where_eq("operation", operation))
    )
    return len(list(query.stream()))


# --- legal guidance ----------------------------------------------------------------------------


def test_guidance_is_accepted_written_emailed_once_and_shown_to_its_owner_only(
    alice, bob, sendgrid
):
    consumer, auth = alice
    accepted = client().post(
        GUIDANCE, json={"situation": SITUATION, "jurisdiction": "England"}, headers=auth
    )

    assert accepted.status_code == 202
    body = accepted.get_json()
    assert set(body) == {"taskId", "message", "estimatedTime", "taskType"}
    assert body["taskType"] == "legal.guidance"
    assert inline_queue().drain(30)

    task = client().get(f"/v1/tasks/{body['taskId']}", headers=auth)
    assert task.status_code == 200
    view = task.get_json()
    assert view["status"] == "succeeded"
    assert view["emailed"] is True
    guide = view["result"]["guide"]
    assert guide["disclaimer"].startswith("This is general information, not legal advice.")
    assert guide["jurisdiction"] == "England"
    assert guide["questionsForLawyer"]
    assert "not legal advice" in view["result"]["markdown"]
    assert len(sendgrid.messages) == 1
    assert sendgrid.messages[0]["personalizations"][0]["to"][0]["email"] == "alice@example.org"
    assert usage_count(consumer["id"], "legal.guidance") == 1  # the written guide, once (0039)

    _, other = bob
    hidden = client().get(f"/v1/tasks/{body['taskId']}", headers=other)
    assert hidden.status_code == 404
    missing = client().get("/v1/tasks/legal-0000", headers=auth)
    assert hidden.get_json()["detail"] == missing.get_json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "body"),
        ({"timeline": "next week"}, "body"),
        ({"situation": "x" * 2001}, "situation"),
        ({"prompt": "   "}, "prompt"),
        ({"situation": SITUATION, "lawyer": "yes"}, "lawyer"),
    ],
)
def test_guidance_requests_are_validated(alice, body, field):
    consumer, auth = alice
    answer = client().post(GUIDANCE, json=body, headers=auth)

    assert answer.status_code == 400
    assert any(e["field"] == field for e in answer.get_json()["errors"])
    assert usage_count(consumer["id"], "legal.guidance") == 0
    assert list(get_db().collection(TASKS).stream()) == []


@pytest.mark.parametrize("task_id", ["__x__", "____", "__legal-1__"])
def test_an_id_firestore_reserves_is_400_naming_the_field_not_an_outage(alice, task_id):
    # Firestore refuses ids of the form __name__: asking it used to answer 502 "database failed".
    _, auth = alice
    answer = client().get(f"/v1/tasks/{task_id}", headers=auth)

    assert answer.status_code == 400
    assert [e["field"] for e in answer.get_json()["errors"]] == ["taskId"]


def test_ids_near_the_reserved_form_are_ordinary_missing_tasks(alice):
    _, auth = alice
    for task_id in ("__", "___", "__x", "x__"):
        assert client().get(f"/v1/tasks/{task_id}", headers=auth).status_code == 404


def test_guidance_is_not_billed_when_the_queue_refuses_it(alice, monkeypatch):
    from common.adapters.tasks import Enqueued

    consumer, auth = alice
    monkeypatch.setattr("functions.legal.service.enqueue", lambda task: Enqueued.FAILED)

    answer = client().post(GUIDANCE, json={"prompt": SITUATION}, headers=auth)

    assert answer.status_code == 502
    assert usage_count(consumer["id"], "legal.guidance") == 0
    (record,) = [doc.to_dict() for doc in get_db().collection(TASKS).stream()]
    assert record["status"] == "failed"


# --- one-shot research -------------------------------------------------------------------------


def events(response) -> list[dict]:
    return streamed_events(response)  # each line checked against its event model


def test_research_streams_ndjson_and_is_billed_once(alice, feeds):
    consumer, auth = alice
    answer = client().post(
        "/v1/research/topics",
        json={"topics": ["cage-free"], "customKeywords": ["hens"], "limit": 5},
        headers=auth,
    )

    assert answer.status_code == 200
    assert answer.mimetype == "application/x-ndjson"
    stream = events(answer)
    kinds = [e["type"] for e in stream]
    assert kinds[0] == "begin"
    assert kinds[-2:] == ["summary", "end"]
    items = [e for e in stream if e["type"] == "item"]
    assert 1 <= len(items) <= 5
    assert [e["rank"] for e in items] == list(range(1, len(items) + 1))
    assert all(e["link"].startswith("https://") and e["summary"] for e in items)
    assert stream[0]["sources"] == 2  # the topic's feed and one news search
    assert usage_count(consumer["id"], "research.topics") == 1


def _cut_after(answer, kind: str | None) -> None:
    """A client that hangs up once it has the first event of ``kind`` (the first line when
    None), with a server that, as gunicorn does, asks for the next chunk after writing one and
    only then finds the client gone."""
    import json

    chunks = iter(answer.response)
    for chunk in chunks:
        if kind is None or json.loads(chunk.decode())["type"] == kind:
            next(chunks, None)  # the server comes back for the next chunk
            break
    answer.close()


def test_a_stream_is_billed_once_it_delivered_its_first_item_whoever_hangs_up(alice, feeds):
    """Issue 24: cut right after the first item, the research is billed once; cut after the
    begin line, before any item, it is not (decision 0039)."""
    consumer, auth = alice
    body = {"topics": ["cage-free"], "customKeywords": ["hens"], "limit": 5}
    before = client().post("/v1/research/topics", json=body, headers=auth, buffered=False)
    _cut_after(before, None)
    assert usage_count(consumer["id"], "research.topics") == 0
    after = client().post("/v1/research/topics", json=body, headers=auth, buffered=False)
    _cut_after(after, "item")
    assert usage_count(consumer["id"], "research.topics") == 1


@pytest.mark.parametrize(
    ("read_up_to", "billed"),
    [
        # Issue 43: a client that read the opening line and hung up was billed $0.25. The
        # server writes the first item into the closed connection (TCP takes one write after
        # the client has gone, without an error) and comes back for the next chunk: that is
        # not the client having the item.
        ('"begin"', False),
        # The other side: a client that read the first item and hung up at once has what it
        # pays for. Once written, its closed connection looks like that of a client gone
        # before the item, so whether the client is there is asked before the write.
        ('"item"', True),
    ],
)
def test_a_stream_left_early_is_billed_only_if_the_client_had_an_item(
    alice, feeds, read_up_to, billed
):
    """Decision 0066: the client reads up to ``read_up_to`` and hangs up; the server writes
    the next chunk (no error) and comes back for another."""
    consumer, auth = alice
    body = {"topics": ["cage-free"], "customKeywords": ["hens"], "limit": 5}
    with Connection() as connection:
        answer = client().post(
            "/v1/research/topics",
            json=body,
            headers=auth,
            buffered=False,
            environ_overrides=connection.environ,
        )
        chunks = read_until(answer, lambda line: read_up_to in line)
        connection.hang_up()
        next(chunks)  # the server writes the next chunk: no error
        next(chunks)  # and comes back for another
        answer.close()  # its next write fails: the server closes the stream
    assert usage_count(consumer["id"], "research.topics") == int(billed)
    assert usage_count(consumer["id"], "research.topics", USAGE_UNBILLED) == int(not billed)


def test_a_stream_read_to_its_end_on_a_connection_is_billed_once(alice, feeds):
    consumer, auth = alice
    body = {"topics": ["cage-free"], "customKeywords": ["hens"], "limit": 5}
    with Connection() as connection:
        answer = client().post(
            "/v1/research/topics", json=body, headers=auth, environ_overrides=connection.environ
        )
        assert [e["type"] for e in events(answer)][-1] == "end"
    assert usage_count(consumer["id"], "research.topics") == 1
    assert usage_count(consumer["id"], "research.topics", USAGE_UNBILLED) == 0


def test_the_summary_event_says_what_the_items_show(alice, feeds):
    _, auth = alice
    answer = client().post(
        "/v1/research/topics",
        json={
            "topics": ["cage-free"],
            "customKeywords": ["hens"],
            "specificInterests": "Zanzibar hatchery audits",
            "limit": 5,
        },
        headers=auth,
    )

    stream = events(answer)
    items = {e["id"]: e for e in stream if e["type"] == "item"}
    [summary] = [e for e in stream if e["type"] == "summary"]
    # The fields of before, unchanged ...
    assert summary["items"] == len(items)
    assert summary["failedSources"] == []
    # ... and a paragraph that says what the items show, not only how many there are.
    text = summary["text"]
    assert not text.startswith("Found")
    assert len(text) <= 600
    assert text.startswith(f"Of the {len(items)} recent items, ")
    assert "Those involved include Harlow Foods" in text
    assert "What changed: " in text
    assert "Harlow Foods misses its 2025 cage-free egg deadline." in text
    assert "Zanzibar" not in text  # the interests only steer the ranking
    assert "hatchery" not in text
    assert {t["label"] for t in summary["themes"]} == {"cage-free", "hens"}
    for theme in summary["themes"]:
        assert theme["items"] == len(theme["itemIds"])
        assert all(theme["label"] in items[i]["matched"] for i in theme["itemIds"])
    harlow = next(a for a in summary["who"] if a["name"] == "Harlow Foods")
    assert harlow["kind"] == "company"
    assert all("Harlow Foods" in items[i]["title"] for i in harlow["itemIds"])
    missed = next(c for c in summary["changes"] if c["text"].startswith("Harlow Foods"))
    assert missed["kind"] == "setback"
    assert items[missed["itemId"]]["link"] == missed["link"]
    assert set(summary["itemIds"]) <= set(items)
    assert summary["engine"] == "offline"


def test_the_summary_names_the_sources_that_did_not_answer(alice, feeds, settings_env):
    settings_env(NEWS_SEARCH_URL="http://127.0.0.1:9/none?q={query}")
    _, auth = alice
    answer = client().post(
        "/v1/research/topics", json={"topics": ["fur"], "customKeywords": ["mink"]}, headers=auth
    )

    [summary] = [e for e in events(answer) if e["type"] == "summary"]
    assert summary["failedSources"] == ["mink"]
    assert summary["text"].endswith("Sources that did not answer: mink.")
    assert "Government confirms ban on fur farming from 2027." in summary["text"]


def test_research_with_every_source_down_ends_in_an_error_event_and_is_not_billed(
    alice, feeds, settings_env
):
    settings_env(NEWS_SEARCH_URL="http://127.0.0.1:9/none?q={query}")
    consumer, auth = alice
    answer = client().post("/v1/research/topics", json={"customKeywords": ["hens"]}, headers=auth)

    stream = events(answer)
    assert [e["type"] for e in stream] == ["begin", "error"]
    assert stream[-1]["code"] == "backend_unavailable"
    assert usage_count(consumer["id"], "research.topics") == 0


def test_research_needs_a_topic_or_a_keyword(alice):
    _, auth = alice
    answer = client().post("/v1/research/topics", json={"specificInterests": "x"}, headers=auth)
    assert answer.status_code == 400
    assert "topic or custom keyword" in answer.get_json()["detail"]


# --- internal endpoints ------------------------------------------------------------------------


def test_internal_endpoints_need_the_internal_credential(db):
    from common.config import get_settings

    for path in ("/internal/dispatch", "/internal/tasks/run"):
        assert client().post(path, json={}).status_code == 401
        wrong = client().post(path, json={}, headers=bearer("ars_live_" + "a" * 38))
        assert wrong.status_code == 401
    secret = bearer(get_settings().internal_secret)
    assert client().post("/internal/dispatch", headers=secret).get_json()["due"] == 0


def test_internal_oidc_accepts_only_the_invoker_for_the_right_audience(db, local_idp, settings_env):
    settings_env(
        INTERNAL_AUTH="oidc",
        INTERNAL_OIDC_ISSUER=local_idp.issuer,
        INTERNAL_OIDC_JWKS_URL=local_idp.jwks_url,
        TASKS_SERVICE_ACCOUNT="invoker@demo.iam.gserviceaccount.com",
        TRACKING_DISPATCH_URL="https://dispatch.example.org",
        TASK_WORKER_URL="https://worker.example.org",
    )

    from devtools.localidp import id_token

    def call(**claims) -> int:
        token = id_token(
            local_idp.key,
            **{
                "sub": "1234567890",
                "issuer": local_idp.issuer,
                "audience": "https://dispatch.example.org",
                "email": "invoker@demo.iam.gserviceaccount.com",
                "email_verified": True,
                **claims,
            },
        )
        return client().post("/internal/dispatch", headers=bearer(token)).status_code

    assert call() == 200
    assert call(audience="https://elsewhere.example.org") == 401
    assert call(audience="https://worker.example.org") == 401  # the task worker's token
    assert call(email="someone@demo.iam.gserviceaccount.com") == 401
    assert call(email_verified=False) == 401
    settings_env(INTERNAL_SECRET="s3cret")
    assert client().post("/internal/dispatch", headers=bearer("s3cret")).status_code == 401
    # With an account of its own for the Scheduler (decision 0033), the task queue's account
    # can no longer trigger the dispatcher, and the Scheduler's is accepted.
    settings_env(SCHEDULER_SERVICE_ACCOUNT="scheduler@demo.iam.gserviceaccount.com")
    assert call() == 401
    assert call(email="scheduler@demo.iam.gserviceaccount.com") == 200


# --- erasure -----------------------------------------------------------------------------------


def test_erasing_a_consumer_deletes_their_task_records(bob):
    from common.accounts.consumers import IdpUser, find_by_email, upsert_from_idp
    from functions.tasks import records
    from functions.webhooks.service import erase

    other, _ = bob
    upsert_from_idp(IdpUser("user_erase_me", "erin@example.org", "Erin", False, 1))
    erin = find_by_email("erin@example.org")
    records.create(records.new_record("legal-a", "legal.guidance", erin["id"], payload={}))
    records.create(records.new_record("legal-b", "legal.guidance", other["id"], payload={}))

    assert erase("user_erase_me") == "erased"

    remaining = {doc.id for doc in get_db().collection(TASKS).stream()}
    assert remaining == {"legal-b"}
