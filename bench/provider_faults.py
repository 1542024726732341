"""Faults of the third-party services, for ``bench/faults.py`` (issue 27, decision 0050): SendGrid,
the LLM provider and the news feeds, each a loopback fake (``tests/fakes``) that the
production client code talks to over HTTP.

- ``email``: digests and recipient confirmations delivered while SendGrid answers 5xx, 429
  with ``Retry-After``, or accepts a message and answers after the client's timeout, for a
  few seconds; and while it is down for longer than every attempt. The tasks run on a queue
  with Cloud Tasks' retry policy (``terraform/tasks.tf``: 5 attempts, the backoff doubling),
  its backoff scaled from 10 s to ``MIN_BACKOFF_S``, four at a time.
- ``llm``: the routes that call the provider while it is slower than its deadline, answers
  500, or returns JSON that is not what was asked: each answers as it documents (the offline
  engine, or an unbilled 502), within a bound, billed once at most.
- ``feeds``: a research stream over topics whose feeds include one that is slow, one that
  drips bytes past the deadline, one that answers 500 and one cut off mid-document: the
  stream finishes with the items of the feeds that answered and names those that did not.
"""

from __future__ import annotations

import heapq
import os
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import emulated

ROOT = Path(__file__).resolve().parent.parent
SUBSCRIPTIONS_URL = "/v1/tracking/subscriptions"
MIN_BACKOFF_S = 1.5  # Cloud Tasks' 10 s, scaled; the lease of a send (2 x 1 s + 10 s) is kept


def configure(**env: str) -> None:
    """Set the environment and forget every client and cache built from the old one."""
    from common import container
    from common.accounts import keys
    from common.adapters import email, feeds, llm
    from common.catalog import topics
    from common.config import get_settings

    os.environ.update(env)
    get_settings.cache_clear()
    keys.clear_cache()
    container.reset(email.CLIENTS)
    container.reset(llm.PROVIDER)
    container.reset(feeds.CACHE)
    container.reset(topics.FEED_CATALOGS)


def app() -> Any:
    import functions_framework

    return functions_framework.create_app(target="api", source=str(ROOT / "main.py"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


# --- a task queue with Cloud Tasks' retry policy -----------------------------------------------


class RetryingQueue:
    """Runs each task as Cloud Tasks would: again after a failed attempt (an exception; the
    worker answers non-2xx), ``MIN_BACKOFF_S`` doubling, until ``attempts``; ``workers`` at a
    time. Notes each attempt's outcome per task."""

    def __init__(self, run: Callable[[Any], str], attempts: int, workers: int = 4) -> None:
        self.run = run
        self.attempts = attempts
        self.outcomes: dict[str, list[str]] = defaultdict(list)
        self._heap: list[tuple[float, int, int, Any]] = []
        self._order = 0
        self._busy = 0
        self._cond = threading.Condition()
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(workers)]
        for thread in self._threads:
            thread.start()

    def put(self, task: Any, attempt: int = 1, at: float | None = None) -> Any:
        from common.adapters.tasks import Enqueued

        with self._cond:
            self._order += 1
            heapq.heappush(self._heap, (at or time.monotonic(), self._order, attempt, task))
            self._cond.notify()
        return Enqueued.CREATED

    def put_many(self, tasks: list[Any]) -> list[Any]:
        return [self.put(task) for task in tasks]

    def drain(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._heap or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(timeout=min(0.5, left))
        return True

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    wait = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout=wait)
                _, _, attempt, task = heapq.heappop(self._heap)
                self._busy += 1
            try:
                outcome = self.run(task)
            except Exception as exc:  # the queue sees a non-2xx answer
                outcome = f"error:{type(exc).__name__}"
                if attempt < self.attempts:
                    backoff = MIN_BACKOFF_S * 2 ** (attempt - 1)
                    self.put(task, attempt + 1, time.monotonic() + backoff)
            with self._cond:
                self.outcomes[task.task_id].append(outcome)
                self._busy -= 1
                self._cond.notify_all()


# --- SendGrid ----------------------------------------------------------------------------------

EMAIL_FAULTS: dict[str, tuple[str, dict[str, Any]]] = {
    "sendgrid_5xx": ("503 to every request for 4 s", {"seconds": 4.0, "status": 503}),
    "sendgrid_429": (
        "429 with Retry-After: 2 to every request for 4 s",
        {"seconds": 4.0, "status": 429, "headers": {"Retry-After": "2"}},
    ),
    "sendgrid_timeout": (
        "every message accepted and answered after 2.5 s (the client waits 1 s), for 3 s",
        {"seconds": 3.0, "hang_s": 2.5},
    ),
    "sendgrid_down": (
        "503 to every request for longer than all attempts",
        {"seconds": 600.0, "status": 503},
    ),
}


@contextmanager
def mail_and_feeds() -> Iterator[Any]:
    """SendGrid's fake (yielded) and the fixture feeds, the service configured for both."""
    from devtools.feedserver import search_template, write_catalog
    from tests.fakes.feed_server import FakeFeedServer
    from tests.fakes.sendgrid_server import DEFAULT_KEY, FakeSendGridServer

    feeds = FakeFeedServer()
    try:
        with tempfile.TemporaryDirectory() as tmp, FakeSendGridServer() as sendgrid:
            configure(
                EMAIL_BACKEND="sendgrid",
                SENDGRID_HOST=sendgrid.url,
                SENDGRID_API_KEY=DEFAULT_KEY,
                SENDGRID_TIMEOUT_S="1",
                PUBLIC_BASE_URL="https://api.example.org",
                FEED_CATALOG_PATH=str(write_catalog(feeds.url, Path(tmp) / "feeds.json")),
                NEWS_SEARCH_URL=search_template(feeds.url),
                FEED_TIMEOUT_S="1.5",
            )
            yield sendgrid
    finally:
        feeds.shutdown()


def email_faults(digests: int = 12, confirmations: int = 3) -> dict[str, Any]:
    """Each ``EMAIL_FAULTS`` scenario on its own consumer: ``digests`` subscriptions of the
    owner's address and ``confirmations`` of third-party addresses, then one dispatch tick."""
    from functions.tracking import dispatch

    out: dict[str, Any] = {}
    with mail_and_feeds() as sendgrid:
        client = app().test_client()
        for name, (fault, plan) in EMAIL_FAULTS.items():
            sendgrid.messages.clear()
            sendgrid.requests = 0
            queue = use_queue()
            started = time.monotonic()
            sendgrid.outage(**plan)
            owner = subscribe_many(client, digests, confirmations)
            report = dispatch.dispatch(datetime.now(UTC) + timedelta(seconds=1))
            settled = queue.drain(timeout_s=180)
            out[name] = {
                "fault": fault,
                "dispatched": report.enqueued,
                "settled": settled,
                "seconds_to_settle": round(time.monotonic() - started, 1),
                **delivered(owner, sendgrid),
            }
            sendgrid.outage(0)
    return out


def use_queue() -> RetryingQueue:
    """A new ``RetryingQueue`` in place of the task queue of the dispatcher and of the
    recipients' confirmations (as the tests replace it)."""
    from common.config import get_settings
    from functions.tracking import dispatch, recipients
    from registry import run_task

    queue = RetryingQueue(run_task, get_settings().task_max_attempts)
    dispatch.enqueue_many = queue.put_many  # type: ignore[assignment]
    recipients.enqueue = queue.put  # type: ignore[assignment]
    return queue


def subscribe_many(client: Any, digests: int, confirmations: int = 0) -> str:
    """A new consumer with ``digests`` daily subscriptions of its own address and
    ``confirmations`` of third-party ones (each sends a confirmation first); its id."""
    email = f"faults-{uuid.uuid4().hex[:8]}@example.org"
    auth = {"Authorization": f"Bearer {emulated.api_key(email)}"}
    for n in range(digests + confirmations):
        body: dict[str, Any] = {"topics": ["cage-free"], "frequency": "daily"}
        if n >= digests:
            body["delivery_email"] = f"colleague-{n}-{uuid.uuid4().hex[:6]}@example.net"
        answer = client.post(SUBSCRIPTIONS_URL, json=body, headers=auth)
        assert answer.status_code == 201, answer.get_json()
    return _owner(email)


def delivered(owner: str, sendgrid: Any) -> dict[str, Any]:
    """What the owner's tasks ended as, next to the messages SendGrid accepted: each due
    digest and confirmation must be accepted exactly once, or end ``failed`` (after its last
    attempt) with none accepted."""
    from common.adapters.firestore import SUBSCRIPTIONS, TASKS, get_db, where_eq
    from common.config import get_settings
    from functions.tracking import recipients

    attempts = get_settings().task_max_attempts
    db = get_db()
    records = {
        doc.id: doc.to_dict() or {}
        for doc in db.collection(TASKS).where(filter=where_eq("owner_id", owner)).stream()
    }
    # the owner's messages only: a dispatch tick also runs the other consumers' due digests
    accepted = Counter(
        task_id
        for m in sendgrid.messages
        if (task_id := m.get("custom_args", {}).get("task_id")) in records
    )
    runs = {i: r for i, r in records.items() if r.get("kind") == "tracking.run"}
    digests = {i: r for i, r in runs.items() if r.get("status") != "skipped"}
    expected = {**digests, **{i: r for i, r in records.items() if r.get("kind") == recipients.KIND}}
    subscriptions = [
        doc.id
        for doc in db.collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", owner)).stream()
    ]
    per_subscription = Counter(
        sub_id
        for task_id, n in accepted.items()
        for sub_id in subscriptions
        if str(task_id).startswith(f"run-{sub_id}-")
        for _ in range(n)
    )

    def ended(task_id: str, record: dict[str, Any]) -> bool:
        """Sent and accepted once; or failed, or ended with nothing to send, and none
        accepted. Anything else (still running, sent but not accepted...) is a loss."""
        state = (record.get("email") or {}).get("state")
        if state in ("sent", "assumed_sent"):
            return accepted[task_id] == 1
        return record.get("status") in ("failed", "succeeded") and accepted[task_id] == 0

    return {
        "subscriptions": len(subscriptions),
        "digests_due": len(digests),
        "runs_waiting_for_consent": len(runs) - len(digests),
        "confirmations_due": len(expected) - len(digests),
        "sendgrid_requests": sendgrid.requests,  # every consumer's
        "messages_accepted": sum(accepted.values()),
        "outcomes": dict(
            Counter(
                f"{r.get('kind')}:{r.get('status')}/{(r.get('email') or {}).get('state')}"
                for r in records.values()
            )
        ),
        "attempts": dict(Counter(str(r.get("attempts")) for r in expected.values())),
        "duplicated": sum(1 for n in accepted.values() if n > 1)
        + sum(1 for n in per_subscription.values() if n > 1),
        "lost": sum(1 for i, r in expected.items() if not ended(i, r)),
        "failed_before_the_last_attempt": sum(
            1
            for r in expected.values()
            if r.get("status") == "failed" and int(r.get("attempts") or 0) < attempts
        ),
    }


def _owner(email: str) -> str:
    from common.accounts.consumers import get_or_create_by_email

    return str(get_or_create_by_email(email)[0]["id"])


# --- the LLM provider --------------------------------------------------------------------------

LLM_CALLS = (  # (operation, path, body, what the route documents when the provider fails)
    (  # a message the offline classifier is unsure of (below CONFIDENT): the provider is asked
        "chat.intent",
        "/v1/chat/intent",
        {"message": "Tyson and protest permits in Ohio and a tweet about it"},
        "offline",
    ),
    (
        "chat.summarize",
        "/v1/chat/summarize",
        {
            "messages": [
                {"role": "user", "content": "We plan a cage-free campaign against a retailer."},
                {"role": "assistant", "content": "Start with its public animal welfare policy."},
            ]
        },
        "502",
    ),
    (
        "content.generate",
        "/v1/content/generate",
        {"contentType": "social_post", "topic": "cage-free eggs", "platform": "x"},
        "502",
    ),
)


def llm_faults(calls_each: int = 4) -> dict[str, Any]:
    """Each route of ``LLM_CALLS`` ``calls_each`` times under each fault; statuses, latency,
    the provider requests made and what ``/v1/usage`` billed against what was delivered."""
    from functions.knowledge.importer import import_knowledge
    from tests.fakes import openai_server as fake

    import_knowledge([ROOT / "data" / "knowledge"])  # what drafts quote (unchanged: skipped)
    out: dict[str, Any] = {}
    with fake.FakeOpenAIServer() as server:
        configure(
            LLM_BACKEND="openai",
            LLM_BASE_URL=server.base_url,
            LLM_MODEL="fake-model",
            LLM_API_KEY="sk-fake",
            LLM_TIMEOUT_S="2",
            LLM_MAX_RETRIES="2",
            LLM_DEADLINE_S="8",
        )
        client = app().test_client()
        faults = {
            "llm_slow": ("every answer after 5 s (deadline 2 s per attempt)", fake.sleep(5)),
            "llm_500": ("500 to every request", fake.status(500, {"error": {"message": "x"}})),
            "llm_malformed": ("200 with a body that is not JSON", fake.raw(b'{"choices": [')),
            "llm_wrong_schema": ("200 with JSON that is not what was asked", fake.reply("{}")),
        }
        for name, (fault, behaviour) in faults.items():
            server.default = behaviour
            out[name] = {"fault": fault, **llm_scenario(client, server, calls_each)}
    return out


def llm_scenario(client: Any, server: Any, calls_each: int) -> dict[str, Any]:
    key = emulated.api_key(f"llm-{uuid.uuid4().hex[:8]}@example.org")
    auth = {"Authorization": f"Bearer {key}"}
    routes: dict[str, Any] = {}
    delivered: Counter[str] = Counter()
    for operation, path, body, documented in LLM_CALLS:
        before = len(server.requests)
        latencies, statuses = [], Counter()
        for _ in range(calls_each):
            started = time.perf_counter()
            answer = client.post(path, json=body, headers=auth)
            latencies.append((time.perf_counter() - started) * 1000)
            statuses[str(answer.status_code)] += 1
            if 200 <= answer.status_code < 300:
                delivered[operation] += 1
        routes[operation] = {
            "documented": documented,
            "statuses": dict(statuses),
            "p50_ms": round(statistics.median(latencies), 1),
            "longest_ms": round(max(latencies), 1),
            "provider_requests_per_call": round((len(server.requests) - before) / calls_each, 1),
        }
    usage = client.get("/v1/usage", headers=auth).get_json()
    billed = {line["operation"]: line["requests"] for line in usage["operations"]}
    return {
        "routes": routes,
        "delivered": dict(delivered),
        "billed": {op: n for op, n in billed.items() if n},
        "billing_matches": {op: n for op, n in billed.items() if n} == dict(delivered),
    }


# --- feeds -------------------------------------------------------------------------------------

FEED_FAULTS = {
    "slow": "/slow.xml",  # answers after 4 s (the deadline is 1.5 s)
    "drip": "/drip.xml",  # headers at once, then a few bytes every 0.2 s for 4 s
    "error": "/error.xml",  # 500
    "truncated": "/raw.xml",  # 200 with a feed cut off in the middle of an item
}


def feed_faults(streams: int = 4) -> dict[str, Any]:
    """``streams`` research streams over a topic whose catalog lists the fixture feed and the
    failing ones of ``FEED_FAULTS``."""
    import json

    from tests.fakes.feed_server import FakeFeedServer

    feeds = FakeFeedServer(slow_s=4.0)
    try:
        whole = feeds_body(feeds)
        feeds.raw_body = whole[: len(whole) // 2]
        with tempfile.TemporaryDirectory() as tmp:
            catalog = Path(tmp) / "feeds.json"
            good = f"{feeds.url}/feeds/cage-free.xml"
            urls = [good, *(f"{feeds.url}{path}" for path in FEED_FAULTS.values())]
            catalog.write_text(json.dumps({"topics": {"cage-free": {"feeds": urls}}}))
            configure(FEED_CATALOG_PATH=str(catalog), FEED_TIMEOUT_S="1.5")
            client = app().test_client()
            key = emulated.api_key(f"feeds-{uuid.uuid4().hex[:8]}@example.org")
            auth = {"Authorization": f"Bearer {key}"}
            latencies, statuses, failed, items = [], Counter(), Counter(), []
            for _ in range(streams):
                started = time.perf_counter()
                answer = client.post(
                    "/v1/research/topics", json={"topics": ["cage-free"]}, headers=auth
                )
                events = [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[str(answer.status_code)] += 1
                summary = next((e for e in events if e.get("type") == "summary"), {})
                failed.update(summary.get("failedSources") or [])
                items.append(sum(1 for e in events if e.get("type") == "item"))
            usage = client.get("/v1/usage", headers=auth).get_json()
    finally:
        feeds.shutdown()
    billed = {line["operation"]: line["requests"] for line in usage["operations"]}
    return {
        "feeds": {"answering": 1, "failing": list(FEED_FAULTS)},
        "streams": streams,
        "statuses": dict(statuses),
        "p50_ms": round(statistics.median(latencies), 1),
        "longest_ms": round(max(latencies), 1),
        "items_per_stream": items,
        "failed_sources_named": dict(failed),
        "billed": {op: n for op, n in billed.items() if n},
    }


def feeds_body(feeds: Any) -> bytes:
    import httpx

    return httpx.get(f"{feeds.url}/feeds/cage-free.xml", timeout=5).content
