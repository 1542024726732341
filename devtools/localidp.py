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
