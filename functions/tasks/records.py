"""Task records (``tasks/{taskId}``) and the states of the exactly-once email of a job (the
protocol that drives them is ``functions.tasks.email_once``).

A record holds who owns the job (``owner_id``), its ``status`` (queued, running, succeeded,
skipped, failed), its attempts, its result and the state of its one email:

    none --begin_send--> sending --finish(sent)--> sent
                           |  \\--abort_send (the provider refused it)--> none (retried)
                           \\--(crash or ambiguous timeout; the next attempt finds "sending")
                               --finish(assumed)--> assumed_sent

``begin_send`` is a transaction that moves ``none -> sending`` and stores everything needed to
record the send (``pending``) *before* the email goes out, so: two concurrent attempts cannot
both send (only one wins the transaction); a retry after a refused send sends again; and a crash
between sending and recording loses nothing -- an attempt that finds ``sending`` older than the
send timeout allows (``sending_lease_s``) records the send from ``pending`` without sending
again; one that finds a fresh ``sending`` backs off (409) and is retried. The price of never
sending twice is that an email lost in that narrow window (the process died mid-request, or
the provider timed out after accepting or not) is recorded as ``assumed_sent`` rather than
retried; those are logged, and SendGrid's activity feed can be searched by the ``task_id``
custom argument.

``finish`` writes the job's own records (results, ``last_sent_at``, the usage record) and the
terminal status in one transaction, so a job is metered exactly once and only when it finished.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from common.adapters.firestore import TASKS, get_db, run_transaction
from common.config import get_settings
from common.errors import Conflict, NotFound

logger = logging.getLogger("ars.tasks")

TERMINAL = frozenset({"succeeded", "skipped", "failed"})
_NOT_FOUND = "No task with this id belongs to you."


def ref(task_id: str) -> Any:
    return get_db().collection(TASKS).document(task_id)


def new_record(task_id: str, kind: str, owner_id: str, **fields: Any) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {
        "id": task_id,
        "kind": kind,
        "owner_id": owner_id,
        "status": "queued",
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
        "result": None,
        "error": None,
        "email": {"state": "none"},
        "expires_at": now + timedelta(days=get_settings().task_record_ttl_days),
        **fields,
    }


def create(record: dict[str, Any]) -> None:
    ref(record["id"]).create(record)


def get_owned(owner_id: str, task_id: str) -> dict[str, Any]:
    """The caller's own task, or NotFound (also for another consumer's)."""
    if not task_id or len(task_id) > 500 or "/" in task_id:
        raise NotFound(_NOT_FOUND)
    snapshot = ref(task_id).get()
    record = snapshot.to_dict() if snapshot.exists else None
    if record is None or record.get("owner_id") != owner_id:
        raise NotFound(_NOT_FOUND)
    return record


def claim(task_id: str, defaults: dict[str, Any]) -> dict[str, Any] | None:
    """Start an attempt: the record (created from ``defaults`` if missing) now ``running``,
    or None when the task already ended (a duplicate delivery: nothing to do)."""
    from google.cloud.firestore import Increment

    task_ref = ref(task_id)

    def start(transaction: Any) -> dict[str, Any] | None:
        snapshot = task_ref.get(transaction=transaction)
        now = datetime.now(UTC)
        if not snapshot.exists:
            record = {**new_record(task_id, **defaults), "status": "running", "attempts": 1}
            transaction.create(task_ref, record)
            return record
        record = snapshot.to_dict()
        if record["status"] in TERMINAL:
            return None
        transaction.update(
            task_ref, {"status": "running", "attempts": Increment(1), "updated_at": now}
        )
        return {**record, "status": "running", "attempts": record["attempts"] + 1}

    return run_transaction(start)


def sending_lease_s() -> float:
    """How long a ``sending`` state belongs to the attempt that set it. A send is bounded by
    SENDGRID_TIMEOUT_S, so a ``sending`` older than this was left by an attempt that died."""
    return 2 * get_settings().sendgrid_timeout_s + 10


def sending_is_stale(record: dict[str, Any]) -> bool:
    since = (record.get("email") or {}).get("since")
    return since is None or datetime.now(UTC) - since > timedelta(seconds=sending_lease_s())


Guard = Callable[[Any], str | None]


class SendStart(StrEnum):
    """What ``begin_send`` found."""

    BEGUN = "begun"  # this attempt sends the email
    ENDED = "ended"  # the task ended meanwhile: nothing to send
    BUSY = "busy"  # another attempt is sending the email or sent it
    SKIPPED = "skipped"  # the guard gave a reason not to send; the task ended ``skipped``


def begin_send(
    task_id: str, pending: dict[str, Any], guard: Guard | None = None
) -> tuple[SendStart, str | None]:
    """Move the email from ``none`` to ``sending``, storing ``pending``. Returns what it found
    and, for ``SKIPPED``, the reason ``guard(transaction)`` gave not to send (e.g. "the
    subscription was paused or deleted meanwhile"); the task then ends ``skipped``."""
    task_ref = ref(task_id)

    def begin(transaction: Any) -> tuple[SendStart, str | None]:
        record = task_ref.get(transaction=transaction).to_dict() or {}
        if record.get("status") in TERMINAL or not record:
            return SendStart.ENDED, None
        if record.get("email", {}).get("state", "none") != "none":
            return SendStart.BUSY, None
        reason = guard(transaction) if guard is not None else None
        now = datetime.now(UTC)
        if reason:
            transaction.update(
                task_ref,
                {
                    "status": "skipped",
                    "result": {"reason": reason, "sent": False},
                    "updated_at": now,
                },
            )
            return SendStart.SKIPPED, reason
        transaction.update(
            task_ref,
            {"email": {"state": "sending", "since": now}, "pending": pending, "updated_at": now},
        )
        return SendStart.BEGUN, None

    return run_transaction(begin)


def abort_send(task_id: str, error: str) -> None:
    """The provider refused the email: back to ``none`` so a retry sends it -- only if this
    task is still the sending, unfinished one."""
    task_ref = ref(task_id)

    def abort(transaction: Any) -> None:
        record = task_ref.get(transaction=transaction).to_dict() or {}
        if record.get("status") in TERMINAL or record.get("email", {}).get("state") != "sending":
            return
        transaction.update(
            task_ref,
            {"email": {"state": "none"}, "error": error, "updated_at": datetime.now(UTC)},
        )

    run_transaction(abort)


def finish(
    task_id: str,
    *,
    status: str,
    result: dict[str, Any] | None,
    email: dict[str, Any] | None = None,
    meter: tuple[str, str] | None = None,
    unbilled: tuple[str, str] | None = None,
    apply: Callable[[Any], None] | None = None,
) -> bool:
    """End the task in one transaction: ``apply(transaction)`` (the job's own reads, then
    writes), the usage record ``meter=(consumer_id, operation)`` keyed by the task id (or the
    note ``unbilled=(consumer_id, operation)`` of a run that delivered nothing, decision 0039),
    and the terminal status. False if the task had already ended (nothing written)."""
    from google.cloud.firestore import DELETE_FIELD

    from common.billing.metering import unbilled_ref, usage_record, usage_ref

    task_ref = ref(task_id)

    def end(transaction: Any) -> bool:
        record = task_ref.get(transaction=transaction).to_dict()
        if record is None or record["status"] in TERMINAL:
            return False
        if email is None and record.get("email", {}).get("state") == "sending":
            raise Conflict("An attempt of this task is sending its email.")
        if apply is not None:
            apply(transaction)
        if meter is not None:
            transaction.set(usage_ref(task_id), usage_record(*meter))
        if unbilled is not None:
            free = {**usage_record(*unbilled), "cost_micros": 0}
            transaction.set(unbilled_ref(task_id), free)
        updates: dict[str, Any] = {
            "status": status,
            "result": result,
            "error": None,
            "pending": DELETE_FIELD,
            "updated_at": datetime.now(UTC),
        }
        if email is not None:
            updates["email"] = email
        transaction.update(task_ref, updates)
        return True

    return run_transaction(end)


def fail(task_id: str, error: str) -> None:
    """A permanent failure: retrying cannot help (or the last attempt failed), so the task
    ends as ``failed``. A task that already ended, or is sending its email, is left alone."""
    task_ref = ref(task_id)

    def end(transaction: Any) -> None:
        record = task_ref.get(transaction=transaction).to_dict()
        if record is None or record["status"] in TERMINAL:
            return
        if record.get("email", {}).get("state") == "sending":
            return
        transaction.update(
            task_ref, {"status": "failed", "error": error, "updated_at": datetime.now(UTC)}
        )

    run_transaction(end)


def keep_result(task_id: str, result: dict[str, Any]) -> None:
    """Store a job's result before its email goes out, so a failed email loses nothing."""
    ref(task_id).update({"result": result, "updated_at": datetime.now(UTC)})
