"""ID-token verification against keys served by a loopback JWKS server."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from common.accounts.oidc import MIN_REFETCH_S, jwks, verify_id_token
from common.errors import BackendUnavailable, InvalidToken
from devtools.emulator import free_port
from devtools.localidp import id_token, jwks_document, new_private_key, serve_jwks

ISSUER = "https://idp.example.org"
AUDIENCE = "portal-test"


def server_url(server) -> str:
    return f"http://127.0.0.1:{server.server_port}/.well-known/jwks.json"


@pytest.fixture(scope="module")
def signing_key():
    return new_private_key()


@pytest.fixture
def idp(signing_key, settings_env):
    """A JWKS server on a fresh port (so a fresh key cache), configured in the settings."""
    document = jwks_document(signing_key)
    server = serve_jwks(document, free_port())
    settings_env(OIDC_ISSUER=ISSUER, OIDC_AUDIENCE=AUDIENCE, OIDC_JWKS_URL=server_url(server))
    yield server, document
    server.shutdown()


def token(key, **overrides):
    claims = {"sub": "user_1", "issuer": ISSUER, "audience": AUDIENCE, **overrides}
    return id_token(key, **claims)


def test_valid_token(idp, signing_key):
    assert verify_id_token(token(signing_key))["sub"] == "user_1"


@pytest.mark.parametrize(
    "overrides",
    [{"issuer": "https://evil.example.org"}, {"audience": "another-app"}, {"lifetime_s": -120}],
)
def test_wrong_issuer_audience_or_expired(idp, signing_key, overrides):
    with pytest.raises(InvalidToken):
        verify_id_token(token(signing_key, **overrides))


def test_not_yet_valid_beyond_leeway(idp, signing_key):
    with pytest.raises(InvalidToken):
        verify_id_token(token(signing_key, nbf=int(time.time()) + 600))


def test_unsigned_token_is_rejected(idp):
    now = int(time.time())
    unsigned = jwt.encode(
        {"sub": "user_1", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 60},
        None,
        algorithm="none",
    )
    with pytest.raises(InvalidToken):
        verify_id_token(unsigned)


def test_hs256_signed_with_the_public_key_is_rejected(idp, signing_key):
    """The classic algorithm-confusion attack: HMAC keyed with the RSA public key."""
    public_pem = signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    kid = jwt.get_unverified_header(token(signing_key))["kid"]
    now = int(time.time())

    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    signing_input = (
        part({"alg": "HS256", "typ": "JWT", "kid": kid})
        + "."
        + part({"sub": "user_1", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 60})
    )
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    forged = signing_input + "." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
    with pytest.raises(InvalidToken):
        verify_id_token(forged)


def test_garbage_and_missing_claims(idp, signing_key):
    for bad in ["not-a-jwt", "a.b.c", ""]:
        with pytest.raises(InvalidToken):
            verify_id_token(bad)
    without_sub = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "iat": int(time.time()), "exp": int(time.time()) + 60},
        signing_key,
        algorithm="RS256",
        headers={"kid": jwt.get_unverified_header(token(signing_key))["kid"]},
    )
    with pytest.raises(InvalidToken):
        verify_id_token(without_sub)


def test_unknown_kid_refetches_the_keys_once(idp, signing_key):
    server, document = idp
    assert verify_id_token(token(signing_key))
    fetched = server.fetches
    rotated = new_private_key()
    document["keys"] = jwks_document(signing_key, rotated)["keys"]  # the IdP adds a key
    # An unknown kid allows one refetch once MIN_REFETCH_S has passed since the last fetch;
    # the last fetch was just now, so age the cache instead of sleeping 30 s.
    jwks(server_url(server))._fetched_at -= MIN_REFETCH_S
    assert verify_id_token(token(rotated))["sub"] == "user_1"
    assert server.fetches == fetched + 1


def test_unknown_kid_is_401_and_does_not_hammer_the_idp(idp, signing_key):
    server, _ = idp
    assert verify_id_token(token(signing_key))
    fetched = server.fetches
    stranger = new_private_key()
    for _ in range(5):
        with pytest.raises(InvalidToken):
            verify_id_token(token(stranger))
    assert server.fetches == fetched  # refetches are at most one per MIN_REFETCH_S


def test_unreachable_jwks_is_502(signing_key, settings_env):
    url = f"http://127.0.0.1:{free_port()}/.well-known/jwks.json"
    settings_env(OIDC_ISSUER=ISSUER, OIDC_AUDIENCE=AUDIENCE, OIDC_JWKS_URL=url)
    with pytest.raises(BackendUnavailable):
        verify_id_token(token(signing_key))


def test_a_kid_naming_a_non_rsa_key_is_401(idp, signing_key):
    server, document = idp
    secret_jwk = {"kty": "oct", "kid": "sym-1", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ"}
    document["keys"] = [*jwks_document(signing_key)["keys"], secret_jwk]
    jwks(server_url(server))._fetched_at -= MIN_REFETCH_S
    now = int(time.time())
    forged = jwt.encode(
        {"sub": "user_1", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 60},
        signing_key,
        algorithm="RS256",
        headers={"kid": "sym-1"},
    )
    with pytest.raises(InvalidToken):
        verify_id_token(forged)
