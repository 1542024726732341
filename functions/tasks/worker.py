"""The task worker: runs one task (a tracking research run or a legal-guidance job).

``execute`` returns the outcome for a task that is done (including one that had already ended,
or that can never succeed) and raises an ``AppError`` for one that should be retried; over HTTP
a raise is a non-2xx answer, which Cloud Tasks retries with backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from common.errors import Conflict
from common.tasks import Task
from functions.tasks import records

logger = logging.getLogger("ars.tasks")

Handler = Callable[[Task], str]


def execute(task: Task) -> str:
    handler = _handlers().get(task.kind)
    if handler is None:
        logger.error("unknown task kind", extra={"taskId": task.task_id, "kind": task.kind})
        return "unknown_kind"  # retrying cannot help
    outcome = handler(task)
    logger.info("task done", extra={"taskId": task.task_id, "kind": task.kind, "outcome": outcome})
    return outcome


def _handlers() -> dict[str, Handler]:
    from functions.legal.service import run_guidance
    from functions.tracking.run import run_subscription

    return {"tracking.run": run_subscription, "legal.guidance": run_guidance}


FinishSent = Callable[[dict[str, Any], str | None, bool], None]


def send_once(
    task_id: str,
    record: dict[str, Any],
    email: Any,
    pending: dict[str, Any],
    finish_sent: FinishSent,
) -> str:
    """Send the task's one email at most once and record it (see ``records``).

    ``finish_sent(pending, message_id, assumed)`` records the send; it is also what a later
    attempt calls when it finds that an earlier one may have sent the email."""
    from common import email as mail

    if record.get("email", {}).get("state") == "sending":
        return recover(task_id, record, finish_sent)
    if not records.begin_send(task_id, pending):
        raise Conflict("Another attempt of this task is sending its email.")
    try:
        message_id = mail.send(email)
    except mail.EmailNotSent as exc:
        records.abort_send(task_id, exc.detail)
        raise
    finish_sent(pending, message_id, False)
    return "sent"


def recover(task_id: str, record: dict[str, Any], finish_sent: FinishSent) -> str:
    """An earlier attempt began sending and never recorded the outcome: record it as
    assumed sent, from what that attempt stored, and never send again."""
    logger.warning("email assumed sent after an interrupted attempt", extra={"taskId": task_id})
    finish_sent(record.get("pending") or {}, None, True)
    return "assumed_sent"


def email_state(message_id: str | None, assumed: bool) -> dict[str, Any]:
    from datetime import UTC, datetime

    state = "assumed_sent" if assumed else "sent"
    return {"state": state, "message_id": message_id, "at": datetime.now(UTC)}
