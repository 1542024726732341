"""Verification of the identity provider's OIDC ID tokens (developer-portal authentication).

RS256 only (so ``none`` and HS256-with-the-public-key tokens fail), issuer and audience from
settings, ``exp``/``nbf``/``iat`` checked with a small leeway. Signing keys come from the JWKS
URL, cached for ``JWKS_TTL_S``; a token with an unknown ``kid`` triggers one refetch, at most
once per ``MIN_REFETCH_S``, so forged kids cannot hammer the IdP.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from common.config import get_settings
from common.errors import BackendUnavailable, InvalidToken

ALGORITHMS = ["RS256"]
LEEWAY_S = 60
JWKS_TTL_S = 300.0
MIN_REFETCH_S = 30.0


class JwksCache:
    def __init__(self, url: str) -> None:
        self.url = url
        self._keys: dict[str, Any] = {}
        self._fetched_at = float("-inf")
        self._lock = threading.Lock()

    def key_for(self, kid: str | None) -> Any:
        with self._lock:
            now = time.monotonic()
            if now - self._fetched_at >= JWKS_TTL_S:
                self._fetch(now)
            if kid not in self._keys and now - self._fetched_at >= MIN_REFETCH_S:
                self._fetch(now)  # the IdP may have rotated its keys
            if kid not in self._keys:
                raise InvalidToken()
            return self._keys[kid]

    def _fetch(self, now: float) -> None:
        import httpx
        import jwt

        try:
            response = httpx.get(self.url, timeout=5.0)
            response.raise_for_status()
            keys = jwt.PyJWKSet.from_dict(response.json()).keys
        except (httpx.HTTPError, ValueError, jwt.PyJWKSetError) as exc:
            raise BackendUnavailable("The identity provider's keys could not be fetched.") from exc
        # Only RSA signing keys can verify RS256; anything else in the set is ignored.
        self._keys = {key.key_id: key for key in keys if key.key_id and key.key_type == "RSA"}
        self._fetched_at = now


_caches: dict[str, JwksCache] = {}
_caches_lock = threading.Lock()


def jwks(url: str) -> JwksCache:
    with _caches_lock:
        return _caches.setdefault(url, JwksCache(url))


def verify_id_token(token: str) -> dict[str, Any]:
    """The claims of a valid portal ID token; InvalidToken (401) otherwise."""
    settings = get_settings()
    return verify_token(
        token,
        jwks_url=settings.oidc_jwks_url,
        audience=settings.oidc_audience,
        issuer=settings.oidc_issuer,
    )


def verify_token(
    token: str, *, jwks_url: str, audience: str | list[str], issuer: str
) -> dict[str, Any]:
    """The claims of an RS256 token signed by a key of ``jwks_url`` for ``audience`` and
    ``issuer``; InvalidToken (401) otherwise."""
    import jwt

    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise InvalidToken() from None
    if header.get("alg") not in ALGORITHMS:
        raise InvalidToken()
    key = jwks(jwks_url).key_for(header.get("kid"))
    try:
        return jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=audience,
            issuer=issuer,
            leeway=LEEWAY_S,
            options={"require": ["exp", "iat", "sub", "iss", "aud"]},
        )
    except (jwt.PyJWTError, TypeError, ValueError):
        raise InvalidToken() from None
