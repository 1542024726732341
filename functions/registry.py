"""Which routes each entry point serves, for ``main.py`` and /openapi.json.

A group is an entry point of ``main.py``; ``all`` (the single-port ``api`` entry point of local
runs) serves every public route plus the internal ones, so `make run` also takes the ticker's
dispatch calls.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from common.http import Api, Route

# entry point -> (module, attribute) of each route table it serves
GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "system": (("functions.system.routes", "ROUTES"),),
    "chat": (("functions.chat.routes", "ROUTES"),),
    "tracking": (("functions.tracking.routes", "ROUTES"), ("functions.tasks.routes", "ROUTES")),
    "legal": (("functions.legal.routes", "ROUTES"),),
    "research": (("functions.research.routes", "ROUTES"),),
    "usage": (("functions.usage.routes", "ROUTES"),),
    "portal": (("functions.portal.routes", "ROUTES"),),
    "webhooks": (("functions.webhooks.routes", "ROUTES"),),
    "tracking_dispatch": (("functions.tracking.routes", "DISPATCH_ROUTES"),),
    "task_worker": (("functions.tasks.routes", "WORKER_ROUTES"),),
}


def routes_of(group: str) -> list[Route]:
    return [
        route for module, name in GROUPS[group] for route in getattr(import_module(module), name)
    ]


def all_routes() -> list[Route]:
    return [route for group in GROUPS for route in routes_of(group)]


@cache
def app(group: str) -> Api:
    """The dispatcher of one group (``system``, ``tracking``) or of all of them (``all``)."""
    return Api(all_routes() if group == "all" else routes_of(group))
