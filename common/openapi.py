"""OpenAPI 3.1 document generated from the same route table and models that serve requests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from common import idempotency
from common.http import CORRELATION_HEADER, PROBLEM_JSON, Auth, Route

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
    409: "A limit was reached (limit_exceeded), a concurrent change (conflict): retry, or a "
    "request with the same Idempotency-Key is still running (idempotency_key_in_use): retry.",
    410: "The link was already used or has expired.",
    413: "The request body is larger than 1 MiB.",
    415: "The body is not declared as JSON (unsupported_media_type): send "
    "Content-Type: application/json.",
    422: "The Idempotency-Key was used with another request (idempotency_key_reused).",
    429: "Rate limit exceeded.",
    502: "A backend (database, provider) is unreachable, timed out or failed.",
}

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
        "errors": {"type": "array", "items": _FIELD_ERROR},
    },
}


_REPLAYED = {
    "description": "true when this answer is the stored answer of an earlier request with the "
    "same Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}
_SECURITY = {Auth.API_KEY: [{"bearerAuth": []}], Auth.ID_TOKEN: [{"idToken": []}]}


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
    if _idempotent(route):
        statuses |= {400, 409, 422}
    return sorted(statuses)


def _idempotent(route: Route) -> bool:
    return idempotency.applies(route.method, route.auth is Auth.API_KEY)


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
    # Internal operations (scheduler, task queue) are not part of the public contract.
    routes = [route for route in routes if not route.auth.internal]
    models: list[tuple[type[BaseModel], Any]] = []
    for route in routes:
        models += [(m, "validation") for m in (route.body,) if m]
        models += [(m, "serialization") for m in (route.response,) if m]
    refs, definitions = models_json_schema(
        models, ref_template="#/components/schemas/{model}", by_alias=True
    )
    _document_text_rule(routes, refs, definitions.get("$defs", {}))
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, refs)
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
            "schemas": {**definitions.get("$defs", {}), "Problem": PROBLEM_SCHEMA},
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
    refuses them, common.text_safety): their text fields say so with a pattern."""
    from common.text_safety import document_rule

    names: set[str] = set()

    def reach(schema: Any) -> None:
        if isinstance(schema, dict):
            ref = schema.get("$ref", "")
            name = ref.rsplit("/", 1)[-1]
            if ref.startswith("#/components/schemas/") and name in defs and name not in names:
                names.add(name)
                reach(defs[name])
            for value in schema.values():
                reach(value)
        elif isinstance(schema, list):
            for value in schema:
                reach(value)

    for route in routes:
        if route.body and route.auth in (Auth.API_KEY, Auth.ID_TOKEN):
            reach(refs[(route.body, "validation")])
    for name in names:
        document_rule(defs[name])


def _operation(route: Route, refs: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    correlation = {CORRELATION_HEADER: {"$ref": "#/components/headers/CorrelationId"}}
    operation: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "security": _SECURITY.get(route.auth, []),
    }
    if route.description:
        operation["description"] = route.description
    parameters = _parameters(route.path_params, "path") + _parameters(route.query, "query")
    if _idempotent(route):
        parameters.append(IDEMPOTENCY_PARAMETER)
    if parameters:
        operation["parameters"] = parameters
    if route.body:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": refs[(route.body, "validation")]}},
        }
    success: dict[str, Any] = {"description": _STATUS_TEXT[route.status], "headers": correlation}
    if _idempotent(route):
        success["headers"] = {**correlation, idempotency.REPLAYED_HEADER: _REPLAYED}
    if route.response:
        schema = refs[(route.response, "serialization")]
        success["content"] = {"application/json": {"schema": schema}}
    responses = {str(route.status): success}
    for status in error_statuses(route):
        responses[str(status)] = {
            "description": _STATUS_TEXT[status],
            "headers": correlation,
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
    operation["responses"] = responses
    return operation


def _parameters(model: type[BaseModel] | None, where: str) -> list[dict[str, Any]]:
    if model is None:
        return []
    schema = model.model_json_schema(by_alias=True)
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
