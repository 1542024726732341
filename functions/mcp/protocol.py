"""JSON-RPC 2.0 as MCP uses it, and the protocol versions this server speaks. No Flask here.

Two eras share ``POST /mcp`` (decision 0052):
- the 2025 handshake (``initialize``, then requests carrying ``MCP-Protocol-Version``), served
  without a session: every request stands alone, so any instance can answer it;
- the 2026-07-28 revision: no handshake, every request carries its version, capabilities and
  client in ``params._meta`` and repeats its method (and a tool's name) in headers, which must
  agree with the body.
A request without ``MCP-Protocol-Version`` is of the 2025 era (the 2025-03-26 default).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

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
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
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


def check_envelope(message: Message, headers: Any) -> None:
    """A 2026-07-28 request: its ``_meta`` names its version and capabilities, and its headers
    say what its body says (method, version, a tool's name), so that a gateway routing on the
    headers cannot be shown one call and run another."""
    meta = message.params.get(META)
    if not isinstance(meta, dict) or not isinstance(meta.get(META_VERSION), str):
        raise RpcError(INVALID_PARAMS, f"params._meta must carry {META_VERSION}.")
    if not isinstance(meta.get(META_CAPABILITIES), dict):
        raise RpcError(INVALID_PARAMS, f"params._meta must carry {META_CAPABILITIES}.")
    for name in (VERSION_HEADER, METHOD_HEADER, NAME_HEADER):
        if len(headers.getlist(name)) > 1:
            raise RpcError(HEADER_MISMATCH, f"The {name} header is sent more than once.")
    if headers.get(VERSION_HEADER) != meta[META_VERSION]:
        raise RpcError(HEADER_MISMATCH, f"The {VERSION_HEADER} header does not match params._meta.")
    if headers.get(METHOD_HEADER) != message.method:
        raise RpcError(HEADER_MISMATCH, f"The {METHOD_HEADER} header does not match the method.")
    if message.method == "tools/call" and _decoded(headers.get(NAME_HEADER)) != (
        message.params.get("name")
    ):
        raise RpcError(HEADER_MISMATCH, f"The {NAME_HEADER} header does not match params.name.")


def _decoded(value: str | None) -> str | None:
    """A header value, ``=?base64?...?=`` decoded (how clients send what is not plain ASCII)."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise RpcError(HEADER_MISMATCH, f"The {NAME_HEADER} header is not valid base64.") from None
