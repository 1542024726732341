"""The portal page's server side (decision 0030): key rotation and usage with an ID token,
the static files with their Content-Security-Policy, and the page's sign-in settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from common.accounts import keys
from common.billing import metering
from tests.helpers import bearer, client

pytestmark = pytest.mark.emulator
KEYS = "/v1/portal/keys"


@pytest.fixture
def alice(db, local_idp):
    local_idp.provision("alice@example.org")
    return bearer(local_idp.token("alice@example.org"))


def create(auth, name="laptop"):
    return client("portal").post(KEYS, json={"name": name}, headers=auth).get_json()["data"]


def test_rotate_issues_a_successor_and_the_old_key_expires_after_the_grace(alice):
    old = create(alice)
    answer = client("portal").post(
        f"{KEYS}/{old['id']}/rotate", json={"grace_hours": 2}, headers=alice
    )
    assert answer.status_code == 200
    body = answer.get_json()
    new, previous = body["data"], body["previous"]
    assert new["key"].startswith("ars_")
    assert new["key"] != old["key"]
    assert new["name"] == "laptop"
    expires = datetime.fromisoformat(previous["expires_at"])
    assert timedelta(hours=1.9) < expires - datetime.now(UTC) <= timedelta(hours=2)
    for key in (old["key"], new["key"]):  # both work during the grace period
        assert client().get("/v1/tracking/topics", headers=bearer(key)).status_code == 200
    assert "key" not in previous


def test_rotate_is_owner_only_and_refuses_a_revoked_key(alice, local_idp):
    local_idp.provision("bob@example.org")
    bob = bearer(local_idp.token("bob@example.org"))
    key = create(alice)
    url = f"{KEYS}/{key['id']}/rotate"
    assert client("portal").post(url, json={}, headers=bob).status_code == 404
    client("portal").delete(f"{KEYS}/{key['id']}", headers=alice)
    refused = client("portal").post(url, json={}, headers=alice)
    assert refused.status_code == 409
    assert refused.mimetype == "application/problem+json"
    too_long = client("portal").post(url, json={"grace_hours": 10_000}, headers=alice)
    assert too_long.status_code == 400


def test_rotation_counts_against_the_active_key_cap(alice, local_idp, settings_env):
    # the old key stays active through its grace beside its successor: rotating again and
    # again was a way past the cap (issue 27)
    settings_env(MAX_ACTIVE_KEYS_PER_CONSUMER="3")
    consumer = local_idp.provision("alice@example.org")
    key = create(alice)
    for _ in range(2):  # 1 -> 2 -> 3 active keys
        answer = client("portal").post(f"{KEYS}/{key['id']}/rotate", json={}, headers=alice)
        assert answer.status_code == 200
        key = answer.get_json()["data"]
    refused = client("portal").post(f"{KEYS}/{key['id']}/rotate", json={}, headers=alice)
    assert refused.status_code == 409
    assert "revoke one" in refused.get_json()["detail"]
    assert len(active_keys(consumer)) == 3  # nothing was written by the refused rotation
    replaced = client("portal").post(  # no grace: the successor replaces the key at once
        f"{KEYS}/{key['id']}/rotate", json={"grace_hours": 0}, headers=alice
    )
    assert replaced.status_code == 200
    assert len(active_keys(consumer)) == 3


def active_keys(consumer):
    now = datetime.now(UTC)
    return [k for k in keys.list_keys(consumer) if keys.key_status(k, now) == "active"]


def test_usage_counts_per_operation_and_per_day_with_the_id_token(alice, local_idp):
    consumer = local_idp.provision("alice@example.org")
    now = datetime.now(UTC)
    metering.record(consumer, "chat.intent", "req-1", at=now)
    metering.record(consumer, "chat.intent", "req-2", at=now)
    metering.record(consumer, "search.query", "req-3", at=now)
    answer = client("portal").get(f"/v1/portal/usage?month={now:%Y-%m}", headers=alice)
    assert answer.status_code == 200
    usage = answer.get_json()
    assert usage["total"]["requests"] == 3
    assert {line["operation"]: line["requests"] for line in usage["operations"]} == {
        "chat.intent": 2,
        "search.query": 1,
    }
    assert len(usage["days"]) == now.day
    today = usage["days"][-1]
    assert today["day"] == now.date().isoformat()
    assert today["requests"] == 3
    assert today["cost_micros"] == usage["total"]["cost_micros"]
    assert client("portal").get("/v1/portal/usage?month=2026-13", headers=alice).status_code == 400
    for month in ("0000-01", "1999-12", "9999-12"):  # year 0 was a 500, 9999 a range of nothing
        refused = client("portal").get(f"/v1/portal/usage?month={month}", headers=alice)
        assert refused.status_code == 400, month
        error = refused.get_json()["errors"][0]
        assert error["field"] == "month"
        assert "from 2020-01 to" in error["message"], error
    assert client("portal").get("/v1/portal/usage").status_code == 401  # an ID token, not a key


def test_the_page_and_its_files_are_served_with_a_strict_policy(db):
    page = client("portal").get("/portal/")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy
    assert "style-src 'self';" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    script = client("portal").get("/portal/app.js")
    assert script.mimetype == "text/javascript"
    assert script.headers["Content-Security-Policy"] == policy
    vendored = client("portal").get("/portal/vendor/swagger-ui-dist/swagger-ui-bundle.js")
    assert vendored.status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/portal/..%2Fportal%2Fservice.py",
        "/portal/vendor/..%2F..%2Fcommon/config.py",
        "/portal/vendor/swagger-ui-dist/package.json",
        "/portal/missing.js",
        "/portal/.hidden.js",
    ],
)
def test_nothing_but_the_static_files_is_served(db, path):
    answer = client("portal").get(path)
    assert answer.status_code in (400, 404)
    assert answer.mimetype == "application/problem+json"


def test_config_tells_the_page_where_to_sign_in(db, local_idp):
    config = client("portal").get("/portal/config.json").get_json()
    assert config["issuer"] == local_idp.issuer
    assert config["client_id"] == local_idp.audience  # the ID token's audience
    assert config["authorization_endpoint"] == f"{local_idp.issuer}/authorize"
    assert config["token_endpoint"] == f"{local_idp.issuer}/token"
    assert config["redirect_uri"] == ""  # the page's own /portal/ URL


def test_static_routes_are_not_in_the_openapi_document(db):
    paths = client("portal").get("/openapi.json")
    document = client().get("/openapi.json").get_json()
    assert "/v1/portal/keys/{id}/rotate" in document["paths"]
    assert not [p for p in document["paths"] if p.startswith("/portal/")]
    assert paths.status_code == 404  # the portal entry point serves the page, not the document
