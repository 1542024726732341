"""HTTP routes of the system group: health and the OpenAPI document (no authentication)."""

from __future__ import annotations

from common.http import Auth, Call, Route
from functions.system import service
from functions.system.models import Health, OpenApiDocument


def health(call: Call[None, None, None, None]) -> Health:
    return Health.model_validate(service.check_health())


def openapi(call: Call[None, None, None, None]) -> OpenApiDocument:
    return OpenApiDocument(service.openapi_document(call.api_routes()))


ROUTES = (
    Route(
        method="GET",
        path="/health",
        handler=health,
        operation_id="getHealth",
        summary="Service health and version",
        tag="System",
        auth=Auth.NONE,
        response=Health,
        readiness=True,
    ),
    Route(
        method="GET",
        path="/openapi.json",
        handler=openapi,
        operation_id="getOpenApi",
        summary="OpenAPI 3.1 description of the API",
        tag="System",
        auth=Auth.NONE,
        response=OpenApiDocument,
    ),
)
