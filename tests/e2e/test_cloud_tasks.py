"""Enqueue -> HTTP delivery -> worker, through gcloud-tasks-emulator (a real gRPC Cloud Tasks
server, in its own virtualenv) and the `task_worker` entry point served by functions-framework.
Feeds and SendGrid are loopback fakes; Firestore is the emulator."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from common.adapters.tasks import Enqueued
from devtools.emulator import Emulator, dies_with_parent, free_port, wait_listening
from tests.conftest import ROOT
from tests.e2e.conftest import BIN, server_env
from tests.fakes.feed_server import FakeFeedServer
from tests.fakes.sendgrid_server import DEFAULT_KEY, FakeSendGridServer

pytestmark = pytest.mark.e2e
TASKS_EMULATOR = ROOT / ".venv-tasks-emulator" / "bin" / "gcloud-tasks-emulator"


QUEUE_SETTINGS = ("TASKS_BACKEND", "TASKS_QUEUE", "TASKS_EMULATOR_HOST", "TASK_WORKER_URL")


@dataclass
class Stack:
    env: dict[str, str]
    worker_url: str
    sendgrid: FakeSendGridServer
    worker_log: Path


@pytest.fixture(scope="module")
def stack(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    from devtools.feedserver import search_template, write_catalog

    if not TASKS_EMULATOR.exists():
        pytest.fail("gcloud-tasks-emulator is missing: `make test` installs it")
    tmp = tmp_path_factory.mktemp("cloudtasks")
    feeds = FakeFeedServer()
    sendgrid = FakeSendGridServer().start()
    tasks_port, worker_port = free_port(), free_port()
    queue = f"projects/{emulator.project}/locations/local/queues/tracking-research"
    env = {
        **server_env(emulator),
        "TASKS_BACKEND": "cloudtasks",
        "TASKS_QUEUE": queue,
        "TASKS_EMULATOR_HOST": f"127.0.0.1:{tasks_port}",
        "TASK_WORKER_URL": f"http://127.0.0.1:{worker_port}",
        "INTERNAL_AUTH": "secret",
        "EMAIL_BACKEND": "sendgrid",
        "SENDGRID_HOST": sendgrid.url,
        "SENDGRID_API_KEY": DEFAULT_KEY,
        "FEED_CATALOG_PATH": str(write_catalog(feeds.url, tmp / "feeds.json")),
        "NEWS_SEARCH_URL": search_template(feeds.url),
    }
    logs = [open(tmp / name, "wb") for name in ("worker.log", "tasks.log")]  # noqa: SIM115
    # This process already runs gRPC threads (Firestore): no Python may run between fork and
    # exec, so the children get their parent-death signal from setpriv, not a preexec_fn.
    worker = subprocess.Popen(
        dies_with_parent([str(BIN / "functions-framework"), "--target=task_worker",
                          f"--source={ROOT / 'main.py'}", "--host=127.0.0.1",
                          f"--port={worker_port}"]),
        env=env, cwd=ROOT, stdout=logs[0], stderr=subprocess.STDOUT,
    )  # fmt: skip
    tasks = subprocess.Popen(
        dies_with_parent([str(TASKS_EMULATOR), "start", "-p", str(tasks_port), "-d", queue,
                          "-r", "5"]),
        env={"PATH": os.environ.get("PATH", "")}, stdout=logs[1], stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        if not (wait_listening(worker_port, 30) and wait_listening(tasks_port, 30)):
            pytest.fail("the task worker or gcloud-tasks-emulator did not start")
        yield Stack(env, f"http://127.0.0.1:{worker_port}", sendgrid, tmp / "worker.log")
    finally:
        for process in (worker, tasks):
            process.terminate()
            process.wait(timeout=10)
        for log in logs:
            log.close()
        feeds.shutdown()
        sendgrid.shutdown()


@pytest.fixture
def queue_env(stack: Stack, db, settings_env) -> Stack:
    """This process enqueues like the deployed functions do, to the emulator."""
    from common import container
    from common.adapters import tasks

    settings_env(**{name: stack.env[name] for name in QUEUE_SETTINGS})
    container.reset(tasks.CLIENT)
    stack.sendgrid.messages.clear()
    yield stack
    container.reset(tasks.CLIENT)


def subscription(email: str = "carol@example.org") -> dict:
    from common.accounts.consumers import get_or_create_by_email
    from functions.tracking.service import create_subscription

    consumer, _ = get_or_create_by_email(email)
    return create_subscription(
        consumer["id"],
        email,
        {"topics": ["cage-free"], "custom_keywords": [], "frequency": "realtime"},
    )


def wait_for_task(task_id: str, seconds: float = 30) -> dict:
    from common.adapters.firestore import TASKS, get_db

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        snapshot = get_db().collection(TASKS).document(task_id).get()
        if snapshot.exists and snapshot.to_dict()["status"] in {"succeeded", "skipped", "failed"}:
            return snapshot.to_dict()
        time.sleep(0.2)
    pytest.fail(f"task {task_id} did not end within {seconds} s")


def test_a_dispatched_run_is_delivered_over_http_and_sends_one_digest(queue_env):
    from functions.tracking.dispatch import dispatch
    from functions.tracking.run import run_id

    sub = subscription()
    report = dispatch(datetime.now(UTC) + timedelta(seconds=1))
    assert (report.due, report.enqueued, report.failed) == (1, 1, 0)

    record = wait_for_task(run_id(sub["id"], sub["next_run_at"]))

    assert record["status"] == "succeeded"
    assert record["email"]["state"] == "sent"
    assert len(queue_env.sendgrid.messages) == 1
    assert queue_env.sendgrid.messages[0]["personalizations"][0]["to"][0]["email"] == (
        "carol@example.org"
    )


def test_a_task_delivered_twice_sends_one_email(queue_env):
    from common.adapters.tasks import enqueue
    from functions.tracking.run import run_task

    sub = subscription()
    task = run_task(sub["id"], sub["user_id"], sub["next_run_at"])
    # The emulator, unlike Cloud Tasks, accepts a second task with the same name: the
    # worker's own record is what keeps the second delivery from sending again.
    assert enqueue(task) is Enqueued.CREATED
    enqueue(task)

    wait_for_task(task.task_id)
    deadline = time.monotonic() + 15
    while f'"taskId": "{task.task_id}", "kind": "tracking.run", "outcome": "duplicate"' not in (
        queue_env.worker_log.read_text()
    ):
        assert time.monotonic() < deadline, "the second delivery never reached the worker"
        time.sleep(0.2)

    assert len(queue_env.sendgrid.messages) == 1


def test_sendgrid_5xx_is_retried_by_the_queue_and_the_retry_sends_once(queue_env):
    from common.adapters.tasks import enqueue
    from functions.tracking.run import run_task

    sub = subscription()
    task = run_task(sub["id"], sub["user_id"], sub["next_run_at"])
    queue_env.sendgrid.fail_next(500)

    assert enqueue(task) is Enqueued.CREATED
    record = wait_for_task(task.task_id)

    assert record["status"] == "succeeded"
    assert record["attempts"] == 2
    assert len(queue_env.sendgrid.messages) == 1


def test_the_worker_refuses_callers_without_the_internal_credential(stack):
    body = {"taskId": "run-x-1", "kind": "tracking.run", "payload": {}}
    for headers in ({}, {"Authorization": "Bearer not-the-secret"}):
        answer = httpx.post(f"{stack.worker_url}/internal/tasks/run", json=body, headers=headers)
        assert answer.status_code == 401
        assert answer.headers["content-type"] == "application/problem+json"


def worker_outcomes(log: Path, kind: str) -> dict[str, list[str]]:
    """taskId -> the outcomes the worker logged for it, for tasks of ``kind``."""
    import json

    outcomes: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if entry.get("message") == "task done" and entry.get("kind") == kind:
            outcomes.setdefault(entry["taskId"], []).append(entry["outcome"])
    return outcomes


def test_a_fanned_out_tick_enqueues_every_due_subscription_exactly_once(queue_env, settings_env):
    """Slices go through the queue to the worker, which enqueues the runs. The emulator keeps
    a duplicate task name (Cloud Tasks would not), so a run enqueued twice would reach the
    worker twice: one delivery per run is one enqueue per run."""
    import uuid

    from common.adapters.firestore import SUBSCRIPTIONS, get_db
    from functions.tracking.dispatch import SLICE_KIND, dispatch
    from functions.tracking.run import KIND, run_id

    settings_env(DISPATCH_FAN_OUT_ABOVE="10", DISPATCH_SLICE_SIZE="7")
    tick = datetime.now(UTC)
    batch, expected = get_db().batch(), set()
    for i in range(33):
        sub_id, due = str(uuid.uuid4()), tick - timedelta(seconds=1 + i % 4)  # ties included
        if i < 30:
            expected.add(run_id(sub_id, due))
        else:
            due = tick + timedelta(hours=1)  # not due
        # An owner the service does not know: each run ends `skipped` at once, no research.
        fields = {"user_id": str(uuid.uuid4()), "frequency": "daily", "active": True}
        batch.set(
            get_db().collection(SUBSCRIPTIONS).document(sub_id), {**fields, "next_run_at": due}
        )
    batch.commit()

    report = dispatch(tick)
    assert (report.slices, report.due, report.failed) == (5, 0, 0)  # 30 in slices of 7

    deadline = time.monotonic() + 90
    while not expected <= set(worker_outcomes(queue_env.worker_log, KIND)):
        assert time.monotonic() < deadline, "not every run reached the worker"
        time.sleep(0.3)
    time.sleep(2)  # room for a duplicate delivery to show up

    runs = {
        task_id: outcomes
        for task_id, outcomes in worker_outcomes(queue_env.worker_log, KIND).items()
        if task_id in expected
    }
    assert runs == {task_id: ["skipped_owner_inactive"] for task_id in expected}
    this_tick = f"-{int(tick.timestamp() * 1_000_000)}-"
    slices = worker_outcomes(queue_env.worker_log, SLICE_KIND)
    assert sorted(o for t, o in slices.items() if this_tick in t) == [["dispatched"]] * 5
    assert dispatch(tick).due == 0
