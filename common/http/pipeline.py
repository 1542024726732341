"""The pipeline: ``Api`` serves a table of routes, taking each request through the steps in
the order ``common.http`` lists, each step in its own module of this package.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Request, Response

from common import logging as log
from common.config import get_settings
from common.errors import AppError, MethodNotAllowed, NotFound, Unauthorized
from common.http import capacity, settle, warmup
from common.http.auth import authenticate_limited, bearer
from common.http.body import abandon_body, body_unread, check_declared_length, read_body
from common.http.responses import CORRELATION_HEADER, correlation_id_of, problem, unexpected
from common.http.routes import CALLER_AUTHS, Auth, Call, Consumer, Route
from common.http.validate import validate, validate_json

if TYPE_CHECKING:
    from common.accounts.internal import InternalCaller
    from common.adapters.tasks import Task
    from common.http.routes import HeaderMap

logger = log.get_logger("ars.http")


class Api:
    """A WSGI-level dispatcher for a table of routes (one endpoint group, or all of them)."""

    def __init__(
        self,
        routes: Sequence[Route],
        api_routes: Callable[[], Sequence[Route]] | None = None,
        jobs: Callable[[], Mapping[str, Callable[[Task], str]]] | None = None,
    ) -> None:
        """Serve ``routes``. ``api_routes`` gives every route of the whole API (an entry point
        serves a part of it), handed to handlers as ``Call.api_routes``; by default, ``routes``.
        ``jobs`` gives the job table (``registry.jobs``), handed to handlers as ``Call.jobs``."""
        self.routes = list(routes)
        self._api_routes = api_routes or (lambda: self.routes)
        self._jobs = jobs or dict
        self._compiled = [(route, route.pattern()) for route in self.routes]
        settings = get_settings()
        log.configure(settings.log_level)
        if priced := [r.price for r in self.routes if r.price]:
            from common.billing.pricing import prices

            unknown = set(priced) - set(prices())
            if unknown:
                raise ValueError(f"routes name operations with no price: {sorted(unknown)}")
        if pools := {r.capacity for r in self.routes if r.capacity} - set(capacity.POOLS):
            raise ValueError(f"routes name capacity pools that do not exist: {sorted(pools)}")
        # warmed at start where /health can keep traffic away until it is done
        self._warmers = (
            warmup.start(route.warm for route in self.routes)
            if any(route.readiness for route in self.routes)
            else ()
        )

    def __call__(self, request: Request) -> Response:
        started = time.perf_counter()
        correlation_id = correlation_id_of(request.headers.get(CORRELATION_HEADER))
        tokens: list[tuple[ContextVar[Any], Token[Any]]] = [
            (log.correlation_id_var, log.correlation_id_var.set(correlation_id)),
            (log.trace_var, log.trace_var.set(_trace(request))),
            (log.consumer_id_var, log.consumer_id_var.set(None)),
            (warmup.serving, warmup.serving.set(self._warmers)),
        ]
        route: Route | None = None
        extra_headers: dict[str, str] = {}  # e.g. the rate limit's, on every answer after it
        try:
            try:
                check_declared_length(request)
                route, path_args = self._match(request.method, request.path)
                response = self._handle(route, path_args, request, correlation_id, extra_headers)
            except AppError as exc:
                response = problem(exc, request.path, correlation_id)
            except Exception as exc:
                response = problem(unexpected(exc), request.path, correlation_id)
            if body_unread(request):
                abandon_body(request)
            if request.method == "HEAD":
                response.set_data(b"")
            for name, value in extra_headers.items():
                response.headers.setdefault(name, value)
            response.headers[CORRELATION_HEADER] = correlation_id
            logger.info(
                "request",
                extra={
                    "httpRequest": {
                        "requestMethod": request.method,
                        "requestUrl": request.path,
                        "status": response.status_code,
                        "latency": f"{time.perf_counter() - started:.6f}s",
                    },
                    "route": route.operation_id if route else None,
                },
            )
            return response
        finally:
            for var, token in reversed(tokens):
                var.reset(token)

    def _match(self, method: str, path: str) -> tuple[Route, dict[str, str]]:
        wanted = "GET" if method == "HEAD" else method
        allowed: list[str] = []
        for route, pattern in self._compiled:
            match = pattern.match(path)
            if match is None:
                continue
            if route.method == wanted:
                return route, match.groupdict()
            allowed.append(route.method)
        if allowed:
            raise MethodNotAllowed(sorted(set(allowed)))
        raise NotFound(f"No operation at {path}.")

    def _handle(
        self,
        route: Route,
        path_args: dict[str, str],
        request: Request,
        correlation_id: str,
        extra_headers: dict[str, str],
    ) -> Response:
        principal: Consumer | InternalCaller | str | None = None  # see Caller
        if route.auth in (Auth.API_KEY, Auth.ID_TOKEN):
            # Behind API Gateway the caller's header arrives as X-Forwarded-Authorization (the
            # gateway puts its own identity token in Authorization).
            header = request.headers.get("X-Forwarded-Authorization") or request.headers.get(
                "Authorization"
            )
            try:
                consumer: Consumer = authenticate_limited(route.auth, header, request)
            except Unauthorized as exc:
                if route.resource_metadata:
                    exc.headers["WWW-Authenticate"] += (
                        f', resource_metadata="{public_url(request, route.resource_metadata)}"'
                    )
                raise
            log.consumer_id_var.set(consumer.consumer_id)
            from common.http import ratelimit  # both kinds of caller count against the consumer

            extra_headers.update(ratelimit.admit(consumer).headers())  # or 429
            principal = consumer
        elif route.auth.internal:
            from common.accounts.internal import verify as verify_internal

            principal = verify_internal(
                bearer(request.headers.get("Authorization")), route.auth.value
            )
        signed = route.auth in (Auth.WEBHOOK, Auth.SENDGRID)
        raw = read_body(request) if route.body or route.raw_body or signed else b""
        if signed:  # nothing is parsed before the signature is verified
            from common.http import webhooks

            verify = webhooks.verify if route.auth is Auth.WEBHOOK else webhooks.verify_sendgrid
            principal = verify(raw, request.headers)
        call, response = perform(
            route,
            Inputs(principal, path_args, request.args.to_dict(), raw, request.headers),
            (request.method, request.path, request.query_string),
            correlation_id,
            self._api_routes,
            self._jobs,
        )
        extra_headers.update(call.response_headers)
        return response


@dataclass
class Inputs:
    """What a request gives a route, before validation: its caller (authenticated), path
    parameters, query parameters, raw body and headers."""

    principal: Any
    path: dict[str, str]
    query: dict[str, Any]
    raw: bytes
    headers: HeaderMap


def perform(
    route: Route,
    inputs: Inputs,
    target: tuple[str, str, bytes],
    correlation_id: str,
    api_routes: Callable[[], Sequence[Route]],
    jobs: Callable[[], Mapping[str, Callable[[Task], str]]],
) -> tuple[Call[Any, Any, Any, Any], Response]:
    """The rest of the way, once the caller is known: path, query and body validated against
    the route's models (400), a capacity slot of the caller's share (503 before the work
    starts; a stream holds it until it ends), then the handler run and the call settled
    (``settle``). Also how a tool of the MCP server runs its route
    (``functions.mcp``): the same validation, capacity, Idempotency-Key and billing."""
    call: Call[Any, Any, Any, Any] = Call(
        principal=inputs.principal,
        path=validate(route.path_params, inputs.path, "path") if route.path_params else None,
        query=validate(route.query, inputs.query, "query") if route.query else None,
        body=validate_json(route.body, inputs.raw, check_text=route.auth in CALLER_AUTHS)
        if route.body
        else None,
        correlation_id=correlation_id,
        headers=inputs.headers,
        api_routes=api_routes,
        jobs=jobs,
        raw=inputs.raw,
    )
    who = getattr(inputs.principal, "consumer_id", None) or "internal"
    slot = capacity.take(_pool_of(route, inputs.headers), who)  # or 503 before the work starts
    try:
        response = settle.run(route, call, target, inputs.raw)
    except BaseException:
        slot.release()
        raise
    if response.is_streamed:  # the stream holds its slot until it ends or is closed
        response.call_on_close(slot.release)
        response.response = _releasing(response.response, slot)
    else:
        slot.release()
    return call, response


def _pool_of(route: Route, headers: HeaderMap) -> str | None:
    """The route's capacity pool; a route that streams when asked to (chat, content) takes
    a stream's slot when it is asked to."""
    if route.capacity is None and route.stream and route.stream in headers.get("Accept", ""):
        return "streams"
    return route.capacity


def _releasing(chunks: Iterable[Any], slot: capacity.Slot) -> Iterator[Any]:
    """``chunks``, the slot given back when they end, fail or are closed (a client gone)."""
    try:
        yield from chunks
    finally:
        slot.release()


def public_url(request: Request, path: str) -> str:
    """``path`` as callers reach it: under ``PUBLIC_BASE_URL`` (behind API Gateway the
    request's own host is the function's), else under the request's own root (local runs)."""
    base = get_settings().public_base_url or request.url_root
    return base.rstrip("/") + path


def _trace(request: Request) -> str | None:
    header = request.headers.get("X-Cloud-Trace-Context")
    if not header:
        return None
    trace_id = header.split("/", 1)[0]
    if not re.fullmatch(r"[0-9a-fA-F]{32}", trace_id):
        return None
    return f"projects/{get_settings().google_cloud_project}/traces/{trace_id}"
