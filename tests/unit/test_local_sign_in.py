"""The local identity provider's sign-in (decision 0030): authorization code + PKCE S256,
over real loopback HTTP. Development only."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest

from devtools import localidp
from devtools.emulator import free_port

CLIENT = "portal-client"
REDIRECT = "http://127.0.0.1:9/portal/"
VERIFIER = "a-verifier-of-enough-length-for-pkce-0123456789"


def challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def idp() -> Iterator[tuple[str, object]]:
    port = free_port()
    issuer = f"http://127.0.0.1:{port}"
    key = localidp.new_private_key()
    server = localidp.serve_provider(key, port, issuer=issuer, client_id=CLIENT, environment="test")
    yield issuer, key
    server.shutdown()


def authorize(issuer: str, **overrides: str) -> httpx.Response:
    params = {
        "response_type": "code",
        "client_id": CLIENT,
        "redirect_uri": REDIRECT,
        "scope": "openid email",
        "state": "st",
        "nonce": "nn",
        "code_challenge": challenge(VERIFIER),
        "code_challenge_method": "S256",
        "email": "dev@example.org",
        **overrides,
    }
    return httpx.post(f"{issuer}/authorize", data=params, timeout=5)


def token(issuer: str, code: str, verifier: str = VERIFIER) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": CLIENT,
        "code_verifier": verifier,
    }
    return httpx.post(f"{issuer}/token", data=form, timeout=5)


def code_of(response: httpx.Response) -> str:
    assert response.status_code == 303
    query = parse_qs(urlsplit(response.headers["location"]).query)
    assert query["state"] == ["st"]
    return query["code"][0]


def test_the_form_is_shown_and_a_code_becomes_an_id_token_once(idp):
    issuer, key = idp
    form = httpx.get(
        f"{issuer}/authorize",
        params={
            "response_type": "code",
            "client_id": CLIENT,
            "redirect_uri": REDIRECT,
            "scope": "openid",
            "code_challenge": challenge(VERIFIER),
            "code_challenge_method": "S256",
        },
        timeout=5,
    )
    assert form.status_code == 200
    assert '<label for="email">' in form.text
    code = code_of(authorize(issuer))
    answer = token(issuer, code)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    claims = jwt.decode(
        answer.json()["id_token"], key.public_key(), algorithms=["RS256"], audience=CLIENT
    )
    assert claims["iss"] == issuer
    assert claims["email"] == "dev@example.org"
    assert claims["nonce"] == "nn"
    assert claims["sub"] == localidp.local_user_id("dev@example.org")
    assert token(issuer, code).status_code == 400  # a code is used once


def test_a_wrong_verifier_gets_no_token(idp):
    issuer, _ = idp
    code = code_of(authorize(issuer))
    answer = token(issuer, code, verifier="another-verifier-of-enough-length-0123456789")
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "overrides",
    [
        {"code_challenge_method": "plain"},
        {"client_id": "someone-else"},
        {"redirect_uri": "https://attacker.example/portal/"},
        {"response_type": "token"},
    ],
)
def test_bad_authorization_requests_are_refused(idp, overrides):
    assert authorize(idp[0], **overrides).status_code == 400


def test_it_refuses_to_run_outside_local_and_test():
    with pytest.raises(RuntimeError, match="local or test"):
        localidp.serve_provider(
            localidp.new_private_key(),
            free_port(),
            issuer="http://127.0.0.1:1",
            client_id=CLIENT,
            environment="prod",
        )


def test_vendored_files_match_their_manifest():
    from devtools import vendor

    assert vendor.check() == []
    for package in vendor.manifest():
        assert package["license"]
        for licence in package["licence_files"]:
            assert licence in package["files"]
