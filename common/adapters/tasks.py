"""The task queue: Cloud Tasks in production, a bounded in-process worker for local runs.

A task is ``(task_id, kind, payload)``. ``task_id`` is deterministic (a tracking run is named
after its subscription and due time), so enqueuing the same run twice is a no-op: Cloud Tasks
answers ``ALREADY_EXISTS`` for a name it has seen (for about an hour after the task ends, and
the worker's own task record makes any later duplicate a no-op too), and the inline backend
remembers the names it accepted.

``TASKS_BACKEND=cloudtasks`` creates HTTP tasks targeting ``TASK_WORKER_URL`` +
``WORKER_PATH``. In production each carries an OIDC token for ``TASKS_SERVICE_ACCOUNT``
(audience: the worker's base URL), which ``common.accounts.internal`` verifies. With
``INTERNAL_AUTH=secret`` (tests against ``gcloud-tasks-emulator``) the task carries the local
shared secret instead. Cloud Tasks retries any non-2xx answer with backoff (queue settings in
``terraform/tasks.tf``).

``TASKS_BACKEND=inline`` runs tasks on one daemon thread of this process, from a queue bounded
by ``INLINE_QUEUE_SIZE`` (a full queue refuses the task, so the dispatcher retries it on the
next tick), running a failed task up to ``TASK_MAX_ATTEMPTS`` times with backoff, like Cloud
Tasks. What runs a task is the task worker, which lives above this module (it knows the jobs):
the entry point that serves requests (``registry.app``) or runs the dispatcher (the admin CLI)
hands it over with ``set_runner`` (decision 0019).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from common import container
from common.config import get_settings

logger = logging.getLogger("ars.tasks")

WORKER_PATH = "/internal/tasks/run"
DISPATCH_DEADLINE_S = 900  # the task_worker function's timeout
ENQUEUE_TIMEOUT_S = 10.0
ENQUEUE_THREADS = 16


@dataclass(frozen=True)
class Task:
    task_id: str  # [A-Za-z0-9_-]{1,500}: the last segment of the Cloud Tasks task name
    kind: str  # a Job's kind (registry.JOBS lists them)
    payload: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "kind": self.kind, "payload": self.payload}


@dataclass(frozen=True)
class Job:
    """One kind of task and what runs it. Each job module declares its own (``JOB``), the
    registry lists them (``registry.JOBS``) and hands the table to the task worker, so the
    worker imports no group and no kind is written twice."""

    kind: str
    run: Callable[[Task], str]  # the outcome of a task that is done; raises AppError to retry


class Enqueued(StrEnum):
    CREATED = "created"
    EXISTS = "exists"  # the same task was enqueued before: nothing was added
    FAILED = "failed"  # the queue refused it or could not be reached: enqueue again later


def enqueue(task: Task) -> Enqueued:
    return enqueue_many([task])[0]


def enqueue_many(tasks: Sequence[Task]) -> list[Enqueued]:
    """Enqueue tasks; one outcome per task, in order. Never raises for a queue failure."""
    if not tasks:
        return []
    if get_settings().tasks_backend == "inline":
        return [inline_queue().put(task) for task in tasks]
    if len(tasks) == 1:
        return [_create_cloud_task(tasks[0])]
    return list(_enqueue_pool().map(_create_cloud_task, tasks))


def _enqueue_pool() -> Any:
    """The process's ``ENQUEUE_THREADS`` enqueue threads, started on the first batch and shared
    by every caller: concurrent batches (the dispatcher enqueues one page while the previous
    one finishes) queue behind each other instead of adding threads, and no batch pays for
    starting them (decision 0036)."""
    return _pool.get()


def _build_pool() -> Any:
    from concurrent.futures import ThreadPoolExecutor  # only batches use it

    return ThreadPoolExecutor(ENQUEUE_THREADS, thread_name_prefix="enqueue")


_pool: container.Entry[Any] = container.register("tasks.enqueue_pool", _build_pool)


# --- Cloud Tasks -----------------------------------------------------------------------------


def _cloud_tasks_client() -> Any:
    return _client.get()


def _build_client() -> Any:
    from google.cloud import tasks_v2

    host = get_settings().tasks_emulator_host
    if not host:
        return tasks_v2.CloudTasksClient()
    import grpc
    from google.cloud.tasks_v2.services.cloud_tasks.transports import CloudTasksGrpcTransport

    return tasks_v2.CloudTasksClient(
        transport=CloudTasksGrpcTransport(channel=grpc.insecure_channel(host))
    )


CLIENT = "tasks.client"
_client: container.Entry[Any] = container.register(CLIENT, _build_client)


def cloud_task(task: Task) -> Any:
    """The Cloud Tasks ``Task`` message for ``task`` (exposed for tests).

    Built as the plain protobuf message the proto-plus types wrap: the client accepts it, and
    it takes about 5 µs instead of 275 µs, which the dispatcher spends once per due
    subscription (decision 0035)."""
    from google.cloud import tasks_v2
    from google.protobuf import duration_pb2

    settings = get_settings()
    headers = {"Content-Type": "application/json"}
    request = tasks_v2.HttpRequest.pb()(
        http_method=tasks_v2.HttpMethod.POST,
        url=settings.task_worker_url + WORKER_PATH,
        body=json.dumps(task.body()).encode(),
    )
    if settings.internal_auth == "oidc":
        request.oidc_token.service_account_email = settings.tasks_service_account
        request.oidc_token.audience = settings.task_worker_url
    else:
        headers["Authorization"] = f"Bearer {bearer_for_local()}"
    request.headers.update(headers)
    return tasks_v2.Task.pb()(
        name=f"{settings.tasks_queue}/tasks/{task.task_id}",
        http_request=request,
        dispatch_deadline=duration_pb2.Duration(seconds=DISPATCH_DEADLINE_S),
    )


def _create_cloud_task(task: Task) -> Enqueued:
    from google.api_core.exceptions import AlreadyExists, GoogleAPICallError, RetryError

    try:
        _cloud_tasks_client().create_task(
            parent=get_settings().tasks_queue, task=cloud_task(task), timeout=ENQUEUE_TIMEOUT_S
        )
    except AlreadyExists:
        return Enqueued.EXISTS
    except (GoogleAPICallError, RetryError) as exc:
        logger.warning(
            "task not enqueued", extra={"taskId": task.task_id, "error": type(exc).__name__}
        )
        return Enqueued.FAILED
    return Enqueued.CREATED


# --- inline ----------------------------------------------------------------------------------

Runner = Callable[[Task], Any]


class InlineQueue:
    """A bounded queue drained by one daemon thread, for local runs.

    ``runner`` executes one task and raises to ask for a retry (like a non-2xx answer to Cloud
    Tasks). Names already accepted are remembered (bounded LRU), so a second enqueue of the
    same task is a no-op."""

    REMEMBERED = 10_000

    def __init__(self, runner: Runner, size: int, attempts: int, backoff_s: float = 1.0) -> None:
        self._runner = runner
        self._attempts = attempts
        self._backoff_s = backoff_s
        self._queue: queue.Queue[Task] = queue.Queue(maxsize=size)
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="inline-tasks", daemon=True)
        self._thread.start()

    def put(self, task: Task) -> Enqueued:
        with self._lock:
            if task.task_id in self._seen:
                return Enqueued.EXISTS
            try:
                self._queue.put_nowait(task)
            except queue.Full:
                logger.warning("inline task queue is full", extra={"taskId": task.task_id})
                return Enqueued.FAILED
            self._seen[task.task_id] = None
            while len(self._seen) > self.REMEMBERED:
                self._seen.popitem(last=False)
        return Enqueued.CREATED

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Wait until every queued task has finished; False on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._queue.unfinished_tasks == 0:
                return True
            time.sleep(0.02)
        return False

    def _work(self) -> None:
        while True:
            task = self._queue.get()
            try:
                self._run(task)
            finally:
                self._queue.task_done()

    def _run(self, task: Task) -> None:
        for attempt in range(1, self._attempts + 1):
            try:
                self._runner(task)
                return
            except Exception as exc:  # the worker asked for a retry, or failed
                logger.warning(
                    "inline task failed",
                    extra={"taskId": task.task_id, "attempt": attempt, "error": repr(exc)[:300]},
                )
                if attempt < self._attempts:
                    time.sleep(self._backoff_s * 2 ** (attempt - 1))
        logger.error("inline task gave up", extra={"taskId": task.task_id})


_runner: Runner | None = None


def set_runner(runner: Runner) -> None:
    """Name what runs a task of the inline queue (the task worker's ``execute``)."""
    global _runner
    _runner = runner


def inline_queue() -> InlineQueue:
    """The process's inline queue, started on first use. ``container.reset()`` forgets it
    (tests); its thread ends with the process."""
    return _inline.get()


def _build_inline() -> InlineQueue:
    if _runner is None:
        raise RuntimeError(
            "The inline task queue has no runner: the entry point must call "
            "common.adapters.tasks.set_runner first."
        )
    settings = get_settings()
    return InlineQueue(_runner, settings.inline_queue_size, settings.task_max_attempts)


INLINE = "tasks.inline"
_inline: container.Entry[InlineQueue] = container.register(INLINE, _build_inline)


def bearer_for_local() -> str:
    """What a local caller (the make-run ticker, the inline backend's tests) sends."""
    return get_settings().internal_secret
