"""One MCP message in, its answer out: the handshake or discovery, the tool list, a tool call
run through its route's own pipeline steps (``common.http.perform``). No Flask here.

A tool call is its route's call: the same validation, capacity, Idempotency-Key (the header
of the ``POST /mcp`` that carries a ``tools/call``), handler, guardrails and billing, exactly
once, when the result has been written to the client (the pipeline settles the tool call with
the ``/mcp`` answer that carries it, decision 0066). What the route refuses (bad arguments,
an opted-out subject, a busy instance, a backend down) is a tool result with ``isError``,
which the route did not bill; a bug is a 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from common.config import get_settings
from common.errors import MAX_FIELD_CHARS, AppError
from common.http import Call, Inputs, Reply, Streamed, perform
from common.http.streams import SSE
from common.language import clip
from functions.mcp import protocol, tools
from functions.mcp.protocol import RpcError

if TYPE_CHECKING:
    from flask import Response

JSON = "application/json"
SERVER_NAME = "advocacy-research"
SERVER_TITLE = "Advocacy Research Service"
LIST_TTL_MS = 300_000  # the tool list changes only with a deployment
_LABELS = ("claim", "title", "headline", "text", "name")  # what a progress message quotes


def handle(call: Call[None, None, None]) -> Reply | Streamed:
    """The answer to the message in ``call.raw``: a JSON-RPC result or error, 202 for a
    notification, or a stream of progress notifications and then the result."""
    try:
        message = protocol.parse(call.raw)
    except RpcError as exc:
        return _failed(exc.ident, exc)
    if not message.is_request:  # a notification, or a client's answer: nothing to say
        return Reply(b"", JSON, 202)
    try:
        era = protocol.era(call.headers.get(protocol.VERSION_HEADER))
        protocol.check_headers(message, call.headers)  # whenever they are sent
        if era == "modern":
            protocol.check_envelope(message, call.headers)
        return _answer(message, era, call)
    except RpcError as exc:
        return _failed(message.id, exc)


def _answer(message: protocol.Message, era: str, call: Call[None, None, None]) -> Reply | Streamed:
    method, modern = message.method, era == "modern"
    if method == "tools/call":
        return _call_tool(message, modern, call)
    if method == "tools/list":
        listed = [offered.listing() for offered in tools.catalog(call.api_routes()).values()]
        extra = {"ttlMs": LIST_TTL_MS, "cacheScope": "public"} if modern else {}
        return _ok(message.id, {"tools": listed, **extra}, modern)
    if method == "initialize" and not modern:
        asked = message.params.get("protocolVersion")
        version = asked if asked in protocol.HANDSHAKE else protocol.LATEST_HANDSHAKE
        return _ok(
            message.id,
            {
                "protocolVersion": version,
                "capabilities": _capabilities(),
                "serverInfo": _server_info(),
                "instructions": tools.instructions(),
            },
            modern,
        )
    if method == "server/discover" and modern:
        return _ok(
            message.id,
            {
                "supportedVersions": list(protocol.MODERN),
                "capabilities": _capabilities(),
                "instructions": tools.instructions(),
                "ttlMs": LIST_TTL_MS,
                "cacheScope": "public",
            },
            modern,
        )
    if method == "ping" and not modern:
        return _ok(message.id, {}, modern)
    raise RpcError(
        protocol.METHOD_NOT_FOUND, "Method not found", clip(method or "", MAX_FIELD_CHARS)
    )


def _call_tool(
    message: protocol.Message, modern: bool, call: Call[None, None, None]
) -> Reply | Streamed:
    params = message.params
    name, arguments = params.get("name"), params.get("arguments", {})
    offered = tools.catalog(call.api_routes()).get(name) if isinstance(name, str) else None
    if offered is None:
        raise RpcError(protocol.INVALID_PARAMS, f"Unknown tool: {str(name)[:80]!r}.")
    if not isinstance(arguments, dict):
        raise RpcError(protocol.INVALID_PARAMS, "params.arguments must be an object.")
    try:
        path, query, raw = offered.inputs(arguments)
    except ValueError as exc:
        return _ok(message.id, _tool_error(str(exc)), modern)
    headers = {"Accept": JSON}  # a tool answers whole JSON; streams are gathered below
    if key := call.headers.get("Idempotency-Key"):
        headers["Idempotency-Key"] = key
    route = offered.route
    # what makes two calls with one Idempotency-Key the same call: the tool and its arguments
    target = (route.method, f"mcp:{offered.tool.name}", _canonical({**path, **query}))
    try:
        _, response = perform(
            route,
            Inputs(call.principal, path, query, raw, headers),
            target,
            call.correlation_id,
            call.api_routes,
            call.jobs,
        )
    except AppError as exc:
        return _ok(message.id, _tool_error(exc), modern)
    if offered.report is None:
        body = response.get_data()
        return _ok(message.id, _tool_result(json.loads(body) if body else {}), modern)
    meta = params.get(protocol.META)
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if isinstance(token, int | str) and SSE in call.headers.get("Accept", ""):
        stream = Streamed([], SSE)
        stream.chunks = _with_progress(message.id, modern, offered, response, token, stream)
        return stream
    report = _Report(offered)
    try:
        for event in _events(response):
            report.add(event)
    finally:
        response.close()
    return _ok(message.id, report.outcome(), modern)


def _with_progress(
    ident: int | str | None,
    modern: bool,
    offered: tools.Offered,
    response: Response,
    token: int | str,
    stream: Streamed,
) -> Iterator[str]:
    """A streamed tool's events as progress notifications, then its result: the client sees
    the work move (each source read, each finding) while it runs. The tool call is settled
    when the result is written, not when its route's first item is read (decision 0066)."""
    report = _Report(offered)
    try:
        for done, event in enumerate(_events(response), start=1):
            report.add(event)
            progress = {"progressToken": token, "progress": done, "message": _label(event)}
            yield protocol.sse_event(protocol.notification("notifications/progress", progress))
        stream.delivered = True  # the result: what the call is for
        yield protocol.sse_event(protocol.result(ident, _stamped(report.outcome(), modern)))
    finally:
        response.close()  # a client gone: the route's stream ends and settles now


class _Report:
    """A streamed route's events gathered into its tool result."""

    def __init__(self, offered: tools.Offered) -> None:
        self.repeated = offered.tool.repeated
        self.gathered: dict[str, Any] = {f"{kind}s": [] for kind in self.repeated}
        self.failure: dict[str, Any] | None = None

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "error":
            self.failure = event
        elif kind in self.repeated:
            self.gathered[f"{kind}s"].append(event)
        else:
            self.gathered[str(kind)] = event

    def outcome(self) -> dict[str, Any]:
        if self.failure is not None:
            return _tool_error(f"{self.failure.get('code')}: {self.failure.get('detail')}")
        return _tool_result(self.gathered)


def _events(response: Response) -> Iterator[dict[str, Any]]:
    """The NDJSON events of a streamed route's answer, as the route produces them."""
    pending = b""
    for chunk in response.response:
        pending += chunk if isinstance(chunk, bytes) else chunk.encode()
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield json.loads(line)
    if pending.strip():
        yield json.loads(pending)


def _label(event: dict[str, Any]) -> str:
    kind = str(event.get("type"))
    for key in _LABELS:
        value = event.get(key)
        if isinstance(value, str) and value:
            return f"{kind}: {value[:120]}"
    return kind


def _tool_result(structured: dict[str, Any]) -> dict[str, Any]:
    """A tool's answer: the route's JSON as structured content and, for clients that read
    text only, the same JSON as text (as the protocol asks)."""
    text = json.dumps(structured, ensure_ascii=False)
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


def _tool_error(problem: AppError | str) -> dict[str, Any]:
    """What the route refused, for the model to read and act on; never billed."""
    if isinstance(problem, str):
        text = problem
    else:
        text = f"{problem.title} ({problem.status} {problem.code}): {problem.detail}"
        for error in problem.errors[:20]:
            field = error.field.split(".", 1)[-1] if "." in error.field else error.field
            text += f"\n- {field}: {error.message}"
        if wait := problem.headers.get("Retry-After"):
            text += f"\nRetry after {wait} s."
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _ok(ident: int | str | None, value: dict[str, Any], modern: bool) -> Reply:
    return Reply(protocol.result(ident, _stamped(value, modern)), JSON, 200)


def _stamped(value: dict[str, Any], modern: bool) -> dict[str, Any]:
    """A 2026-07-28 result says it is complete and names the server."""
    if not modern:
        return value
    return {**value, "resultType": "complete", "_meta": {protocol.META_SERVER: _server_info()}}


def _failed(ident: int | str | None, exc: RpcError) -> Reply:
    return Reply(protocol.error(ident, exc), JSON, exc.status)


def _capabilities() -> dict[str, Any]:
    return {"tools": {"listChanged": False}}


def _server_info() -> dict[str, str]:
    return {
        "name": SERVER_NAME,
        "title": SERVER_TITLE,
        "version": get_settings().service_version,
    }


def _canonical(arguments: dict[str, Any]) -> bytes:
    return json.dumps(arguments, sort_keys=True, separators=(",", ":")).encode()
