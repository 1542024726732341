"""The developer portal's web page (decision 0030): static files of static/portal/ and the
vendored libraries of static/vendor/, served with a strict Content-Security-Policy, and the
page's sign-in settings as /portal/config.json. No build step: the files are served as they are."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from common.config import get_settings
from common.errors import NotFound

STATIC = Path(__file__).resolve().parent.parent.parent / "static"
TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".txt": "text/plain",
}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def content_security_policy() -> str:
    """Scripts, styles and images from this origin only, no inline script or style; the page
    talks to this origin and to the IdP's token endpoint, nothing else."""
    token_origin = _origin(get_settings().oidc_token_url)
    connect = " ".join(dict.fromkeys(["'self'", token_origin] if token_origin else ["'self'"]))
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"font-src 'self'; connect-src {connect}; form-action 'none'; frame-ancestors 'none'; "
        "base-uri 'none'"
    )


def headers(folder: str = "portal") -> dict[str, str]:
    # The vendored files change only with their version (make vendor): a day in caches; the
    # page's own files are revalidated each time.
    vendored = folder.startswith("vendor/")
    return {
        "Content-Security-Policy": content_security_policy(),
        "Cache-Control": "public, max-age=86400" if vendored else "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",  # the sign-in's code never leaves in a Referer
        "X-Frame-Options": "DENY",
    }


@cache
def _read(path: Path) -> bytes:
    return path.read_bytes()


def static_file(folder: str, name: str) -> tuple[bytes, str]:
    """The bytes and media type of ``static/FOLDER/NAME``; 404 for anything else."""
    base = (STATIC / folder).resolve()
    path = (base / name).resolve()
    mimetype = TYPES.get(path.suffix)
    if mimetype is None or path.parent != base or not path.is_file():
        raise NotFound(f"No portal file {folder}/{name}.")
    return _read(path), mimetype


def config() -> dict[str, str]:
    """What the page needs to sign in: public values only (no secret: a public PKCE client)."""
    settings = get_settings()
    return {
        "issuer": settings.oidc_issuer,
        "client_id": settings.oidc_client_id,
        "authorization_endpoint": settings.oidc_authorize_url,
        "token_endpoint": settings.oidc_token_url,
        "redirect_uri": settings.portal_redirect_uri,
        "scope": "openid email",
    }
