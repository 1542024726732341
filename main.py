"""Functions Framework entry points. Each hands the request to its group's router, nothing else.

Imports happen inside each call, so a function instance loads only the code it serves.
"""

import functions_framework
from flask import Request, Response, request
from werkzeug.exceptions import HTTPException


def _serve(group: str, incoming: Request) -> Response:
    from registry import app

    return app(group)(incoming)


@functions_framework.errorhandler(HTTPException)
def framework_error(exc: HTTPException) -> Response:
    """Requests the framework itself turns away (a path its router cannot match, such as one
    with a newline in it) get the same problem+json answer as everything else."""
    from common.http import framework_problem

    return framework_problem(exc, request)


@functions_framework.http
def api(request: Request) -> Response:
    """Every route on one port (local runs; also deployable as a single function)."""
    return _serve("all", request)


@functions_framework.http
def health(request: Request) -> Response:
    """GET /health and GET /openapi.json."""
    return _serve("system", request)


@functions_framework.http
def chat(request: Request) -> Response:
    """/v1/chat/*: assistant, intent, summaries, memory."""
    return _serve("chat", request)


@functions_framework.http
def tracking(request: Request) -> Response:
    """/v1/tracking/*: subscriptions and the topic catalog."""
    return _serve("tracking", request)


@functions_framework.http
def usage(request: Request) -> Response:
    """GET /v1/usage: the caller's metered usage and cost."""
    return _serve("usage", request)


@functions_framework.http
def webhooks(request: Request) -> Response:
    """POST /webhooks/idp: identity-provider user events."""
    return _serve("webhooks", request)


@functions_framework.http
def mcp(request: Request) -> Response:
    """POST /mcp: the MCP server, the API's operations as tools for AI assistants."""
    return _serve("mcp", request)


@functions_framework.http
def portal(request: Request) -> Response:
    """/v1/portal/keys: the developer portal's key management (OIDC ID token)."""
    return _serve("portal", request)


@functions_framework.http
def legal(request: Request) -> Response:
    """POST /v1/legal/guidance: an async legal-information job (202 + task)."""
    return _serve("legal", request)


@functions_framework.http
def research(request: Request) -> Response:
    """POST /v1/research/topics: news research streamed as NDJSON."""
    return _serve("research", request)


@functions_framework.http
def search(request: Request) -> Response:
    """POST /v1/search and /v1/search/{table}: the tables, by words and by meaning."""
    return _serve("search", request)


@functions_framework.http
def knowledge(request: Request) -> Response:
    """POST /v1/knowledge/search: passages of the knowledge corpus."""
    return _serve("knowledge", request)


@functions_framework.http
def content(request: Request) -> Response:
    """POST /v1/content/generate: campaign drafts grounded in the knowledge corpus."""
    return _serve("content", request)


@functions_framework.http
def osint(request: Request) -> Response:
    """/v1/osint/*: person and company profiles (NDJSON) and the caller's audit log."""
    return _serve("osint", request)


@functions_framework.http
def tracking_dispatch(request: Request) -> Response:
    """Internal, Cloud Scheduler: enqueue a run for every due subscription."""
    return _serve("tracking_dispatch", request)


@functions_framework.http
def task_worker(request: Request) -> Response:
    """Internal, Cloud Tasks: run one task (a tracking run or a legal-guidance job)."""
    return _serve("task_worker", request)
