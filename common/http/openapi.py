"""OpenAPI 3.1 document generated from the same route table and models that serve requests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from common.config import get_settings
from common.http import CORRELATION_HEADER, PROBLEM_JSON, Auth, Route, idempotency, streams
from common.http.responses import MAX_ERRORS_LISTED

_SCHEMAS = "#/components/schemas/"
_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    400: "Invalid request: malformed JSON, wrong type, unknown field or a bound violated.",
    401: "Missing or invalid API key.",
    403: "Signed in, but no active API account (code not_provisioned) or a disabled one.",
    404: "No such resource, or it belongs to someone else.",
    408: "The request body did not arrive in time (request_timeout).",
    409: "A limit was reached (limit_exceeded), the resource's state does not allow the change "
    "(conflict), or a request with the same Idempotency-Key is still running "
    "(idempotency_key_in_use): retry.",
    410: "The link was already used or has expired.",
    415: "The body is not declared as JSON (unsupported_media_type): send "
    "Content-Type: application/json.",
    422: "The Idempotency-Key was used with another request (idempotency_key_reused).",
    429: "Rate limit exceeded.",
    502: "A backend (database, provider) is unreachable, timed out or failed.",
    503: "This instance is running as many searches as it can, or other requests were changing "
    "the same records until this one's deadline (overloaded): nothing was done or billed; retry "
    "after Retry-After.",
}


def _status_text(status: int) -> str:
    if status == 413:  # the limit is a setting (MAX_BODY_BYTES)
        return f"The request body is larger than {_size(get_settings().max_body_bytes)}."
    return _STATUS_TEXT[status]


def _size(size: int) -> str:
    """1048576 -> '1 MiB', 65536 -> '64 KiB', 1000 -> '1000 bytes'."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


_FIELD_ERROR = {
    "type": "object",
    "required": ["field", "message"],
    "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
}
PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "required": ["type", "title", "status", "detail", "instance", "code", "correlationId"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "code": {
            "type": "string",
            "description": "Stable machine-readable error code.",
            "examples": ["invalid_request", "unauthorized", "not_found"],
        },
        "correlationId": {"type": "string"},
        "errors": {"type": "array", "items": _FIELD_ERROR, "maxItems": MAX_ERRORS_LISTED},
        "errorCount": {
            "type": "integer",
            "description": "How many field errors there were, when more than "
            f"{MAX_ERRORS_LISTED} (the first {MAX_ERRORS_LISTED} are listed).",
        },
    },
}


_REPLAYED = {
    "description": "true when this answer is the stored answer of an earlier request with the "
    "same Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}
_SECURITY: dict[Auth, list[dict[str, list[str]]]] = {
    Auth.API_KEY: [{"bearerAuth": []}],
    Auth.ID_TOKEN: [{"idToken": []}],
}


def error_statuses(route: Route) -> list[int]:
    """The error statuses the pipeline itself can answer for a route, plus the route's own."""
    statuses = {502, *route.errors}
    by_auth = {
        Auth.API_KEY: {401, 429},
        Auth.ID_TOKEN: {401, 403, 429},
        Auth.WEBHOOK: {401},
        Auth.SENDGRID: {401},
    }
    statuses |= by_auth.get(route.auth, set())
    if route.body or route.query or route.path_params:
        statuses.add(400)
    if route.body:  # not received in time, too large, not JSON
        statuses |= {408, 413, 415}
    if route.path_params:
        statuses.add(404)
    if route.capacity or route.stream:  # a stream takes a slot (decision 0065)
        statuses.add(503)
    if _idempotent(route):
        statuses |= {400, 409, 422}
    return sorted(statuses)


def _idempotent(route: Route) -> bool:
    return idempotency.applies(route.method, route.auth in (Auth.API_KEY, Auth.ID_TOKEN))


IDEMPOTENCY_PARAMETER: dict[str, Any] = {
    "name": idempotency.HEADER,
    "in": "header",
    "required": False,
    "description": "Makes a retry safe: the same key with the same request within 24 hours "
    "replays the first 2xx answer (with Idempotent-Replayed: true) and is billed once; with "
    "another request it is 422, while the first still runs 409. Keys are per consumer. "
    "Streamed answers are not replayed.",
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": idempotency.MAX_LENGTH,
        "pattern": idempotency.PATTERN,
    },
}


def build_openapi(routes: Sequence[Route], *, version: str) -> dict[str, Any]:
    # Internal operations (scheduler, task queue) are not part of the public contract, nor are
    # the developer portal's static files.
    routes = [route for route in routes if not route.auth.internal and route.documented]
    # One schema generation for every model, parameters' included: the definitions their
    # fields refer to (enums, nested models) land in components, under names that never clash.
    models: list[tuple[type[BaseModel], Any]] = []
    for route in routes:
        models += [(m, "validation") for m in (route.body, route.query, route.path_params) if m]
        models += [(m, "serialization") for m in (route.response, *route.events) if m]
    refs, definitions = models_json_schema(models, ref_template=_SCHEMAS + "{model}", by_alias=True)
    defs = definitions.get("$defs", {})
    _document_text_rule(routes, refs, defs)
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, refs, defs)
    # A parameter model is spread into parameters: its own schema is published only if
    # something refers to it.
    schemas = {name: defs[name] for name in _referenced(paths, defs)}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Advocacy Research Service API",
            "version": version,
            "description": "Research, content, legal information, chat and tracking digests "
            "for animal-advocacy organisations. Errors are RFC 9457 problem details; every "
            f"response carries `{CORRELATION_HEADER}`.",
        },
        "paths": paths,
        "components": {
            "schemas": {**schemas, "Problem": PROBLEM_SCHEMA},
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "API key: ars_live_ followed by 38 characters.",
                },
                "idToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "The identity provider's OIDC ID token (developer portal).",
                },
            },
            "headers": {
                "CorrelationId": {
                    "description": "Traces the request; echoes a valid caller value.",
                    "schema": {"type": "string"},
                }
            },
        },
    }


def _document_text_rule(
    routes: Sequence[Route], refs: dict[Any, dict[str, Any]], defs: dict[str, Any]
) -> None:
    """The bodies of callers' routes may not carry control or bidi characters (the pipeline
    refuses them, common.language.safety): their text fields say so with a pattern."""
    from common.language.safety import document_rule

    bodies = [
        refs[(route.body, "validation")]
        for route in routes
        if route.body and route.auth in (Auth.API_KEY, Auth.ID_TOKEN)
    ]
    for name in _referenced(bodies, defs):
        document_rule(defs[name])


def _referenced(node: Any, defs: dict[str, Any]) -> list[str]:
    """The names of the definitions ``node`` refers to, directly or through other definitions,
    in the order of ``defs``."""
    found: set[str] = set()
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            name = _schema_name(item.get("$ref"))
            if name in defs and name not in found:
                found.add(name)
                pending.append(defs[name])
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return [name for name in defs if name in found]


def _schema_name(ref: Any) -> str | None:
    return ref.removeprefix(_SCHEMAS) if isinstance(ref, str) and ref.startswith(_SCHEMAS) else None


def _operation(
    route: Route, refs: dict[Any, dict[str, Any]], defs: dict[str, Any]
) -> dict[str, Any]:
    correlation = {CORRELATION_HEADER: {"$ref": "#/components/headers/CorrelationId"}}
    operation: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "security": _SECURITY.get(route.auth, []),
    }
    if route.description:
        operation["description"] = route.description
    parameters = [
        *_parameters(route.path_params, "path", refs, defs),
        *_parameters(route.query, "query", refs, defs),
    ]
    if _idempotent(route):
        parameters.append(IDEMPOTENCY_PARAMETER)
    if parameters:
        operation["parameters"] = parameters
    if route.body:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": refs[(route.body, "validation")]}},
        }
    success: dict[str, Any] = {"description": _status_text(route.status), "headers": correlation}
    if _idempotent(route):
        success["headers"] = {**correlation, idempotency.REPLAYED_HEADER: _REPLAYED}
    if route.response:
        schema = refs[(route.response, "serialization")]
        success["content"] = {"application/json": {"schema": schema}}
    if route.stream:
        success.setdefault("content", {})[route.stream] = _stream_content(route, refs)
    responses = {str(route.status): success}
    for status in error_statuses(route):
        responses[str(status)] = {
            "description": _status_text(status),
            "headers": correlation,
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
    operation["responses"] = responses
    return operation


def _stream_content(route: Route, refs: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    """A stream's events (OpenAPI 3.1 has no schema for the items of a stream: the extension
    ``x-itemSchema`` carries what 3.2's ``itemSchema`` will), each a component schema."""
    events = [refs[(model, "serialization")] for model in route.events]
    return {
        "x-itemSchema": {
            "description": streams.schema_note(route.stream or ""),
            "oneOf": events,
            "discriminator": {"propertyName": "type"},
        }
    }


def _parameters(
    model: type[BaseModel] | None,
    where: str,
    refs: dict[Any, dict[str, Any]],
    defs: dict[str, Any],
) -> list[dict[str, Any]]:
    """One parameter per field of ``model``; their schemas refer to ``defs`` (components)."""
    if model is None:
        return []
    schema = defs[refs[(model, "validation")]["$ref"].removeprefix(_SCHEMAS)]
    required = set(schema.get("required", []))
    return [
        {
            "name": name,
            "in": where,
            "required": where == "path" or name in required,
            "schema": {k: v for k, v in prop.items() if k != "title"},
            **({"description": prop["description"]} if "description" in prop else {}),
        }
        for name, prop in schema.get("properties", {}).items()
    ]
