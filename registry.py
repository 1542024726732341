"""Which routes each entry point of ``main.py`` serves, and the dispatcher built for it.

The composition root, beside ``main.py`` (decision 0019): the endpoint groups never import it.
What a group needs from the whole API (every route, for /openapi.json and the assistant's list
of operations) reaches its handlers as ``Call.api_routes``; the job table (``JOBS``: each job
module's own ``common.adapters.tasks.Job``) reaches the task worker as ``Call.jobs``, and the local
inline queue through ``common.adapters.tasks.set_runner``.

A group is an entry point of ``main.py``; ``all`` (the single-port ``api`` entry point of local
runs) serves every public route plus the internal ones, so `make run` also takes the ticker's
dispatch calls.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from common.config import get_settings
from common.http import Api, Route

if TYPE_CHECKING:
    from common.adapters.tasks import Job, Task

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
    "mcp": (("functions.mcp.routes", "ROUTES"),),
    "tracking_dispatch": (("functions.tracking.routes", "DISPATCH_ROUTES"),),
    "task_worker": (("functions.tasks.routes", "WORKER_ROUTES"),),
}


# The jobs the task worker runs: (module, attribute) of each one's common.adapters.tasks.Job, which
# names its own kind. Adding a job: write its function and JOB in its group, list it here.
JOBS: tuple[tuple[str, str], ...] = (
    ("functions.tracking.run", "JOB"),
    ("functions.tracking.dispatch", "JOB"),
    ("functions.tracking.recipients", "JOB"),
    ("functions.legal.service", "JOB"),
)


def routes_of(group: str) -> list[Route]:
    return [
        route for module, name in GROUPS[group] for route in getattr(import_module(module), name)
    ]


@cache
def all_routes() -> tuple[Route, ...]:
    """Every route of the API."""
    return tuple(route for group in GROUPS for route in routes_of(group))


@cache
def jobs() -> dict[str, Callable[[Task], str]]:
    """What runs each kind of task, from ``JOBS`` (imported on first use)."""
    table: dict[str, Callable[[Task], str]] = {}
    for module, name in JOBS:
        job: Job = getattr(import_module(module), name)
        if job.kind in table:
            raise ValueError(f"two jobs of kind {job.kind!r}")
        table[job.kind] = job.run
    return table


def run_task(task: Task) -> str:
    """Run one task (the inline queue of local runs, the admin CLI): the task worker, imported
    on first use, with the job table."""
    from functions.tasks.worker import execute

    return execute(task, jobs())


@cache
def app(group: str) -> Api:
    """The dispatcher of one group (``system``, ``tracking``) or of all of them (``all``)."""
    if get_settings().tasks_backend == "inline":  # tasks run in this process (local runs)
        from common.adapters import tasks

        tasks.set_runner(run_task)
    routes = list(all_routes()) if group == "all" else routes_of(group)
    return Api(routes, api_routes=all_routes, jobs=jobs)
