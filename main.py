"""Functions Framework entry points. Each hands the request to its group's router, nothing else.

Imports happen inside each entry point, so a function instance loads only the code it serves.
"""

import functions_framework
from flask import Request, Response, request
from werkzeug.exceptions import HTTPException


@functions_framework.errorhandler(HTTPException)
def framework_error(exc: HTTPException) -> Response:
    """Requests the framework itself turns away (a path its router cannot match, such as one
    with a newline in it) get the same problem+json answer as everything else."""
    from common.http import framework_problem

    return framework_problem(exc, request)


@functions_framework.http
def api(request: Request) -> Response:
    """Every route on one port (local runs; also deployable as a single function)."""
    from functions.registry import app

    return app("all")(request)


@functions_framework.http
def health(request: Request) -> Response:
    """GET /health and GET /openapi.json."""
    from functions.registry import app

    return app("system")(request)


@functions_framework.http
def chat(request: Request) -> Response:
    """/v1/chat/*: assistant, intent, summaries, memory."""
    from functions.registry import app

    return app("chat")(request)


@functions_framework.http
def tracking(request: Request) -> Response:
    """/v1/tracking/*: subscriptions and the topic catalog."""
    from functions.registry import app

    return app("tracking")(request)


@functions_framework.http
def webhooks(request: Request) -> Response:
    """POST /webhooks/idp: identity-provider user events."""
    from functions.registry import app

    return app("webhooks")(request)


@functions_framework.http
def portal(request: Request) -> Response:
    """/v1/portal/keys: the developer portal's key management (OIDC ID token)."""
    from functions.registry import app

    return app("portal")(request)


@functions_framework.http
def usage(request: Request) -> Response:
    """GET /v1/usage: the caller's metered usage and cost."""
    from functions.registry import app

    return app("usage")(request)
