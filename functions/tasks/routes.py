"""HTTP routes of the tasks group: the public task view, and the internal worker endpoint."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from common.adapters.tasks import WORKER_PATH, Task
from common.http import Auth, Call, Route, Tool
from functions.tasks import records
from functions.tasks.models import TaskPath, TaskView, WorkerResult, WorkerTask

if TYPE_CHECKING:
    from common.accounts.internal import InternalCaller


def get_task(call: Call[None, None, TaskPath]) -> TaskView:
    record = records.get_owned(call.principal.consumer_id, call.path.taskId)
    return view(record)


def view(record: dict[str, Any]) -> TaskView:
    email_state = (record.get("email") or {}).get("state")
    return TaskView(
        taskId=record["id"],
        taskType=record["kind"],
        status=record["status"],
        attempts=record.get("attempts", 0),
        createdAt=record["created_at"],
        updatedAt=record.get("updated_at") or record["created_at"],
        emailed=email_state in ("sent", "assumed_sent"),
        result=_public(record.get("result")),
        error=record.get("error") if record["status"] == "failed" else None,
    )


def _public(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in result.items()}


def run_task(call: Call[WorkerTask, None, None, InternalCaller]) -> WorkerResult:
    from functions.tasks.worker import execute

    body = call.body
    outcome = execute(Task(body.taskId, body.kind, body.payload), call.jobs())
    return WorkerResult(taskId=body.taskId, outcome=outcome)


ROUTES = (
    Route(
        method="GET",
        path="/v1/tasks/{taskId}",
        handler=get_task,
        operation_id="getTask",
        tools=(Tool("get_task", read_only=True, idempotent=True),),
        summary="Show one of your async jobs (legal guidance, tracking runs): status and result",
        tag="Tasks",
        path_params=TaskPath,
        response=TaskView,
    ),
)

WORKER_ROUTES = (
    Route(
        method="POST",
        path=WORKER_PATH,
        handler=run_task,
        operation_id="runTask",
        summary="Run one queued task (Cloud Tasks only)",
        tag="Internal",
        auth=Auth.TASK_QUEUE,
        body=WorkerTask,
        response=WorkerResult,
    ),
)
