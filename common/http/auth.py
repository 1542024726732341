"""Who is calling: an API key (``common.accounts.keys``) or the developer portal's ID token, behind
the per-address limit of failed authentication (``common.http.edgelimit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Request

from common.errors import InvalidToken, TooManyFailures, Unauthorized
from common.http.routes import Auth, Consumer

if TYPE_CHECKING:
    from common.accounts.consumers import PortalUser
    from common.accounts.keys import Principal


def authenticate_limited(auth: Auth, header: str | None, request: Request) -> Consumer:
    """Authentication behind the per-address limit of failures (decision 0034): an address
    that failed too often gets 429 before anything is read, unless its key is in this
    instance's cache of verified keys; each 401 counts against the address."""
    from common.http import edgelimit

    address = edgelimit.client_address(request.remote_addr, request.headers)
    wait = edgelimit.closed_for(address)
    try:
        if auth is Auth.API_KEY:
            return authenticate(header, cached_only=wait is not None)
        if wait is not None:
            raise TooManyFailures(wait)
        return portal_user(header)
    except Unauthorized:
        if wait is not None:
            raise TooManyFailures(wait) from None
        edgelimit.failed(address)
        raise


def authenticate(header: str | None, cached_only: bool = False) -> Principal:
    """The principal of a valid ``Authorization: Bearer <key>`` header, or 401.

    Every kind of bad key -- missing, malformed, unknown, revoked, expired, or a disabled
    consumer's -- gets the same answer, so the answer reveals nothing about the key."""
    from common.accounts import keys

    principal = keys.verify(bearer(header), cached_only=cached_only)
    if principal is None:
        raise Unauthorized()
    return principal


def portal_user(header: str | None) -> PortalUser:
    """The consumer signed in to the developer portal, from the IdP's ID token."""
    from common.accounts.consumers import portal_principal
    from common.accounts.oidc import verify_id_token

    token = bearer(header)
    if not token:
        raise InvalidToken()
    return portal_principal(verify_id_token(token)["sub"])


def bearer(header: str | None) -> str:
    scheme, _, token = (header or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
