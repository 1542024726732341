"""The developer portal in a real browser (decision 0030): Debian's chromium driven by
Playwright, against a real functions-framework server and the local identity provider.

`make test` installs chromium with apt when it is missing; run alone, these tests fail with a
clear message instead. Nothing here downloads a browser (``playwright install`` cannot work
offline)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from common.config import LOCAL_OIDC_AUDIENCE, LOCAL_WEBHOOK_SECRET
from devtools import localidp
from devtools.emulator import Emulator, free_port
from tests.conftest import ROOT
from tests.e2e.conftest import healthy_within, server_env, start_api

SCREENSHOTS = ROOT / ".local" / "screenshots"


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    pytest.fail(
        "The browser tests need Debian's chromium: `apt-get install chromium` "
        "(`make test` installs it when it is missing)."
    )


@dataclass
class Portal:
    base: str
    idp: str
    log: Path


@pytest.fixture(scope="session")
def portal(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Portal]:
    """A server whose ID tokens come from a local identity provider that signs people in."""
    port, idp_port = free_port(), free_port()
    base, issuer = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{idp_port}"
    idp = localidp.serve_provider(
        localidp.new_private_key(),
        idp_port,
        issuer=issuer,
        client_id=LOCAL_OIDC_AUDIENCE,
        webhook_url=f"{base}/webhooks/idp",
        webhook_secret=LOCAL_WEBHOOK_SECRET,
        environment="test",
    )
    workdir = tmp_path_factory.mktemp("portal")
    env = {
        **server_env(emulator),
        "OIDC_ISSUER": issuer,
        "OIDC_AUDIENCE": LOCAL_OIDC_AUDIENCE,
        "OIDC_JWKS_URL": f"{issuer}/.well-known/jwks.json",
        "IDP_WEBHOOK_SECRET": LOCAL_WEBHOOK_SECRET,
        "OUTBOX_DIR": str(workdir / "outbox"),
    }
    log_path = workdir / "server.log"
    log = open(log_path, "wb")  # noqa: SIM115
    process = start_api(env, port, log)
    try:
        if not healthy_within(base, 30):
            pytest.fail("the functions-framework server did not become healthy")
        yield Portal(base=base, idp=issuer, log=log_path)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
        idp.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox"],  # root in containers
        )
        yield launched
        launched.close()


@contextmanager
def watched_page(browser, portal: Portal, **context_options) -> Iterator:
    """A page in a fresh browser context that fails the test on any console error, page error
    or request to anything but the server and the local identity provider."""
    allowed = {urlsplit(portal.base).netloc, urlsplit(portal.idp).netloc}
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context_options})
    errors: list[str] = []
    outside: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or parts.netloc in allowed:
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    yield page
    context.close()
    assert not outside, f"requests left the local servers: {outside}"
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def page(browser, portal: Portal) -> Iterator:
    with watched_page(browser, portal) as opened:
        yield opened


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
