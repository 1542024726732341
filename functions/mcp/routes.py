"""HTTP routes of the MCP server: ``POST /mcp`` (Streamable HTTP, stateless) and the OAuth
protected-resource metadata a 401 points to (RFC 9728)."""

from __future__ import annotations

from urllib.parse import urlsplit

from common.config import get_settings
from common.errors import Forbidden, NotAcceptable
from common.http import Auth, Call, Reply, Route, Streamed
from functions.mcp.models import ProtectedResource

PATH = "/mcp"
METADATA = "/.well-known/oauth-protected-resource"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ACCEPTED = ("application/json", "application/*", "*/*")


def serve(call: Call[None, None, None]) -> Reply | Streamed:
    from functions.mcp import server

    _check_origin(call.headers.get("Origin"))
    accept = call.headers.get("Accept")
    if accept and not any(kind in accept for kind in _ACCEPTED):
        raise NotAcceptable("The MCP server answers application/json (and text/event-stream).")
    return server.handle(call)


def metadata(call: Call[None, None, None, None]) -> ProtectedResource:
    return _metadata(call, "")


def mcp_metadata(call: Call[None, None, None, None]) -> ProtectedResource:
    return _metadata(call, PATH)


def _metadata(call: Call[None, None, None, None], path: str) -> ProtectedResource:
    """Under ``PUBLIC_BASE_URL``, else the host the request came to (local runs), as the
    401's ``resource_metadata`` is (``common.http.pipeline.public_url``)."""
    settings = get_settings()
    base = settings.public_base_url.rstrip("/") or f"http://{call.headers.get('Host', '')}"
    return ProtectedResource(
        resource=base + path,
        authorization_servers=[settings.oidc_issuer] if settings.oidc_issuer else [],
        resource_name="Advocacy Research Service",
        resource_documentation=base + "/openapi.json",
    )


def _check_origin(origin: str | None) -> None:
    """A page in a browser may call the MCP server only from an allowed origin (DNS
    rebinding: a hostile page must not reach a server on the caller's own machine)."""
    if origin is None:
        return
    settings = get_settings()
    allowed = {o.strip().rstrip("/") for o in settings.mcp_allowed_origins.split(",") if o.strip()}
    base = urlsplit(settings.public_base_url)
    if base.netloc:
        allowed.add(f"{base.scheme}://{base.netloc}")
    # a server on this machine (local runs) takes pages served from this machine, e.g. an
    # MCP inspector on another port
    if (not base.netloc or base.hostname in _LOOPBACK) and urlsplit(origin).hostname in _LOOPBACK:
        return
    if origin.rstrip("/") not in allowed:
        raise Forbidden(
            f"Pages from {origin[:100]} may not call the MCP server (MCP_ALLOWED_ORIGINS)."
        )


ROUTES = (
    Route(
        method="POST",
        path=PATH,
        handler=serve,
        operation_id="mcp",
        summary="The MCP server (Streamable HTTP, stateless): the API's operations as tools",
        tag="MCP",
        raw_body=True,
        idempotency=False,  # a tools/call hands the header to the route it runs
        resource_metadata=METADATA + PATH,
        documented=False,  # JSON-RPC, described in the README and decision 0052
        errors=(403, 406),
    ),
    Route(
        method="GET",
        path=METADATA,
        handler=metadata,
        operation_id="protectedResourceMetadata",
        summary="OAuth protected-resource metadata of the API (RFC 9728)",
        tag="MCP",
        auth=Auth.NONE,
        response=ProtectedResource,
    ),
    Route(
        method="GET",
        path=METADATA + PATH,
        handler=mcp_metadata,
        operation_id="mcpProtectedResourceMetadata",
        summary="OAuth protected-resource metadata of the MCP server (RFC 9728)",
        tag="MCP",
        auth=Auth.NONE,
        response=ProtectedResource,
    ),
)
