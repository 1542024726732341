"""Functions Framework entry points. Each hands the request to its group's router, nothing else.

Imports happen inside each entry point, so a function instance loads only the code it serves.
"""

import functions_framework
from flask import Request, Response


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
def tracking(request: Request) -> Response:
    """/v1/tracking/*: subscriptions and the topic catalog."""
    from functions.registry import app

    return app("tracking")(request)
