"""Every endpoint group's routes, for the single-port ``api`` entry point and /openapi.json."""

from __future__ import annotations

from functools import cache

from common.http import Api, Route


def all_routes() -> list[Route]:
    from functions.chat.routes import ROUTES as CHAT
    from functions.portal.routes import ROUTES as PORTAL
    from functions.system.routes import ROUTES as SYSTEM
    from functions.tracking.routes import ROUTES as TRACKING
    from functions.usage.routes import ROUTES as USAGE
    from functions.webhooks.routes import ROUTES as WEBHOOKS

    return [*SYSTEM, *CHAT, *TRACKING, *USAGE, *PORTAL, *WEBHOOKS]


@cache
def app(group: str) -> Api:
    """The dispatcher of one group (``system``, ``tracking``) or of all of them (``all``)."""
    if group == "all":
        return Api(all_routes())
    module = __import__(f"functions.{group}.routes", fromlist=["ROUTES"])
    return Api(module.ROUTES)
