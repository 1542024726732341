"""HTTP routes of the legal group."""

from __future__ import annotations

from common.http import Call, Route, Tool
from functions.legal.models import GuidanceRequest, TaskAccepted


def request_guidance(call: Call[GuidanceRequest]) -> TaskAccepted:
    from functions.legal import service

    task_id = service.submit(call.principal.consumer_id, call.body.model_dump())
    call.billed_by_job = True  # billed by the job once the guide is written (decision 0039)
    return TaskAccepted(
        taskId=task_id,
        message="Your legal guidance is being written; it will be emailed to you and shown "
        f"at GET /v1/tasks/{task_id}.",
        estimatedTime=service.ESTIMATED_TIME,
        taskType=service.KIND,
    )


ROUTES = (
    Route(
        method="POST",
        path="/v1/legal/guidance",
        handler=request_guidance,
        operation_id="requestLegalGuidance",
        tools=(Tool("request_legal_guidance"),),
        summary="Ask for general legal information on an advocacy activity (async, emailed)",
        tag="Legal",
        body=GuidanceRequest,
        response=TaskAccepted,
        status=202,
        price="legal.guidance",
        description="Information, not legal advice. Poll GET /v1/tasks/{taskId} for the guide.",
    ),
)
