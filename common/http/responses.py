"""Answers: a handler's result rendered (JSON, 204, HTML, a static file, a stream), and every
error, whatever the step, as RFC 9457 problem+json.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Request, Response
from pydantic import BaseModel

from common import logging as log
from common.errors import AppError, InternalError, InvalidRequest, NotFound, PayloadTooLarge
from common.http.routes import Html, Reply, Static, Streamed

PROBLEM_JSON = "application/problem+json"
CORRELATION_HEADER = "x-correlation-id"
_CORRELATION_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

logger = log.get_logger("ars.http")


def render(status: int, result: BaseModel | Streamed | Html | Static | Reply | None) -> Response:
    if result is None:
        return Response(status=204)
    if isinstance(result, Reply):
        return Response(result.body or None, status=result.status, mimetype=result.mimetype)
    if isinstance(result, Static):
        return Response(result.body, status=status, mimetype=result.mimetype)
    if isinstance(result, Html):
        response = Response(result.body, status=status, mimetype="text/html")
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
        )
        return response
    if isinstance(result, Streamed):
        response = Response(encoded(result.chunks), status=status, mimetype=result.mimetype)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"  # proxies must not hold the stream back
        return response
    body = result.model_dump_json(by_alias=True)
    return Response(body, status=status, mimetype="application/json")


def encoded(chunks: Iterable[str]) -> Iterator[bytes]:
    """The stream's chunks as bytes. Closing this (the server does when the client goes away)
    closes the stream behind it at once, so its ``finally`` (audit, billing, a released
    reservation) runs then, not whenever the garbage collector gets to it."""
    iterator = iter(chunks)
    try:
        for chunk in iterator:
            yield chunk.encode()
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


MAX_ERRORS_LISTED = 20  # a problem lists at most this many field errors (decision 0045)


def problem(exc: AppError, instance: str, correlation_id: str) -> Response:
    body: dict[str, Any] = {
        "type": f"/problems/{exc.code}",
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
        "instance": instance,
        "code": exc.code,
        "correlationId": correlation_id,
    }
    if exc.errors:
        # the first MAX_ERRORS_LISTED, and how many there were: 60,000 unknown fields made an
        # 8 MB answer (issue 27)
        listed = exc.errors[:MAX_ERRORS_LISTED]
        body["errors"] = [{"field": e.field, "message": e.message} for e in listed]
        if len(exc.errors) > len(listed):
            body["errorCount"] = len(exc.errors)
    response = Response(json.dumps(body), status=exc.status, mimetype=PROBLEM_JSON)
    response.headers.update(exc.headers)
    return response


def framework_problem(exc: Any, request: Request) -> Response:
    """problem+json for an error the web framework raised before any route ran."""
    errors: dict[int, AppError] = {
        404: NotFound(f"No operation at {request.path}."),
        413: PayloadTooLarge(),
    }
    error = errors.get(exc.code) or InvalidRequest(str(exc.description or "Bad request."))
    correlation_id = correlation_id_of(request.headers.get(CORRELATION_HEADER))
    response = problem(error, request.path, correlation_id)
    response.headers[CORRELATION_HEADER] = correlation_id
    return response


def unexpected(exc: Exception) -> AppError:
    from common.adapters.firestore import backend_unavailable, is_backend_error

    if is_backend_error(exc):
        logger.warning("backend error: %s", type(exc).__name__, extra={"error": str(exc)[:500]})
        return backend_unavailable(exc)
    logger.exception("unhandled error")
    return InternalError("An unexpected error occurred; it has been logged.")


def correlation_id_of(value: str | None) -> str:
    if value and _CORRELATION_ID.match(value):
        return value
    return str(uuid.uuid4())
