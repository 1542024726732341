"""HTTP routes of the legal group."""

from __future__ import annotations

from common.http import Call, Route, Tool
from functions.legal.models import GuidanceRequest, TaskAccepted


def request_guidance(call: Call[GuidanceRequest]) -> TaskAccepted:
    from functions.legal import recognition, service

    body = call.body
    recognition.check(body.prompt, body.situation, body.jurisdiction)  # 422, before any job
    task_id = service.submit(call.principal.consumer_id, body.model_dump())
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
        errors=(422,),
        description="Information, not legal advice. Poll GET /v1/tasks/{taskId} for the guide. "
        "422 activity_not_recognised: the prompt and situation name no activity the guides or "
        "the knowledge base's notes on the law speak to (keyboard mash, paths, code, requests "
        "about something else); 422 jurisdiction_not_recognised: jurisdiction names no place "
        "the service knows (the detail lists them). Neither is billed.",
        warm="functions.legal.recognition:warm",
    ),
)
