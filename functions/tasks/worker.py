"""The task worker: runs one task (a tracking research run, a slice of a fanned-out dispatcher
tick, a recipient confirmation or a legal-guidance job), looked up by its kind in the job table
it is handed (``registry.jobs()``: each job module's own ``JOB``; the worker imports no group).

``execute`` returns the outcome for a task that is done (including one that had already ended,
or that can never succeed) and raises an ``AppError`` for one that should be retried; over HTTP
a raise is a non-2xx answer, which Cloud Tasks retries with backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from pydantic import ValidationError

from common.adapters.tasks import Task
from common.config import get_settings
from common.errors import AppError
from functions.tasks import records

logger = logging.getLogger("ars.tasks")

Handler = Callable[[Task], str]


def execute(task: Task, jobs: Mapping[str, Handler]) -> str:
    """Run ``task`` with the handler ``jobs`` names for its kind."""
    handler = jobs.get(task.kind)
    if handler is None:
        logger.error("unknown task kind", extra={"taskId": task.task_id, "kind": task.kind})
        return "unknown_kind"  # retrying cannot help
    try:
        outcome = handler(task)
    except ValidationError:
        logger.error("invalid task payload", extra={"taskId": task.task_id, "kind": task.kind})
        return "invalid_payload"  # retrying cannot help
    except AppError as exc:
        if not _last_attempt(task.task_id):
            raise
        records.fail(task.task_id, exc.detail)  # the queue gives up after this attempt
        outcome = "failed"
    logger.info("task done", extra={"taskId": task.task_id, "kind": task.kind, "outcome": outcome})
    return outcome


def _last_attempt(task_id: str) -> bool:
    snapshot = records.ref(task_id).get()
    attempts = (snapshot.to_dict() or {}).get("attempts", 0) if snapshot.exists else 0
    return attempts >= get_settings().task_max_attempts
