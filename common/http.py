"""The request pipeline, in one place.

Every endpoint group declares a table of ``Route`` objects; ``Api`` serves a table and
``common.openapi`` documents the same table, so the contract cannot drift from the code.

Order of the steps for each request:
    correlation id -> declared body size (413, before anything is read) -> route match
    (404/405) -> per-address limit of failed authentication (429, nothing read; see
    common.edgelimit) -> authentication (401/403) -> rate limit (429) -> content type (415) -> body,
    read within BODY_READ_TIMEOUT_S (408, 413) -> webhook signature (401) and validation (400)
    -> Idempotency-Key of a keyed POST/PATCH (400; replay, 409 or 422; see common.idempotency)
    -> handler
    -> metering (priced routes, 2xx only) -> response (JSON, 204, or a stream)
Every error, whatever the step, is rendered here as RFC 9457 problem+json.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias

from flask import Request, Response
from pydantic import BaseModel, ValidationError
from typing_extensions import TypeVar  # typing's TypeVar takes a default from Python 3.13

from common import logging as log
from common.config import get_settings
from common.errors import (
    AppError,
    FieldError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    RequestTimeout,
    Unauthorized,
    UnsupportedMediaType,
)

if TYPE_CHECKING:
    from werkzeug.datastructures import Headers

    from common.consumers import PortalUser
    from common.idempotency import Reservation
    from common.internal import InternalCaller
    from common.keys import Principal
    from common.tasks import Task

    # A request's headers: werkzeug's (case-insensitive) in the pipeline, a dict in tests.
    HeaderMap: TypeAlias = Headers | Mapping[str, str]

PROBLEM_JSON = "application/problem+json"
CORRELATION_HEADER = "x-correlation-id"
_CORRELATION_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_PATH_PARAM = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")

logger = log.get_logger("ars.http")


class Auth(StrEnum):
    NONE = "none"
    API_KEY = "api_key"  # Authorization: Bearer ars_live_...
    ID_TOKEN = "id_token"  # noqa: S105 - Authorization: Bearer <the IdP's OIDC ID token> (portal)
    WEBHOOK = "webhook"  # Standard Webhooks signature over the raw body
    SENDGRID = "sendgrid"  # SendGrid's signed Event Webhook (ECDSA) over the raw body
    # Internal callers: a Google OIDC token for this function's own URL (local: shared secret)
    SCHEDULER = "scheduler"  # Cloud Scheduler -> tracking_dispatch (TRACKING_DISPATCH_URL)
    TASK_QUEUE = "task_queue"  # Cloud Tasks -> task_worker (TASK_WORKER_URL)

    @property
    def internal(self) -> bool:
        return self in (Auth.SCHEDULER, Auth.TASK_QUEUE)


_CALLERS = (Auth.API_KEY, Auth.ID_TOKEN)  # routes whose bodies are people's text


class Consumer(Protocol):
    """Who calls an ``Auth.API_KEY`` route (``common.keys.Principal``) or an ``Auth.ID_TOKEN``
    one (``common.consumers.PortalUser``, which has no key)."""

    @property
    def consumer_id(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def plan(self) -> str: ...
    @property
    def key_id(self) -> str | None: ...
    @property
    def rate_limit(self) -> tuple[int, int] | None: ...


# The types of a handler's inputs (decision 0023): ``Call[Body, Query, Path, Caller]``, each
# model None when the route has none; the caller is a Consumer unless the route's auth says
# otherwise (None for Auth.NONE, the message id for Auth.WEBHOOK, an InternalCaller...).
Body = TypeVar("Body", bound=BaseModel | None, default=None)
Query = TypeVar("Query", bound=BaseModel | None, default=None)
Path = TypeVar("Path", bound=BaseModel | None, default=None)
Caller = TypeVar("Caller", default=Consumer)
# The same for Route, without defaults: a bare ``Route`` is any route.
_B = TypeVar("_B", bound=BaseModel | None)
_Q = TypeVar("_Q", bound=BaseModel | None)
_P = TypeVar("_P", bound=BaseModel | None)
_C = TypeVar("_C")


@dataclass(frozen=True)
class Route(Generic[_B, _Q, _P, _C]):
    """One operation: what it accepts, who may call it, what it answers and what it costs.

    Generic so that the type checker matches ``body``, ``query`` and ``path_params`` with the
    ``Call`` the handler declares; a bare ``Route`` (a table, ``Sequence[Route]``) is any route.
    """

    method: str
    path: str
    handler: Callable[[Call[_B, _Q, _P, _C]], BaseModel | Streamed | Html | Static | None]
    operation_id: str
    summary: str
    tag: str
    auth: Auth = Auth.API_KEY
    body: type[_B] | None = None
    query: type[_Q] | None = None
    path_params: type[_P] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    price: str | None = None  # operation name in the price table; None: free, not metered
    errors: tuple[int, ...] = ()  # statuses beyond those the pipeline itself can answer
    description: str = ""
    documented: bool = True  # False: left out of /openapi.json (the portal's static files)

    def pattern(self) -> re.Pattern[str]:
        parts = _PATH_PARAM.split(self.path)  # literal, name, literal, name, ..., literal
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
        )
        return re.compile(f"^{regex}$")


@dataclass
class Call(Generic[Body, Query, Path, Caller]):
    """What a handler receives: the validated inputs and who is asking.

    A handler declares what its route validates, e.g. ``Call[SubscriptionCreate]`` (a body),
    ``Call[None, ListQuery]``, ``Call[SubscriptionPatch, None, SubscriptionPath]``,
    ``Call[None, None, None, None]`` (a public route: no caller)."""

    principal: Caller
    body: Body  # each None exactly when the route declares no model for it
    query: Query
    path: Path
    correlation_id: str = ""
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    headers: HeaderMap = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)  # set by the handler
    # Every route of the whole API, not only this entry point's (see Api): for /openapi.json and
    # the assistant's list of operations. The registry provides it; the groups never import it.
    api_routes: Callable[[], Sequence[Route]] = field(default=lambda: ())
    # What runs each kind of task (registry.jobs), for the task worker's route.
    jobs: Callable[[], Mapping[str, Callable[[Task], str]]] = field(default=lambda: {})
    # A handler whose answer did no work for the caller (nothing found, nothing drafted) sets
    # this False: a priced route then records no usage for the request.
    billed: bool = True


@dataclass
class Streamed:
    """A handler's streamed answer (server-sent events, NDJSON): chunks sent as produced.

    A priced stream is metered after its last chunk, and only if the producer did not set
    ``failed`` (e.g. after sending an error event); a stream the client abandons is not billed.
    """

    chunks: Iterable[str]
    mimetype: str
    failed: bool = False


@dataclass
class Html:
    """A small HTML page (e.g. the pause-link confirmation a person sees in a browser)."""

    body: str


@dataclass
class Static:
    """A static file of the developer portal (HTML, JS, CSS): sent as it is, with the headers
    its handler sets (Content-Security-Policy, caching) in ``Call.response_headers``."""

    body: bytes
    mimetype: str


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
            from common.pricing import prices

            unknown = set(priced) - set(prices())
            if unknown:
                raise ValueError(f"routes name operations with no price: {sorted(unknown)}")

    def __call__(self, request: Request) -> Response:
        started = time.perf_counter()
        correlation_id = _correlation_id(request.headers.get(CORRELATION_HEADER))
        tokens = [
            (log.correlation_id_var, log.correlation_id_var.set(correlation_id)),
            (log.trace_var, log.trace_var.set(_trace(request))),
            (log.consumer_id_var, log.consumer_id_var.set(None)),
        ]
        route: Route | None = None
        extra_headers: dict[str, str] = {}  # e.g. the rate limit's, on every answer after it
        try:
            try:
                _check_declared_length(request)
                route, path_args = self._match(request.method, request.path)
                response = self._handle(route, path_args, request, correlation_id, extra_headers)
            except AppError as exc:
                response = problem(exc, request.path, correlation_id)
            except Exception as exc:
                response = problem(_unexpected(exc), request.path, correlation_id)
            if _body_unread(request):
                _abandon_body(request)
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
            consumer: Consumer = _authenticate_limited(route.auth, header, request)
            log.consumer_id_var.set(consumer.consumer_id)
            from common import ratelimit  # both kinds of caller count against the consumer

            extra_headers.update(ratelimit.admit(consumer).headers())  # or 429
            principal = consumer
        elif route.auth.internal:
            from common.internal import verify as verify_internal

            principal = verify_internal(
                _bearer(request.headers.get("Authorization")), route.auth.value
            )
        signed = route.auth in (Auth.WEBHOOK, Auth.SENDGRID)
        raw = _read_body(request) if route.body or signed else b""
        if signed:  # nothing is parsed before the signature is verified
            from common import webhooks

            verify = webhooks.verify if route.auth is Auth.WEBHOOK else webhooks.verify_sendgrid
            principal = verify(raw, request.headers)
        call = Call(
            principal=principal,
            path=_validate(route.path_params, path_args, "path") if route.path_params else None,
            query=_validate(route.query, request.args.to_dict(), "query") if route.query else None,
            body=_validate_json(route.body, raw, check_text=route.auth in _CALLERS)
            if route.body
            else None,
            correlation_id=correlation_id,
            headers=request.headers,
            api_routes=self._api_routes,
            jobs=self._jobs,
        )
        if key := _idempotency_key(route, request):
            return _once(route, call, extra_headers, key, request, raw)
        return _execute(route, call, extra_headers)


def _execute(
    route: Route,
    call: Call[Any, Any, Any, Any],
    extra_headers: dict[str, str],
    reservation: Reservation | None = None,
) -> Response:
    """Handler -> metering -> response."""
    principal = call.principal
    result = route.handler(call)
    extra_headers.update(call.response_headers)
    if isinstance(result, Streamed):
        result.chunks = _streamed(result.chunks, result, route, principal, call, reservation)
    elif route.price and call.billed:  # only a 2xx answer reaches this line
        from common import metering

        metering.record(
            principal.consumer_id, route.price, call.request_id, key_id=principal.key_id
        )
    return render(route.status, result)


def _idempotency_key(route: Route, request: Request) -> str | None:
    """The Idempotency-Key of a POST/PATCH with an API key (400 if malformed); else None."""
    if not (route.auth is Auth.API_KEY and route.method in ("POST", "PATCH")):
        return None  # the header is ignored elsewhere, as Stripe does
    from common.idempotency import key_from

    return key_from(request.headers)


def _once(
    route: Route,
    call: Call[Any, Any, Any, Any],
    extra_headers: dict[str, str],
    key: str,
    request: Request,
    raw: bytes,
) -> Response:
    """Run a keyed request at most once per key (decision 0017): the first answer replayed,
    409 while it runs, 422 for another request with the key. Error answers are not stored."""
    from common import idempotency

    request_hash = idempotency.fingerprint(request.method, request.path, request.query_string, raw)
    began = idempotency.begin(call.principal.consumer_id, key, request_hash)
    if isinstance(began, idempotency.Replay):  # not run, not metered; the rate limit counted it
        response = Response(began.body, status=began.status, headers=began.headers)
        response.headers[idempotency.REPLAYED_HEADER] = "true"
        return response
    call.request_id = began.request_id  # billed once per key, even if run again after a crash
    try:
        response = _execute(route, call, extra_headers, began)
    except BaseException:
        began.release()  # an error changed nothing and is not billed: a retry runs again
        raise
    if not response.is_streamed:  # a stream settles its key when it ends (_streamed)
        headers = {**call.response_headers, **idempotency.kept_headers(response.headers)}
        began.complete(response.status_code, headers, response.get_data())
    return response


def _streamed(
    chunks: Iterable[str],
    stream: Streamed,
    route: Route,
    principal: Any,
    call: Call[Any, Any, Any, Any],
    reservation: Reservation | None = None,
) -> Iterator[str]:
    """The stream's chunks, produced with the request's log context, then metered.

    With an Idempotency-Key, a stream that ends marks its key used (streams are not replayed);
    one that failed, broke or was abandoned (not billed) releases it."""
    tokens = [
        (log.correlation_id_var, log.correlation_id_var.set(call.correlation_id)),
        (log.consumer_id_var, log.consumer_id_var.set(getattr(principal, "consumer_id", None))),
    ]
    try:
        yield from chunks
        if route.price and call.billed and not stream.failed:
            from common import metering

            try:
                metering.record(
                    principal.consumer_id, route.price, call.request_id, key_id=principal.key_id
                )
            except Exception:  # the answer is out: the loss is logged for reconciliation
                logger.exception(
                    "usage record of a completed stream was not stored",
                    extra={"operation": route.price, "requestId": call.request_id},
                )
        if reservation is not None and not stream.failed:
            reservation.complete_stream()
        logger.info("stream ended", extra={"route": route.operation_id, "failed": stream.failed})
    finally:
        if reservation is not None:
            reservation.release()  # no-op once the stream completed
        for var, token in reversed(tokens):
            var.reset(token)


def _authenticate_limited(auth: Auth, header: str | None, request: Request) -> Consumer:
    """Authentication behind the per-address limit of failures (decision 0034): an address
    that failed too often gets 429 before anything is read, unless its key is in this
    instance's cache of verified keys; each 401 counts against the address."""
    from common import edgelimit

    address = edgelimit.client_address(request.remote_addr, request.headers)
    wait = edgelimit.closed_for(address)
    try:
        if auth is Auth.API_KEY:
            return authenticate(header, cached_only=wait is not None)
        if wait is not None:
            raise edgelimit.TooManyFailures(wait)
        return portal_user(header)
    except Unauthorized:
        if wait is not None:
            raise edgelimit.TooManyFailures(wait) from None
        edgelimit.failed(address)
        raise


def authenticate(header: str | None, cached_only: bool = False) -> Principal:
    """The principal of a valid ``Authorization: Bearer <key>`` header, or 401.

    Every kind of bad key -- missing, malformed, unknown, revoked, expired, or a disabled
    consumer's -- gets the same answer, so the answer reveals nothing about the key."""
    from common import keys

    principal = keys.verify(_bearer(header), cached_only=cached_only)
    if principal is None:
        raise Unauthorized()
    return principal


def portal_user(header: str | None) -> PortalUser:
    """The consumer signed in to the developer portal, from the IdP's ID token."""
    from common.consumers import portal_principal
    from common.oidc import InvalidToken, verify_id_token

    token = _bearer(header)
    if not token:
        raise InvalidToken()
    return portal_principal(verify_id_token(token)["sub"])


def _bearer(header: str | None) -> str:
    scheme, _, token = (header or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


_BODY_READ = "ars.body_read"  # WSGI environ key: the request's body was read to its end
# An unread body this small, already received, is read and dropped so that the connection can
# serve the next request; a body still arriving after DRAIN_TIMEOUT_S closes it (decision 0015).
DRAIN_MAX_BYTES = 65_536
DRAIN_TIMEOUT_S = 0.25


def _read_body(request: Request) -> bytes:
    """The whole JSON body of a request, received within BODY_READ_TIMEOUT_S (else 408).

    Behind gunicorn (functions-framework) a timer shuts the socket's read side at the deadline:
    a body that stalls or trickles then reads as ended, and this worker thread is free again."""
    settings = get_settings()
    limit, timeout = settings.max_body_bytes, settings.body_read_timeout_s
    _check_declared_length(request)
    _check_content_type(request)
    sock = request.environ.get("gunicorn.socket")
    timer = threading.Timer(timeout, _stop_reading, (sock,))
    timer.daemon = True
    started = time.monotonic()
    if sock is not None:
        timer.start()
    try:
        raw: bytes | None = request.stream.read(limit + 1)
    except Exception:  # a socket error, a malformed chunked body, a client that went away
        raw = None
    finally:
        timer.cancel()
    in_time = time.monotonic() - started < timeout
    if raw is not None and len(raw) > limit:
        raise PayloadTooLarge(f"The request body must be at most {limit} bytes.")
    if raw is None or (request.content_length is not None and len(raw) < request.content_length):
        if not in_time:
            raise RequestTimeout(f"The request body did not arrive within {timeout:g} s.")
        raise InvalidRequest("The request body ended before it was complete.")
    if in_time:  # else the timer may have shut the socket: the connection is not reused
        request.environ[_BODY_READ] = True
    return raw


def _check_declared_length(request: Request) -> None:
    """413 at once, on any route, for a declared Content-Length over the limit."""
    limit = get_settings().max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"The request body must be at most {limit} bytes.")


def _check_content_type(request: Request) -> None:
    """415 for a body declared as something other than JSON (decision 0015): JSON is
    ``application/json`` (any parameters, e.g. charset) or ``application/*+json``; a request
    that declares no type at all is read as JSON."""
    mimetype = request.mimetype  # lower case, without parameters
    if mimetype and mimetype != "application/json" and not _JSON_SUFFIX.fullmatch(mimetype):
        raise UnsupportedMediaType(
            f"Send the body as JSON with 'Content-Type: application/json', not {mimetype[:100]!r}."
        )


_JSON_SUFFIX = re.compile(r"application/[^/;]+\+json")


def _body_unread(request: Request) -> bool:
    declared = bool(request.content_length) or "Transfer-Encoding" in request.headers
    return declared and not request.environ.get(_BODY_READ)


def _abandon_body(request: Request) -> None:
    """Nothing waits long for a declared body that was not read to its end (not needed,
    refused, or not received in time).

    A small body that has already arrived (the usual case: a 401 or 415 for a request sent
    whole) is read within DRAIN_TIMEOUT_S, so the connection stays usable: gunicorn would
    otherwise answer with "Connection: keep-alive" and then close, and a client that reuses
    the connection at once finds it closed. Otherwise functions-framework (which reads the
    whole body after every answer) and gunicorn (which drains an unread body before reading
    the next request) must not wait: the stream is replaced by an empty one and the socket's
    read side is shut, so both return at once and gunicorn closes the connection once the
    answer is sent."""
    sock = request.environ.get("gunicorn.socket")
    length = request.content_length
    if sock is not None and length is not None and length <= DRAIN_MAX_BYTES:
        timer = threading.Timer(DRAIN_TIMEOUT_S, _stop_reading, (sock,))
        timer.daemon = True
        started = time.monotonic()
        timer.start()
        try:
            drained = len(request.stream.read(length))
        except Exception:  # a socket error or a client that went away: closed below
            drained = -1
        finally:
            timer.cancel()
        if drained == length and time.monotonic() - started < DRAIN_TIMEOUT_S:
            request.environ[_BODY_READ] = True
            return
    request.stream = io.BytesIO()
    _stop_reading(sock)


def _stop_reading(sock: socket.socket | None) -> None:
    """Shut the connection's read side: a blocked read, or any later one, returns at once."""
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RD)


def _validate_json(model: type[BaseModel], raw: bytes, *, check_text: bool = False) -> BaseModel:
    try:
        # JSON-mode strict validation: no silent coercion ("5" is not 5, 1 is not true).
        validated = model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        raise _invalid(model, exc, "body") from None
    if check_text:  # callers' text: no control or bidi characters (common.text_safety)
        from common.text_safety import unsafe_text

        if errors := unsafe_text(json.loads(raw)):
            shown = "; ".join(f"{e.field}: {e.message}".rstrip(".") for e in errors[:3])
            raise InvalidRequest(f"Invalid body: {shown}.", errors=errors)
    return validated


def _validate(model: type[BaseModel], data: dict[str, Any], where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _invalid(model, exc, where) from None


def _invalid(model: type[BaseModel], exc: ValidationError, where: str) -> InvalidRequest:
    errors = [_field_error(model, err, where) for err in exc.errors(include_url=False)]
    shown = "; ".join(
        (e.message if e.field == where else f"{e.field}: {e.message}").rstrip(".")
        for e in errors[:3]
    )
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return InvalidRequest(f"Invalid {where}: {shown}{more}.", errors=errors)


def _field_error(model: type[BaseModel], err: Any, where: str) -> FieldError:
    name = ".".join(str(part) for part in err["loc"]) or where
    kind = err["type"]
    if kind == "json_invalid":
        return FieldError(name, f"Malformed JSON: {err['ctx'].get('error', err['msg'])}.")
    if kind in {"model_type", "model_attributes_type"}:
        return FieldError(name, "Expected a JSON object.")
    if kind == "extra_forbidden":
        allowed = ", ".join(f.alias or n for n, f in model.model_fields.items())
        return FieldError(name, f"Unknown field. Allowed fields: {allowed}.")
    return FieldError(name, err["msg"].removeprefix("Value error, "))


def render(status: int, result: BaseModel | Streamed | Html | Static | None) -> Response:
    if result is None:
        return Response(status=204)
    if isinstance(result, Static):
        return Response(result.body, status=status, mimetype=result.mimetype)
    if isinstance(result, Html):
        response = Response(result.body, status=status, mimetype="text/html")
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
        )
        return response
    if isinstance(result, Streamed):
        response = Response(_encoded(result.chunks), status=status, mimetype=result.mimetype)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"  # proxies must not hold the stream back
        return response
    body = result.model_dump_json(by_alias=True)
    return Response(body, status=status, mimetype="application/json")


def _encoded(chunks: Iterable[str]) -> Iterator[bytes]:
    """The stream's chunks as bytes. Closing this (the server does when the client goes away)
    closes the stream behind it at once, so its ``finally`` (audit, billing, a released
    reservation) runs then, not whenever the garbage collector gets to it."""
    iterator = iter(chunks)
    try:
        for chunk in iterator:
            yield chunk.encode()
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


def problem(exc: AppError, instance: str, correlation_id: str) -> Response:
    body: dict[str, Any] = {
        "type": f"/problems/{exc.code}",
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
        "instance": instance,
        "code": exc.code,
        "correlationId": correlation_id,
    }
    if exc.errors:
        body["errors"] = [{"field": e.field, "message": e.message} for e in exc.errors]
    response = Response(json.dumps(body), status=exc.status, mimetype=PROBLEM_JSON)
    response.headers.update(exc.headers)
    return response


def framework_problem(exc: Any, request: Request) -> Response:
    """problem+json for an error the web framework raised before any route ran."""
    errors: dict[int, AppError] = {
        404: NotFound(f"No operation at {request.path}."),
        413: PayloadTooLarge(),
    }
    error = errors.get(exc.code) or InvalidRequest(str(exc.description or "Bad request."))
    correlation_id = _correlation_id(request.headers.get(CORRELATION_HEADER))
    response = problem(error, request.path, correlation_id)
    response.headers[CORRELATION_HEADER] = correlation_id
    return response


def _unexpected(exc: Exception) -> AppError:
    from common.firestore import backend_unavailable, is_backend_error

    if is_backend_error(exc):
        logger.warning("backend error: %s", type(exc).__name__, extra={"error": str(exc)[:500]})
        return backend_unavailable(exc)
    logger.exception("unhandled error")
    return InternalError("An unexpected error occurred; it has been logged.")


def _correlation_id(value: str | None) -> str:
    if value and _CORRELATION_ID.match(value):
        return value
    return str(uuid.uuid4())


def _trace(request: Request) -> str | None:
    header = request.headers.get("X-Cloud-Trace-Context")
    if not header:
        return None
    trace_id = header.split("/", 1)[0]
    if not re.fullmatch(r"[0-9a-fA-F]{32}", trace_id):
        return None
    return f"projects/{get_settings().google_cloud_project}/traces/{trace_id}"
