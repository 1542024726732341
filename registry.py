"""Which routes each entry point of ``main.py`` serves, and the dispatcher built for it.

The composition root, beside ``main.py`` (decision 0019): the endpoint groups never import it.
What a group needs from the whole API (every route, for /openapi.json and the assistant's list
of operations) reaches its handlers as ``Call.api_routes``, and the task worker reaches the
local inline queue through ``common.tasks.set_runner``.

A group is an entry point of ``main.py``; ``all`` (the single-port ``api`` entry point of local
runs) serves every public route plus the internal ones, so `make run` also takes the ticker's
dispatch calls.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from common.config import get_settings
from common.http import Api, Route

if TYPE_CHECKING:
    from common.tasks import Task

# entry point -> (module, attribute) of each route table it serves
GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "system": (("functions.system.routes", "ROUTES"),),
    "chat": (("functions.chat.routes", "ROUTES"),),
    "tracking": (("functions.tracking.routes", "ROUTES"), ("functions.tasks.routes", "ROUTES")),
    "legal": (("functions.legal.routes", "ROUTES"),),
    "research": (("functions.research.routes", "ROUTES"),),
    "search": (("functions.search.routes", "ROUTES"),),
    "knowledge": (("functions.knowledge.routes", "ROUTES"),),
    "content": (("functions.content.routes", "ROUTES"),),
    "osint": (("functions.osint.routes", "ROUTES"),),
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


@cache
def all_routes() -> tuple[Route, ...]:
    """Every route of the API."""
    return tuple(route for group in GROUPS for route in routes_of(group))


def run_task(task: Task) -> str:
    """Run one task of the inline queue (local runs): the task worker, imported on first use."""
    from functions.tasks.worker import execute

    return execute(task)


@cache
def app(group: str) -> Api:
    """The dispatcher of one group (``system``, ``tracking``) or of all of them (``all``)."""
    if get_settings().tasks_backend == "inline":  # tasks run in this process (local runs)
        from common import tasks

        tasks.set_runner(run_task)
    return Api(list(all_routes()) if group == "all" else routes_of(group), api_routes=all_routes)
