"""What the MCP server's routes answer besides JSON-RPC."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ProtectedResource(BaseModel):
    """OAuth 2.0 Protected Resource Metadata (RFC 9728): what this resource is and who issues
    the tokens for it, for a client that was answered 401."""

    resource: str = Field(description="The protected resource's URL.")
    authorization_servers: list[str] = Field(
        default_factory=list, description="Issuers whose sign-in this resource trusts."
    )
    bearer_methods_supported: list[str] = Field(default_factory=lambda: ["header"])
    resource_name: str
    resource_documentation: str | None = None
