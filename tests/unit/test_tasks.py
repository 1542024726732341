"""The task queue's production message and the inline queue's bounds and retries (no I/O)."""

from __future__ import annotations

import json
import threading

from common.adapters.tasks import WORKER_PATH, Enqueued, InlineQueue, Task, cloud_task

TASK = Task("run-3f2c-1700000000", "tracking.run", {"subscriptionId": "3f2c"})


def test_a_production_task_carries_an_oidc_token_for_the_worker_and_no_secret(settings_env):
    settings_env(
        INTERNAL_AUTH="oidc",
        TASKS_QUEUE="projects/p/locations/europe-west1/queues/tracking-research",
        TASK_WORKER_URL="https://ars-task-worker-123.europe-west1.run.app",
        TASKS_SERVICE_ACCOUNT="ars-invoker@p.iam.gserviceaccount.com",
    )

    message = cloud_task(TASK)

    assert message.name == (
        "projects/p/locations/europe-west1/queues/tracking-research/tasks/run-3f2c-1700000000"
    )
    request = message.http_request
    assert request.url == "https://ars-task-worker-123.europe-west1.run.app" + WORKER_PATH
    assert request.oidc_token.service_account_email == "ars-invoker@p.iam.gserviceaccount.com"
    assert request.oidc_token.audience == "https://ars-task-worker-123.europe-west1.run.app"
    assert "Authorization" not in request.headers
    assert json.loads(request.body) == TASK.body()
    assert message.dispatch_deadline.seconds == 900


def test_a_local_task_carries_the_shared_secret_instead(settings_env):
    settings_env(INTERNAL_AUTH="secret", INTERNAL_SECRET="local-s3cret")

    request = cloud_task(TASK).http_request

    assert request.headers["Authorization"] == "Bearer local-s3cret"
    assert not request.oidc_token.service_account_email


def test_a_full_inline_queue_refuses_and_a_failing_task_is_retried():
    started, release = threading.Event(), threading.Event()
    attempts: list[str] = []

    def runner(task: Task) -> None:
        started.set()
        release.wait(5)
        attempts.append(task.task_id)
        if attempts.count(task.task_id) < 3:
            raise RuntimeError("retry me")

    inline = InlineQueue(runner, size=1, attempts=3, backoff_s=0.01)
    assert inline.put(Task("a", "k")) is Enqueued.CREATED
    assert started.wait(5)  # "a" is running: the queue itself is empty
    assert inline.put(Task("b", "k")) is Enqueued.CREATED
    assert inline.put(Task("c", "k")) is Enqueued.FAILED  # bounded: refused, not queued
    release.set()

    assert inline.drain(10)
    assert attempts.count("a") == 3  # two failures, then success
    assert attempts.count("b") == 3
    assert "c" not in attempts
