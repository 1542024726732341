"""A local stand-in for the identity provider: an RSA signing key, its JWKS, ID tokens and
signed webhooks. Used by `make run` (serves the JWKS), `python -m devtools.idp` and tests.
Never deployed."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parent.parent


def local_dir() -> Path:
    import os

    return Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))


def new_private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def load_or_create_key(path: Path | None = None) -> rsa.RSAPrivateKey:
    path = path or local_dir() / "idp" / "signing-key.pem"
    if path.exists():
        return serialization.load_pem_private_key(path.read_bytes(), password=None)
    key = new_private_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return key


def kid_of(key: rsa.RSAPrivateKey) -> str:
    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()[:16]


def jwks_document(*keys: rsa.RSAPrivateKey) -> dict[str, Any]:
    import jwt

    entries = []
    for key in keys:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        entries.append({**jwk, "kid": kid_of(key), "use": "sig", "alg": "RS256"})
    return {"keys": entries}


def id_token(
    key: rsa.RSAPrivateKey,
    *,
    sub: str,
    issuer: str,
    audience: str,
    lifetime_s: int = 3600,
    **claims: Any,
) -> str:
    import jwt

    now = int(time.time())
    payload = {
        "sub": sub,
        "iss": issuer,
        "aud": audience,
        "iat": now,
        "nbf": now,
        "exp": now + lifetime_s,
        **claims,
    }
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid_of(key)})


def local_user_id(email: str) -> str:
    """The IdP user id the local stand-in gives an email address (stable across runs)."""
    return "user_local_" + hashlib.sha256(email.lower().encode()).hexdigest()[:20]


def user_event(
    kind: str, email: str, *, user_id: str | None = None, updated_at_ms: int | None = None
) -> dict[str, Any]:
    """A Clerk-shaped user event."""
    user_id = user_id or local_user_id(email)
    now_ms = updated_at_ms or int(time.time() * 1000)
    if kind == "user.deleted":
        data: dict[str, Any] = {"id": user_id, "object": "user", "deleted": True}
    else:
        email_id = "idn_" + hashlib.sha256(email.encode()).hexdigest()[:20]
        data = {
            "id": user_id,
            "object": "user",
            "first_name": "Local",
            "last_name": "User",
            "primary_email_address_id": email_id,
            "email_addresses": [
                {
                    "id": email_id,
                    "email_address": email,
                    "object": "email_address",
                    "verification": {"status": "verified"},
                }
            ],
            "created_at": now_ms,
            "updated_at": now_ms,
        }
    return {"object": "event", "type": kind, "timestamp": now_ms, "data": data}


def signed_webhook(
    event: dict[str, Any],
    secret: str,
    *,
    msg_id: str | None = None,
    at: datetime | None = None,
    spelling: str = "svix",
) -> tuple[bytes, dict]:
    """The body and headers of a webhook delivery, signed as the IdP signs it."""
    from standardwebhooks.webhooks import Webhook

    body = json.dumps(event)
    msg_id = msg_id or f"msg_{uuid.uuid4().hex}"
    at = at or datetime.now(UTC)
    signature = Webhook(secret).sign(msg_id, at, body)
    headers = {
        f"{spelling}-id": msg_id,
        f"{spelling}-timestamp": str(int(at.timestamp())),
        f"{spelling}-signature": signature,
        "Content-Type": "application/json",
    }
    return body.encode(), headers


def serve_jwks(document: dict[str, Any], port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """Serve ``document`` at /.well-known/jwks.json on a background thread. The document is
    read at each request (tests change its keys); ``server.fetches`` counts the requests."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/.well-known/jwks.json":
                self.send_error(404)
                return
            server.fetches += 1
            payload = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.fetches = 0  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


SIGN_IN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in (local identity provider)</title>
<link rel="icon" href="data:,">
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto;
  padding: 0 1rem; color: #1a1a1a; }}
label {{ display: block; font-weight: 600; margin-bottom: .25rem; }}
input[type=email] {{ width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; }}
button {{ margin-top: 1rem; padding: .6rem 1.2rem; font-size: 1rem; background: #0b57d0;
  color: #fff; border: 0; border-radius: 4px; }}
p.note {{ color: #444; }}
</style></head>
<body><main>
<h1>Sign in</h1>
<p class="note">Local identity provider of <code>make run</code>: any email address signs in.
For development only.</p>
<form method="post" action="/authorize">
<label for="email">Email address</label>
<input id="email" name="email" type="email" required autocomplete="email" autofocus>
{hidden}
<button type="submit">Sign in</button>
</form></main></body></html>
"""

AUTHORIZE_PARAMS = (
    "client_id",
    "redirect_uri",
    "state",
    "nonce",
    "code_challenge",
    "code_challenge_method",
    "response_type",
    "scope",
)


def _loopback(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost")


def serve_provider(
    key: rsa.RSAPrivateKey,
    port: int,
    *,
    issuer: str,
    client_id: str,
    webhook_url: str | None = None,
    webhook_secret: str | None = None,
    environment: str = "local",
    host: str = "127.0.0.1",
) -> ThreadingHTTPServer:
    """The local identity provider on a background thread: its JWKS and discovery document, an
    authorization endpoint with a sign-in form (any email; OIDC authorization code + PKCE S256)
    and a token endpoint that answers an ID token. Signing in first sends the server a signed
    ``user.created`` event (as the hosted IdP's webhook would), so the account exists.
    Development only: refused unless ``environment`` is local or test."""
    import base64
    import html
    import secrets
    from urllib.parse import parse_qs, urlencode, urlsplit

    if environment not in ("local", "test"):
        raise RuntimeError("The local identity provider runs only with ENVIRONMENT local or test.")
    issuer = issuer.rstrip("/")
    codes: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()
    discovery = {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "jwks_uri": f"{issuer}/.well-known/jwks.json",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": ["openid", "email"],
        "token_endpoint_auth_methods_supported": ["none"],
    }

    class Handler(BaseHTTPRequestHandler):
        def _send(
            self, status: int, body: bytes, content_type: str, extra: dict | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, document: dict[str, Any]) -> None:
            cors = {"Access-Control-Allow-Origin": "*"}
            self._send(status, json.dumps(document).encode(), "application/json", cors)

        def _form(self) -> dict[str, str]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(length, 65536)).decode()
            return {k: v[0] for k, v in parse_qs(raw).items()}

        def _authorize_error(self, params: dict[str, str]) -> str | None:
            if params.get("response_type") != "code":
                return "response_type must be code"
            if params.get("client_id") != client_id:
                return "unknown client_id"
            if not _loopback(params.get("redirect_uri", "")):
                return "redirect_uri must be a loopback http URL (local identity provider)"
            if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
                return "PKCE with code_challenge_method=S256 is required"
            if "openid" not in params.get("scope", "").split():
                return "scope must include openid"
            return None

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/.well-known/jwks.json":
                server.fetches += 1
                self._json(200, jwks_document(key))
            elif parts.path == "/.well-known/openid-configuration":
                self._json(200, discovery)
            elif parts.path == "/authorize":
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if error := self._authorize_error(params):
                    self._send(400, error.encode(), "text/plain; charset=utf-8")
                    return
                hidden = "\n".join(
                    f'<input type="hidden" name="{name}" value="{html.escape(params[name])}">'
                    for name in AUTHORIZE_PARAMS
                    if name in params
                )
                page = SIGN_IN_PAGE.format(hidden=hidden).encode()
                self._send(200, page, "text/html; charset=utf-8")
            else:
                self.send_error(404)

        def do_OPTIONS(self) -> None:  # CORS preflight of the token endpoint
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Methods", "POST")
            self.send_header("Access-Control-Allow-Headers", "Content-Type")
            self.end_headers()

        def do_POST(self) -> None:
            if self.path == "/authorize":
                self._sign_in(self._form())
            elif self.path == "/token":
                self._token(self._form())
            else:
                self.send_error(404)

        def _sign_in(self, params: dict[str, str]) -> None:
            email = params.get("email", "").strip()
            if error := self._authorize_error(params):
                self._send(400, error.encode(), "text/plain; charset=utf-8")
                return
            if "@" not in email:
                self._send(400, b"an email address is required", "text/plain; charset=utf-8")
                return
            if webhook_url and webhook_secret:  # the hosted IdP's user.created webhook
                import httpx

                body, headers = signed_webhook(user_event("user.created", email), webhook_secret)
                httpx.post(webhook_url, content=body, headers=headers, timeout=10)
            code = secrets.token_urlsafe(24)
            with lock:
                codes[code] = {**params, "email": email, "at": time.monotonic()}
            query = {"code": code, **({"state": params["state"]} if "state" in params else {})}
            self._send(
                303,
                b"",
                "text/plain",
                {"Location": f"{params['redirect_uri']}?" + urlencode(query)},
            )

        def _token(self, form: dict[str, str]) -> None:
            with lock:
                grant = codes.pop(form.get("code", ""), None)  # one use only
            if (
                grant is None
                or time.monotonic() - grant["at"] > 120
                or form.get("grant_type") != "authorization_code"
                or form.get("redirect_uri") != grant["redirect_uri"]
                or form.get("client_id") != grant["client_id"]
            ):
                self._json(400, {"error": "invalid_grant"})
                return
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            if challenge != grant["code_challenge"]:
                self._json(400, {"error": "invalid_grant", "error_description": "PKCE failed"})
                return
            nonce = {"nonce": grant["nonce"]} if grant.get("nonce") else {}
            token = id_token(
                key,
                sub=local_user_id(grant["email"]),
                issuer=issuer,
                audience=client_id,
                email=grant["email"],
                **nonce,
            )
            self._json(
                200,
                {
                    "id_token": token,
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "access_token": secrets.token_urlsafe(16),
                },
            )

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.fetches = 0  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server
