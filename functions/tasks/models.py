"""Models of the tasks group: the public task view and the worker's internal envelope."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from common.fields import DocumentIdOf, Input

# Also a Firestore document id: "__x__" matches the pattern but is reserved (a 400, not a 502).
TaskId = DocumentIdOf[
    Annotated[str, StringConstraints(min_length=1, max_length=500, pattern=r"^[A-Za-z0-9_-]+$")]
]
Status = Literal["queued", "running", "succeeded", "skipped", "failed"]


class TaskPath(Input):
    taskId: TaskId = Field(description="The taskId returned when the job was accepted.")


class TaskView(BaseModel):
    """An async job of yours: its status and, once it ended, its result."""

    taskId: str
    taskType: str
    status: Status
    attempts: int
    createdAt: datetime
    updatedAt: datetime
    emailed: bool = Field(description="Whether the job's email was sent.")
    result: dict[str, Any] | None = Field(
        None, description="legal.guidance: {guide, markdown}; tracking runs: counts."
    )
    error: str | None = None


class WorkerTask(Input):
    """What Cloud Tasks (or the inline queue) delivers to the task worker."""

    taskId: TaskId
    kind: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    payload: dict[str, Any] = Field(default_factory=dict)


class WorkerResult(BaseModel):
    taskId: str
    outcome: str


class DispatchResult(BaseModel):
    due: int
    enqueued: int
    duplicates: int
    failed: int
    pages: int
    slices: int
    seconds: float
    query_s: float
    enqueue_s: float
    advance_s: float
