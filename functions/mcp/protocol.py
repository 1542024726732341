"""JSON-RPC 2.0 as MCP uses it, and the protocol versions this server speaks. No Flask here.

Two eras share ``POST /mcp`` (decision 0052):
- the 2025 handshake (``initialize``, then requests carrying ``MCP-Protocol-Version``), served
  without a session: every request stands alone, so any instance can answer it;
- the 2026-07-28 revision: no handshake, every request carries its version, capabilities and
  client in ``params._meta`` and repeats its method (and a tool's name) in headers, which must
  agree with the body.
A request without ``MCP-Protocol-Version`` is of the 2025 era (the 2025-03-26 default).

A message is read as a REST body is (``common.http.validate.load_json``): a name sent twice in
one object, or nesting deeper than REST takes, is an invalid request, as is an id longer than
``MAX_ID_CHARS``: nothing the caller sent is echoed back unbounded (decision 0062).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from common.errors import MAX_FIELD_CHARS, InvalidRequest
from common.http.validate import load_json

MODERN = ("2026-07-28",)
HANDSHAKE = ("2025-11-25", "2025-06-18", "2025-03-26")  # newest first
LATEST_HANDSHAKE = HANDSHAKE[0]
SUPPORTED = (*MODERN, *HANDSHAKE)

VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
META = "_meta"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

# An id is echoed in the answer: a string id at most this long (the bound of a field's name in
# an error), an integer one within 64 bits (clients number their requests, or send a UUID); a
# method's name is quoted at most this long.
MAX_ID_CHARS = MAX_FIELD_CHARS
_MAX_INT_ID = 2**63

# The HTTP status of a JSON-RPC error, as the protocol's own server answers: a message the
# server cannot take is 400, an unknown method 404, anything else 200.
HTTP_STATUS = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    UNSUPPORTED_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}


class RpcError(Exception):
    """A JSON-RPC error answer: ``code``, ``message`` and optional ``data``; ``ident``: the
    request's id, when the error is found before the request is known."""

    def __init__(
        self, code: int, message: str, data: Any = None, ident: int | str | None = None
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.data, self.ident = code, message, data, ident

    @property
    def status(self) -> int:
        return HTTP_STATUS.get(self.code, 200)


@dataclass
class Message:
    """One JSON-RPC message received: a request (with ``id``), a notification (without), or
    a response the client sends back (neither method nor ``params``)."""

    method: str | None
    id: int | str | None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def is_request(self) -> bool:
        return self.method is not None and self.id is not None


def parse(raw: bytes) -> Message:
    """The message in ``raw``; ``RpcError`` for what is not one JSON-RPC 2.0 message."""
    try:
        document = load_json(raw)
    except InvalidRequest as exc:  # JSON, but not as a REST route would take it
        raise RpcError(INVALID_REQUEST, exc.detail) from None
    except ValueError:  # UnicodeDecodeError included
        raise RpcError(PARSE_ERROR, "The body is not JSON.") from None
    if isinstance(document, list):
        raise RpcError(INVALID_REQUEST, "Send one JSON-RPC message per request (no batches).")
    if not isinstance(document, dict) or document.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Not a JSON-RPC 2.0 message ("jsonrpc": "2.0").')
    method, ident, params = document.get("method"), document.get("id"), document.get("params")
    if method is not None and not isinstance(method, str):
        raise RpcError(INVALID_REQUEST, "method must be a string.")
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, int | str)):
        raise RpcError(INVALID_REQUEST, "id must be a string or an integer.")
    if isinstance(ident, str) and len(ident) > MAX_ID_CHARS:
        raise RpcError(INVALID_REQUEST, f"id must be at most {MAX_ID_CHARS} characters long.")
    if isinstance(ident, int) and not -_MAX_INT_ID <= ident < _MAX_INT_ID:
        raise RpcError(INVALID_REQUEST, "id must be an integer of at most 64 bits.")
    if params is not None and not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object.", ident=ident)
    return Message(method, ident, params or {})


def result(ident: int | str | None, value: dict[str, Any]) -> bytes:
    return _encode({"jsonrpc": "2.0", "id": ident, "result": value})


def error(ident: int | str | None, exc: RpcError) -> bytes:
    body: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        body["data"] = exc.data
    return _encode({"jsonrpc": "2.0", "id": ident, "error": body})


def notification(method: str, params: dict[str, Any]) -> bytes:
    return _encode({"jsonrpc": "2.0", "method": method, "params": params})


def sse_event(message: bytes) -> str:
    """One message as a server-sent event of the POST's stream (no ``id:``: a stateless
    server has nothing to resume from)."""
    return f"event: message\ndata: {message.decode()}\n\n"


def _encode(document: dict[str, Any]) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def era(version_header: str | None) -> str:
    """``modern`` or ``handshake``, from the request's ``MCP-Protocol-Version``; a version this
    server does not speak is refused, naming the ones it does."""
    if version_header is None:
        return "handshake"
    if version_header in MODERN:
        return "modern"
    if version_header in HANDSHAKE:
        return "handshake"
    raise RpcError(
        UNSUPPORTED_VERSION,
        f"Unsupported protocol version {version_header[:40]!r}.",
        {"supported": list(SUPPORTED), "requested": version_header[:40]},
    )


def check_headers(message: Message, headers: Any) -> None:
    """Whatever the era, the routing headers a request carries say what its body says (the
    method, a tool's name, the version its ``_meta`` names), each sent once, so that a gateway
    routing on the headers cannot be shown one call and run another."""
    for name in (VERSION_HEADER, METHOD_HEADER, NAME_HEADER):
        if len(headers.getlist(name)) > 1:
            raise RpcError(HEADER_MISMATCH, f"The {name} header is sent more than once.")
    meta = message.params.get(META)
    named = meta.get(META_VERSION) if isinstance(meta, dict) else None
    version = headers.get(VERSION_HEADER)
    if version is not None and named is not None and version != named:
        raise RpcError(HEADER_MISMATCH, f"The {VERSION_HEADER} header does not match params._meta.")
    method = headers.get(METHOD_HEADER)
    if method is not None and method != message.method:
        raise RpcError(HEADER_MISMATCH, f"The {METHOD_HEADER} header does not match the method.")
    name = headers.get(NAME_HEADER)
    if name is not None and _decoded(name) != message.params.get("name"):
        raise RpcError(HEADER_MISMATCH, f"The {NAME_HEADER} header does not match params.name.")


def check_envelope(message: Message, headers: Any) -> None:
    """A 2026-07-28 request: its ``_meta`` names its version and capabilities, and it carries
    the headers ``check_headers`` compares with its body (the version, the method, and a
    tool's name)."""
    meta = message.params.get(META)
    if not isinstance(meta, dict) or not isinstance(meta.get(META_VERSION), str):
        raise RpcError(INVALID_PARAMS, f"params._meta must carry {META_VERSION}.")
    if not isinstance(meta.get(META_CAPABILITIES), dict):
        raise RpcError(INVALID_PARAMS, f"params._meta must carry {META_CAPABILITIES}.")
    if headers.get(METHOD_HEADER) is None:
        raise RpcError(HEADER_MISMATCH, f"Send the method in the {METHOD_HEADER} header too.")
    if message.method == "tools/call" and headers.get(NAME_HEADER) is None:
        raise RpcError(HEADER_MISMATCH, f"Send the tool's name in the {NAME_HEADER} header too.")


def _decoded(value: str | None) -> str | None:
    """A header value, ``=?base64?...?=`` decoded (how clients send what is not plain ASCII)."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise RpcError(HEADER_MISMATCH, f"The {NAME_HEADER} header is not valid base64.") from None
