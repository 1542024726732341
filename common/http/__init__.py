"""The request pipeline: one room, a module per step, its collaborators beside it.

Every endpoint group declares a table of ``Route`` objects (``routes``); ``Api`` serves a table
(``pipeline``) and ``openapi`` documents the same table, so the contract cannot drift from the
code. One request's way through the room:

    pipeline     correlation id -> declared body size (413, before anything is read) ->
                 route match (404/405)
    auth         per-address limit of failed authentication (429, nothing read; edgelimit)
                 -> API key (common.accounts.keys) or portal ID token
                 (common.accounts.consumers) (401/403) -> rate limit (429; ratelimit)
    pipeline     internal caller's token (common.accounts.internal), before the body is read
    body         content type (415) -> body read within BODY_READ_TIMEOUT_S (408, 413)
    pipeline     webhook signature on the raw body (401; webhooks)
    validate     path, query and body against the route's models (400)
    capacity     a slot of the caller's share of the route's pool (503 before the work)
    settle       Idempotency-Key of a keyed POST/PATCH (400; replay, 409 or 422;
                 idempotency) -> handler -> the call settled in one place: usage recorded
                 for a priced route that delivered (common.billing.metering), the key kept
                 or released
    responses    JSON, 204, HTML, a static file or a stream; every error, whatever the step,
                 as RFC 9457 problem+json

The names the groups and entry points use are re-exported here.
"""

from typing import TYPE_CHECKING

from common.http.pipeline import Api, Inputs, perform
from common.http.responses import CORRELATION_HEADER, PROBLEM_JSON, framework_problem, render
from common.http.routes import Auth, Call, Consumer, Html, Reply, Route, Static, Streamed, Tool

if TYPE_CHECKING:
    from common.http.routes import HeaderMap

__all__ = [
    "CORRELATION_HEADER",
    "PROBLEM_JSON",
    "Api",
    "Auth",
    "Call",
    "Consumer",
    "HeaderMap",
    "Html",
    "Inputs",
    "Reply",
    "Route",
    "Static",
    "Streamed",
    "Tool",
    "framework_problem",
    "perform",
    "render",
]
