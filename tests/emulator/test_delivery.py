"""Tracking delivery on the real emulator: dispatch, research runs, exactly-once digests, the
pause link, metering and erasure. Feeds and SendGrid are loopback fakes; the worker code is the
production code, called as the task queue would call it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlparse

import pytest

from common import container
from common.adapters.firestore import RESULTS, SUBSCRIPTIONS, TASKS, USAGE, USAGE_UNBILLED, get_db
from common.adapters.tasks import Enqueued, Task
from common.config import get_settings
from common.errors import Conflict, EmailNotSent, EmailOutcomeUnknown
from functions.tracking.dispatch import dispatch
from functions.tracking.run import run_task
from registry import run_task as execute
from tests.helpers import client, create_subscription
from tests.helpers import subscription_doc as sub_doc

pytestmark = pytest.mark.emulator
URL = "/v1/tracking/subscriptions"


def subscribe(auth, **body) -> dict:
    return create_subscription(auth, body or {"topics": ["cage-free"], "frequency": "realtime"})


def task_doc(task_id: str) -> dict:
    return get_db().collection(TASKS).document(task_id).get().to_dict()


def results_of(sub_id: str) -> list[dict]:
    ref = get_db().collection(SUBSCRIPTIONS).document(sub_id).collection(RESULTS)
    return [doc.to_dict() for doc in ref.stream()]


def usage_of(task_id: str) -> dict | None:
    snapshot = get_db().collection(USAGE).document(task_id).get()
    return snapshot.to_dict() if snapshot.exists else None


def the_run(sub: dict) -> Task:
    return run_task(sub["id"], sub["user_id"], sub_doc(sub["id"])["next_run_at"])


def let_the_sending_lease_expire(task_id: str) -> None:
    """As if the attempt that began sending had died long enough ago."""
    long_ago = datetime.now(UTC) - timedelta(hours=1)
    get_db().collection(TASKS).document(task_id).update({"email.since": long_ago})


class Collect:
    """Stands in for the queue: records what the dispatcher enqueues."""

    def __init__(self, answer: Enqueued = Enqueued.CREATED) -> None:
        self.tasks: list[Task] = []
        self.answer = answer

    def __call__(self, tasks):
        self.tasks += tasks
        return [self.answer] * len(tasks)


# --- dispatcher --------------------------------------------------------------------------------


def test_dispatch_enqueues_due_active_subscriptions_and_advances_them(alice, monkeypatch):
    _, auth = alice
    daily = subscribe(auth, topics=["fur"], frequency="daily")
    weekly = subscribe(auth, topics=["fur"], frequency="weekly")
    realtime = subscribe(auth, topics=["fur"], frequency="realtime")
    paused = subscribe(auth, topics=["fur"], frequency="realtime")
    client().patch(f"{URL}/{paused['id']}", json={"active": False}, headers=auth)
    due = {s["id"]: sub_doc(s["id"])["next_run_at"] for s in (daily, weekly, realtime, paused)}
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)
    tick = datetime.now(UTC) + timedelta(seconds=1)

    report = dispatch(tick)

    assert (report.due, report.enqueued, report.failed) == (3, 3, 0)
    assert {t.payload["subscriptionId"] for t in queue.tasks} == {
        daily["id"],
        weekly["id"],
        realtime["id"],
    }
    assert all(t.kind == "tracking.run" for t in queue.tasks)
    assert sub_doc(daily["id"])["next_run_at"] == due[daily["id"]] + timedelta(days=1)
    assert sub_doc(weekly["id"])["next_run_at"] == due[weekly["id"]] + timedelta(days=7)
    assert sub_doc(realtime["id"])["next_run_at"] == tick  # due again on the next tick
    assert sub_doc(paused["id"])["next_run_at"] == due[paused["id"]]  # never dispatched
    assert dispatch(tick).due == 0  # nothing is due twice on one tick
    assert dispatch(tick + timedelta(seconds=60)).due == 1  # the realtime one, next tick


def test_a_subscription_behind_schedule_runs_once_then_one_interval_after_the_tick(
    alice, monkeypatch
):
    _, auth = alice
    sub = subscribe(auth, topics=["fur"], frequency="daily")
    long_ago = datetime.now(UTC) - timedelta(days=5)
    get_db().collection(SUBSCRIPTIONS).document(sub["id"]).update({"next_run_at": long_ago})
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)
    tick = datetime.now(UTC)

    assert dispatch(tick).enqueued == 1
    assert sub_doc(sub["id"])["next_run_at"] == tick + timedelta(days=1)


def test_a_refused_enqueue_leaves_the_subscription_due(alice, monkeypatch):
    _, auth = alice
    sub = subscribe(auth)
    before = sub_doc(sub["id"])["next_run_at"]
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", Collect(Enqueued.FAILED))

    report = dispatch(datetime.now(UTC) + timedelta(seconds=1))

    assert (report.due, report.enqueued, report.failed) == (1, 0, 1)
    assert sub_doc(sub["id"])["next_run_at"] == before


def test_dispatch_pages_through_more_than_one_page(alice, monkeypatch, settings_env):
    consumer, _ = alice
    settings_env(DISPATCH_PAGE_SIZE="3")
    now = datetime.now(UTC)
    batch = get_db().batch()
    for i in range(8):
        ref = get_db().collection(SUBSCRIPTIONS).document(f"00000000-0000-4000-8000-00000000000{i}")
        batch.set(
            ref,
            {
                "user_id": consumer["id"],
                "frequency": "daily",
                "active": True,
                "next_run_at": now - timedelta(minutes=i),
            },
        )
    batch.commit()
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)

    report = dispatch(now + timedelta(seconds=1))

    assert (report.due, report.enqueued, report.pages) == (8, 8, 3)
    assert len({t.task_id for t in queue.tasks}) == 8


def test_run_ids_are_deterministic_so_a_second_enqueue_is_a_no_op(alice):
    from common.adapters.tasks import InlineQueue

    _, auth = alice
    sub = subscribe(auth)
    ran: list[str] = []
    inline = InlineQueue(lambda task: ran.append(task.task_id), size=10, attempts=1)
    first, second = the_run(sub), the_run(sub)

    assert first.task_id == second.task_id
    assert inline.put(first) is Enqueued.CREATED
    assert inline.put(second) is Enqueued.EXISTS
    assert inline.drain(5)
    assert ran == [first.task_id]


# --- research runs and the digest --------------------------------------------------------------


def test_a_run_sends_one_digest_and_records_results_and_usage(alice, feeds, sendgrid):
    consumer, auth = alice
    sub = subscribe(auth, topics=["cage-free"], custom_keywords=["battery cages"])
    task = the_run(sub)

    assert execute(task) == "sent"

    assert len(sendgrid.messages) == 1
    message = sendgrid.messages[0]
    assert message["personalizations"][0]["to"][0]["email"] == "alice@example.org"
    assert message["custom_args"]["task_id"] == task.task_id
    html = next(c["value"] for c in message["content"] if c["type"] == "text/html")
    stored = results_of(sub["id"])
    assert stored
    assert len(stored) <= 10
    assert all(item["title"] in html or item["title"][:40] in html for item in stored)
    unsubscribe = message["headers"]["List-Unsubscribe"]
    assert unsubscribe.startswith("<https://api.example.org/v1/tracking/pause?token=")
    assert message["headers"]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    record = task_doc(task.task_id)
    assert record["status"] == "succeeded"
    assert record["email"]["state"] == "sent"
    assert record["result"]["items"] == len(stored)
    assert "pending" not in record
    assert sub_doc(sub["id"])["last_sent_at"] is not None
    usage = usage_of(task.task_id)
    assert usage["consumer_id"] == consumer["id"]
    assert usage["operation"] == "tracking.research_run"


def test_the_digest_opens_with_whats_new_from_the_items_only(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(
        auth,
        topics=["cage-free"],
        custom_keywords=["battery cages"],
        specific_interests="Zanzibar hatchery audits",
    )
    task = the_run(sub)

    assert execute(task) == "sent"
    assert execute(task) == "duplicate"  # still exactly one email

    [message] = sendgrid.messages
    text = next(c["value"] for c in message["content"] if c["type"] == "text/plain")
    html = next(c["value"] for c in message["content"] if c["type"] == "text/html")
    whats_new = next(line for line in text.splitlines() if line.startswith("What's new: "))
    assert text.index("What's new: ") < text.index("1. ")  # at the top, before the items
    assert "Those involved include Harlow Foods" in whats_new
    assert "What changed: " in whats_new
    assert "Harlow Foods misses its 2025 cage-free egg deadline." in whats_new
    assert len(whats_new) <= len("What's new: ") + 600
    assert "What's new</h2>" in html
    assert html.index("What's new</h2>") < html.index("<ol")
    for part in (text, html):
        assert "Zanzibar" not in part
        assert "hatchery" not in part


def test_the_same_task_run_twice_sends_one_email(alice, feeds, sendgrid):
    _, auth = alice
    task = the_run(subscribe(auth))

    assert execute(task) == "sent"
    assert execute(task) == "duplicate"

    assert len(sendgrid.messages) == 1


def test_a_later_run_sends_only_new_items_and_nothing_when_there_are_none(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(auth)
    first = the_run(sub)
    execute(first)
    sent_at = sub_doc(sub["id"])["last_sent_at"]
    later = run_task(sub["id"], sub["user_id"], datetime.now(UTC) + timedelta(minutes=1))

    assert execute(later) == "nothing_new"

    assert len(sendgrid.messages) == 1
    assert sub_doc(sub["id"])["last_sent_at"] == sent_at  # changes only when an email is sent
    record = task_doc(later.task_id)
    assert record["status"] == "succeeded"
    assert record["result"] == {**record["result"], "items": 0, "sent": False}
    assert usage_of(later.task_id) is None  # nothing was sent, so nothing is billed (0039)
    free = get_db().collection(USAGE_UNBILLED).document(later.task_id).get().to_dict()
    assert free["operation"] == "tracking.research_run"  # ... and the usage API says so
    assert free["cost_micros"] == 0
    assert usage_of(first.task_id) is not None  # the run that sent a digest is


def test_sendgrid_5xx_fails_the_task_and_the_retry_sends_once(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(auth)
    task = the_run(sub)
    sendgrid.fail_next(503)

    with pytest.raises(EmailNotSent):
        execute(task)
    record = task_doc(task.task_id)
    assert record["email"]["state"] == "none"
    assert record["status"] == "running"
    assert results_of(sub["id"]) == []
    assert usage_of(task.task_id) is None

    assert execute(task) == "sent"
    assert len(sendgrid.messages) == 1
    assert task_doc(task.task_id)["attempts"] == 2


def test_a_timeout_after_sending_is_never_resent(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(auth)
    task = the_run(sub)
    sendgrid.hang_next(3)

    with pytest.raises(EmailOutcomeUnknown):
        execute(task)
    assert task_doc(task.task_id)["email"]["state"] == "sending"

    with pytest.raises(Conflict):  # the sending attempt may still be waiting for its answer
        execute(task)
    let_the_sending_lease_expire(task.task_id)
    assert execute(task) == "assumed_sent"
    assert len(sendgrid.messages) == 1  # the fake accepted it once; no second send
    record = task_doc(task.task_id)
    assert record["email"]["state"] == "assumed_sent"
    assert record["status"] == "succeeded"
    assert results_of(sub["id"])  # the send is recorded from what the first attempt stored
    assert sub_doc(sub["id"])["last_sent_at"] is not None


def test_a_crash_between_sending_and_recording_keeps_the_record(
    alice, feeds, sendgrid, monkeypatch
):
    from functions.tasks import records

    _, auth = alice
    sub = subscribe(auth)
    task = the_run(sub)
    real_finish = records.finish
    crashed = []

    def crash_once(*args, **kwargs):
        if kwargs.get("status") == "succeeded" and not crashed:
            crashed.append(True)
            raise SystemError("the instance died")
        return real_finish(*args, **kwargs)

    monkeypatch.setattr(records, "finish", crash_once)
    with pytest.raises(SystemError):
        execute(task)
    assert len(sendgrid.messages) == 1

    let_the_sending_lease_expire(task.task_id)
    assert execute(task) == "assumed_sent"
    assert len(sendgrid.messages) == 1
    assert len(results_of(sub["id"])) == task_doc(task.task_id)["result"]["items"] > 0
    assert usage_of(task.task_id) is not None


def test_a_paused_or_deleted_subscription_is_skipped_and_not_metered(alice, feeds, sendgrid):
    _, auth = alice
    paused, deleted = subscribe(auth), subscribe(auth)
    paused_run, deleted_run = the_run(paused), the_run(deleted)
    client().patch(f"{URL}/{paused['id']}", json={"active": False}, headers=auth)
    client().delete(f"{URL}/{deleted['id']}", headers=auth)

    assert execute(paused_run) == "skipped_paused"
    assert execute(deleted_run) == "skipped_deleted"

    assert sendgrid.messages == []
    assert usage_of(paused_run.task_id) is None
    assert task_doc(deleted_run.task_id)["status"] == "skipped"


def test_a_failing_source_does_not_stop_the_run(alice, feeds, sendgrid, tmp_path, settings_env):
    import json
    from pathlib import Path

    catalog = json.loads(Path(get_settings().feed_catalog_path).read_text())
    catalog["topics"]["cage-free"]["feeds"].insert(0, f"{feeds.url}/error.xml")
    path = tmp_path / "with-broken.json"
    path.write_text(json.dumps(catalog))
    settings_env(FEED_CATALOG_PATH=str(path))
    from common.catalog.topics import FEED_CATALOGS

    container.reset(FEED_CATALOGS)
    _, auth = alice
    task = the_run(subscribe(auth))

    assert execute(task) == "sent"
    assert task_doc(task.task_id)["result"]["failedSources"] == ["cage-free"]


def test_when_every_source_fails_the_run_is_retried(alice, feeds, sendgrid, settings_env):
    settings_env(NEWS_SEARCH_URL="http://127.0.0.1:9/none?q={query}")
    _, auth = alice
    task = the_run(subscribe(auth, custom_keywords=["anything"]))

    with pytest.raises(Exception, match="source"):
        execute(task)
    assert sendgrid.messages == []
    assert task_doc(task.task_id)["status"] == "running"  # not ended: the queue retries it


def test_deleting_a_subscription_leaves_no_results(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(auth)
    execute(the_run(sub))
    assert results_of(sub["id"])

    assert client().delete(f"{URL}/{sub['id']}", headers=auth).get_json() == {"deleted": True}
    assert results_of(sub["id"]) == []


# --- the pause link ----------------------------------------------------------------------------


def pause_token_of(message: dict) -> str:
    link = message["headers"]["List-Unsubscribe"].strip("<>")
    return parse_qs(urlparse(link).query)["token"][0]


def test_the_pause_link_works_once_and_rejects_a_tampered_token(alice, feeds, sendgrid):
    _, auth = alice
    sub = subscribe(auth)
    execute(the_run(sub))
    token = pause_token_of(sendgrid.messages[0])
    path = "/v1/tracking/pause"

    page = client().get(path, query_string={"token": token})
    assert page.status_code == 200
    assert "text/html" in page.content_type
    assert sub_doc(sub["id"])["active"] is True  # a GET (a link scanner) changes nothing

    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    bad = client().post(path, query_string={"token": tampered}, data="List-Unsubscribe=One-Click")
    assert bad.status_code == 400
    assert bad.get_json()["code"] == "invalid_request"
    assert sub_doc(sub["id"])["active"] is True

    done = client().post(
        path,
        query_string={"token": token},
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert done.status_code == 200
    assert sub_doc(sub["id"])["active"] is False

    again = client().post(path, query_string={"token": token})
    assert again.status_code == 410
    assert again.get_json()["code"] == "gone"
    assert client().get(path, query_string={"token": token}).status_code == 410


# --- races and final failures ------------------------------------------------------------------


def test_a_second_attempt_while_the_first_is_sending_backs_off(
    alice, feeds, sendgrid, settings_env
):
    import threading

    settings_env(SENDGRID_TIMEOUT_S="5")
    _, auth = alice
    task = the_run(subscribe(auth))
    sendgrid.hang_next(1.5)  # the first attempt's send takes 1.5 s, then succeeds
    first: list[str] = []
    sending = threading.Thread(target=lambda: first.append(execute(task)))
    sending.start()
    deadline = datetime.now(UTC) + timedelta(seconds=5)
    while ((task_doc(task.task_id) or {}).get("email") or {}).get("state") != "sending":
        assert datetime.now(UTC) < deadline
    with pytest.raises(Conflict):
        execute(task)  # a duplicate delivery meanwhile: neither sends nor records
    sending.join(10)

    assert first == ["sent"]
    assert len(sendgrid.messages) == 1
    assert task_doc(task.task_id)["email"]["state"] == "sent"


def test_a_subscription_paused_during_the_research_gets_no_digest(
    alice, feeds, sendgrid, monkeypatch
):
    from functions.research import summaries

    _, auth = alice
    sub = subscribe(auth)
    task = the_run(sub)
    real = summaries.summarise_items

    def pause_meanwhile(items, *args):
        client().patch(f"{URL}/{sub['id']}", json={"active": False}, headers=auth)
        return real(items, *args)

    monkeypatch.setattr(summaries, "summarise_items", pause_meanwhile)

    assert execute(task) == "skipped_paused"
    assert sendgrid.messages == []
    assert usage_of(task.task_id) is None
    assert task_doc(task.task_id)["status"] == "skipped"


def test_a_rejected_email_ends_the_run_failed_unmetered_and_its_items_stay_unsent(
    alice, feeds, sendgrid
):
    _, auth = alice
    sub = subscribe(auth)
    task = the_run(sub)
    sendgrid.fail_next(400)

    assert execute(task) == "rejected"

    record = task_doc(task.task_id)
    assert record["status"] == "failed"
    assert "HTTP 400" in record["error"]
    assert usage_of(task.task_id) is None
    assert results_of(sub["id"]) == []  # the next run offers the same items again


def test_the_last_attempt_ends_the_task_failed(alice, feeds, sendgrid, settings_env):
    settings_env(TASK_MAX_ATTEMPTS="2")
    _, auth = alice
    task = the_run(subscribe(auth))
    sendgrid.fail_next(503, count=2)

    with pytest.raises(EmailNotSent):
        execute(task)
    assert execute(task) == "failed"
    assert task_doc(task.task_id)["status"] == "failed"
    assert execute(task) == "duplicate"
    assert sendgrid.messages == []


def test_a_task_with_a_bad_payload_is_dropped_not_retried(db):
    assert execute(Task("run-x-1", "tracking.run", {})) == "invalid_payload"
    assert execute(Task("run-x-2", "tracking.run", {"subscriptionId": "a/b"})) == "invalid_payload"
    assert execute(Task("legal-x", "legal.guidance", {"owner": "x"})) == "invalid_payload"
    assert execute(Task("x", "no.such.kind", {})) == "unknown_kind"


def test_a_patch_between_read_and_advance_is_not_overwritten(alice, monkeypatch):
    _, auth = alice
    sub = subscribe(auth, topics=["fur"], frequency="weekly")

    def patch_meanwhile(tasks):
        client().patch(f"{URL}/{sub['id']}", json={"frequency": "realtime"}, headers=auth)
        return [Enqueued.CREATED] * len(tasks)

    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", patch_meanwhile)
    patched_at = datetime.now(UTC)

    dispatch(datetime.now(UTC) + timedelta(seconds=1))

    record = sub_doc(sub["id"])
    assert record["frequency"] == "realtime"
    assert record["next_run_at"] <= patched_at + timedelta(seconds=5)  # not a week away
