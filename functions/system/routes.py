"""HTTP routes of the system group: health and the OpenAPI document (no authentication)."""

from __future__ import annotations

from common.http import Auth, Call, Route
from functions.system import service
from functions.system.models import Health, OpenApiDocument


def health(call: Call) -> Health:
    return Health.model_validate(service.check_health())


def openapi(call: Call) -> OpenApiDocument:
    return OpenApiDocument(service.openapi_document(call.api_routes()))


ROUTES = [
    Route("GET", "/health", health, "getHealth", "Service health and version", "System",
          auth=Auth.NONE, response=Health),
    Route("GET", "/openapi.json", openapi, "getOpenApi", "OpenAPI 3.1 description of the API",
          "System", auth=Auth.NONE, response=OpenApiDocument),
]  # fmt: skip
