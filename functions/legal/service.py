"""Legal guidance jobs: accept the request (202 + a task), write the guide in the worker, email
it to the consumer once, and keep it on the task record for GET /v1/tasks/{taskId}.

The job is billed once the guide is written (kept on the task, emailed or not: what the caller
pays for), in the transaction that finishes the task, so exactly once (decision 0039); the 202
that accepts it is not, nor a job that fails or whose owner was erased. If the queue cannot take
the job, the request fails with 502.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, Field

from common.accounts.consumers import get_consumer
from common.adapters.suppressions import is_suppressed
from common.adapters.tasks import Enqueued, Job, Task, enqueue
from common.errors import BackendUnavailable
from common.language import clip
from functions.tasks import records
from functions.tasks.email_once import email_state, recover, send_once

KIND = "legal.guidance"
OPERATION = "legal.guidance"  # the price table's operation
ESTIMATED_TIME = "1-2 minutes"


class JobPayload(BaseModel):
    ownerId: str = Field(min_length=1, max_length=128)


def submit(consumer_id: str, request: dict[str, Any]) -> str:
    """Store the job and enqueue it; its task id."""
    task_id = f"legal-{uuid.uuid4().hex}"
    records.create(records.new_record(task_id, KIND, consumer_id, payload=request))
    task = Task(task_id, KIND, {"ownerId": consumer_id})
    if enqueue(task) is Enqueued.FAILED:
        records.fail(task_id, "The job could not be queued.")
        raise BackendUnavailable("The job queue is unavailable. Retry shortly.")
    return task_id


def run_guidance(task: Task) -> str:
    from functions.legal.guide import render_guide_email, render_markdown, write_guide
    from functions.legal.notes import find_notes

    owner_id = JobPayload.model_validate(task.payload).ownerId  # invalid: the worker drops it
    record = records.claim(task.task_id, {"kind": KIND, "owner_id": owner_id})
    if record is None:
        return "duplicate"
    owner_id = record["owner_id"]  # the stored owner, never the message's claim

    meter = (owner_id, OPERATION)

    def finish_sent(pending: dict[str, Any], message_id: str | None, assumed: bool) -> None:
        records.finish(
            task.task_id,
            status="succeeded",
            result=pending["result"],
            email=email_state(message_id, assumed),
            meter=meter,
        )

    if record["email"]["state"] == "sending":
        return recover(task.task_id, record, finish_sent)
    request = record.get("payload")
    if not request:  # the owner's data was erased after the job was queued
        records.finish(task.task_id, status="skipped", result={"reason": "erased"})
        return "skipped_erased"
    prompt, situation = request.get("prompt"), request.get("situation")
    jurisdiction = request.get("jurisdiction")
    notes = find_notes(prompt, situation, jurisdiction)  # never raises: no notes then
    guide = write_guide(prompt, situation, request.get("timeline"), jurisdiction, notes)
    result = {"guide": guide.model_dump(), "markdown": render_markdown(guide)}
    records.keep_result(task.task_id, result)  # kept even if the email never goes out
    consumer = get_consumer(owner_id)
    if (
        consumer is None
        or consumer.get("status") != "active"
        or is_suppressed(consumer.get("email") or "")  # the address asked for no email
    ):
        records.finish(task.task_id, status="succeeded", result=result, meter=meter)
        return "written_not_emailed"
    from common.adapters.email import Email

    subject, text, html = render_guide_email(guide, _request_summary(request))
    email = Email(
        to=consumer["email"],
        subject=subject,
        text=text,
        html=html,
        custom_args={"task_id": task.task_id},
        category="legal-guidance",
    )
    return send_once(task.task_id, record, email, {"result": result}, finish_sent)


def _request_summary(request: dict[str, Any]) -> str:
    text = request.get("situation") or request.get("prompt") or ""
    return clip(text, 300)


JOB = Job(KIND, run_guidance)
