"""The developer portal page, end to end in chromium: sign in through the local identity
provider, create a key, call the API with it, see the call in the usage view, rotate and
revoke keys, read the API reference -- with no console error and no request leaving the
local servers (the `page` fixture fails the test otherwise)."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Portal, screenshot, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.emulator]


def sign_in(page, portal: Portal, email: str) -> None:
    page.goto(f"{portal.base}/portal/")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{portal.idp}/authorize?*")
    page.get_by_label("Email address").fill(email)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{portal.base}/portal/")
    page.get_by_text(f"Signed in as {email}").wait_for()


def test_sign_in_create_use_see_usage_and_revoke(page, portal: Portal) -> None:
    page.goto(f"{portal.base}/portal/")
    screenshot(page, "1-sign-in")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{portal.idp}/authorize?*")
    assert "code_challenge_method=S256" in page.url
    screenshot(page, "2-identity-provider")
    page.get_by_label("Email address").fill("dev@example.org")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{portal.base}/portal/")  # the code is gone from the address
    page.get_by_text("Signed in as dev@example.org").wait_for()
    page.get_by_text("No keys yet.").wait_for()

    page.get_by_label("Key name").fill("laptop")
    page.get_by_role("button", name="Create key").click()
    page.get_by_text("Store it now:").wait_for()
    key = page.locator("#new-key-value").inner_text()
    assert re.fullmatch(r"ars_(live|test)_\w+", key)
    row = page.locator("#key-rows tr", has_text="laptop")
    row.get_by_text("active").wait_for()
    assert key not in row.inner_text()  # masked in the list
    screenshot(page, "3-keys")

    auth = {"Authorization": f"Bearer {key}"}
    topics = httpx.get(f"{portal.base}/v1/tracking/topics", headers=auth, timeout=10)
    assert topics.status_code == 200
    intent = httpx.post(
        f"{portal.base}/v1/chat/intent",
        json={"message": "Which laws protect hens in Ohio?"},
        headers=auth,
        timeout=30,
    )
    assert intent.status_code == 200

    page.get_by_role("link", name="Usage").click()
    operations = page.locator("#usage-rows")
    operations.get_by_text("chat.intent").wait_for()
    assert re.search(r"chat\.intent\s+1\s+0\s+\$", operations.inner_text())  # billed, not billed
    assert page.locator("#chart svg rect.bar").count() >= 1
    assert re.match(r"1 requests?, \$", page.locator("#usage-total").inner_text())
    screenshot(page, "4-usage")

    page.get_by_role("link", name="API keys").click()
    row.get_by_role("button", name="Revoke key laptop").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("cannot be undone").wait_for()
    screenshot(page, "5-revoke-confirmation")
    dialog.get_by_role("button", name="Revoke").click()
    row.get_by_text("revoked").wait_for()
    after = httpx.get(f"{portal.base}/v1/tracking/topics", headers=auth, timeout=10)
    assert after.status_code == 401


def test_rotate_keeps_the_old_key_for_the_grace_period(page, portal: Portal) -> None:
    sign_in(page, portal, "rotate@example.org")
    page.get_by_label("Key name").fill("ci")
    page.get_by_role("button", name="Create key").click()
    page.get_by_text("Store it now:").wait_for()
    old = page.locator("#new-key-value").inner_text()
    page.locator("#key-rows tr", has_text="ci").get_by_role("button", name="Rotate key ci").click()
    page.get_by_role("dialog").get_by_label("The old key keeps working for").select_option("1")
    page.get_by_role("dialog").get_by_role("button", name="Rotate").click()
    page.get_by_text("Rotated key").wait_for()
    new = page.locator("#new-key-value").inner_text()
    assert new != old
    expect(page.locator("#key-rows tr", has_text="ci")).to_have_count(2)
    for key in (old, new):  # both work during the grace period
        answer = httpx.get(
            f"{portal.base}/v1/tracking/topics",
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
        )
        assert answer.status_code == 200


def test_api_reference_tries_an_operation_with_the_users_key(page, portal: Portal) -> None:
    sign_in(page, portal, "reader@example.org")
    page.get_by_label("Key name").fill("docs")
    page.get_by_role("button", name="Create key").click()
    page.get_by_text("Store it now:").wait_for()
    page.get_by_role("link", name="API reference").click()
    operation = page.locator("#operations-Tracking-listTrackingTopics")
    operation.locator("button.opblock-summary-control").click()
    page.get_by_role("button", name="Try it out").click()
    with page.expect_response(lambda r: r.url.endswith("/v1/tracking/topics")) as answer:
        page.get_by_role("button", name="Execute").click()
    assert answer.value.status == 200
    assert answer.value.request.headers["authorization"].startswith("Bearer ars_")
    screenshot(page, "6-api-reference")
    key = answer.value.request.headers["authorization"].removeprefix("Bearer ")
    assert key in page.content()  # the reference shows the request it made (curl)

    page.get_by_role("button", name="Sign out").click()
    page.get_by_text("Signed out.").wait_for()
    assert key not in page.content()  # nothing of it stays for the next person at the screen
    assert page.locator("#new-key-value").inner_text() == ""


def test_phone_layout_and_keyboard_sign_in(browser, portal: Portal) -> None:
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
    with watched_page(browser, portal, **phone) as page:
        page.goto(f"{portal.base}/portal/")
        page.locator("#sign-in:enabled").wait_for()  # enabled once the IdP settings are in
        page.keyboard.press("Tab")  # the skip link first
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "sign-in"
        page.keyboard.press("Enter")
        page.wait_for_url(f"{portal.idp}/authorize?*")
        # The email field takes the focus by itself (autofocus), but only once the browser
        # has applied it: typing before then loses the first letters and signs in as
        # "hone@example.org" (the flake seen in CI), so wait for the focus, as a person would.
        expect(page.get_by_label("Email address")).to_be_focused()
        page.keyboard.type("phone@example.org")
        page.keyboard.press("Enter")
        expect(page.locator("#who")).to_have_text("Signed in as phone@example.org")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "the page scrolls sideways on a phone"
        screenshot(page, "7-phone")


def test_portal_pages_carry_a_strict_content_security_policy(portal: Portal) -> None:
    for path in ("/portal/", "/portal/app.js", "/portal/vendor/swagger-ui-dist/swagger-ui.css"):
        answer = httpx.get(f"{portal.base}{path}", timeout=10)
        assert answer.status_code == 200, path
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self';" in policy
        assert "unsafe-inline" not in policy
        assert "unsafe-eval" not in policy
        assert f"connect-src 'self' {portal.idp};" in policy
    index = httpx.get(f"{portal.base}/portal/", timeout=10).text
    assert "<script>" not in index  # nothing inline
    assert " style=" not in index
