"""The email-once protocol that every job sending an email follows (decision 0010).

A job calls ``send_once`` with its task record, the email and what to record once it is sent
(``pending``); ``recover`` is what an attempt does when it finds that an earlier one began
sending and never recorded the outcome; ``email_state`` is the ``email`` field a finished task
stores. The record's state transitions (``none -> sending -> sent``) are in ``records``.

The job modules (tracking runs, recipient confirmations, legal guidance) import this module;
the worker (``functions.tasks.worker``) imports no group: it is handed the job table
(``registry.jobs()``, ``Call.jobs``). Keeping the protocol out of the worker keeps that one-way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from common.errors import Conflict, EmailNotSent, EmailRejected
from functions.tasks import records
from functions.tasks.records import SendStart

logger = logging.getLogger("ars.tasks")

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
    from common.adapters import email as mail

    if record.get("email", {}).get("state") == "sending":
        return recover(task_id, record, finish_sent)
    began, reason = records.begin_send(task_id, pending, guard)
    if began is SendStart.ENDED:
        return "duplicate"
    if began is SendStart.BUSY:
        raise Conflict("Another attempt of this task is sending its email.")
    if began is SendStart.SKIPPED:
        return f"skipped_{reason}"
    try:
        message_id = mail.send(email)
    except EmailRejected as exc:
        records.abort_send(task_id, exc.detail)
        records.fail(task_id, exc.detail)  # sending it again cannot succeed
        return "rejected"
    except EmailNotSent as exc:
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
    state = "assumed_sent" if assumed else "sent"
    return {"state": state, "message_id": message_id, "at": datetime.now(UTC)}
