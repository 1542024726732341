"""The task worker: runs one task (a tracking research run or a legal-guidance job).

``execute`` returns the outcome for a task that is done (including one that had already ended,
or that can never succeed) and raises an ``AppError`` for one that should be retried; over HTTP
a raise is a non-2xx answer, which Cloud Tasks retries with backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from common.config import get_settings
from common.errors import AppError, Conflict
from common.tasks import Task
from functions.tasks import records

logger = logging.getLogger("ars.tasks")

Handler = Callable[[Task], str]


def execute(task: Task) -> str:
    handler = _handlers().get(task.kind)
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


def _handlers() -> dict[str, Handler]:
    from functions.legal.service import run_guidance
    from functions.tracking.recipients import run_confirmation
    from functions.tracking.run import run_subscription

    return {
        "tracking.run": run_subscription,
        "legal.guidance": run_guidance,
        "recipient.confirm": run_confirmation,
    }


FinishSent = Callable[[dict[str, Any], str | None, bool], None]


def send_once(
    task_id: str,
    record: dict[str, Any],
    email: Any,
    pending: dict[str, Any],
    finish_sent: FinishSent,
    guard: records.Guard | None = None,
) -> str:
    """Send the task's one email at most once and record it (see ``records``).

    ``finish_sent(pending, message_id, assumed)`` records the send; it is also what a later
    attempt calls when it finds that an earlier one may have sent the email. ``guard`` is
    checked in the transaction that begins the send (see ``records.begin_send``)."""
    from common import email as mail

    if record.get("email", {}).get("state") == "sending":
        return recover(task_id, record, finish_sent)
    began = records.begin_send(task_id, pending, guard)
    if began == "ended":
        return "duplicate"
    if began == "busy":
        raise Conflict("Another attempt of this task is sending its email.")
    if began.startswith("skipped:"):
        return "skipped_" + began.removeprefix("skipped:")
    try:
        message_id = mail.send(email)
    except mail.EmailRejected as exc:
        records.abort_send(task_id, exc.detail)
        records.fail(task_id, exc.detail)  # sending it again cannot succeed
        return "rejected"
    except mail.EmailNotSent as exc:
        records.abort_send(task_id, exc.detail)
        raise
    finish_sent(pending, message_id, False)
    return "sent"


def recover(task_id: str, record: dict[str, Any], finish_sent: FinishSent) -> str:
    """An earlier attempt began sending and never recorded the outcome. While that attempt
    may still be sending, back off (409, retried); once its send must have ended, record the
    email as assumed sent, from what that attempt stored, and never send again."""
    if not records.sending_is_stale(record):
        raise Conflict("Another attempt of this task is sending its email; retry later.")
    logger.warning("email assumed sent after an interrupted attempt", extra={"taskId": task_id})
    finish_sent(record.get("pending") or {}, None, True)
    return "assumed_sent"


def email_state(message_id: str | None, assumed: bool) -> dict[str, Any]:
    from datetime import UTC, datetime

    state = "assumed_sent" if assumed else "sent"
    return {"state": state, "message_id": message_id, "at": datetime.now(UTC)}
