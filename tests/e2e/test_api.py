"""The whole service over HTTP, keys issued by the admin CLI, as a new user would use it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from common.adapters.firestore import API_KEYS, get_db
from tests.e2e.conftest import admin, issue_key
from tests.helpers import bearer, problem_core

pytestmark = pytest.mark.e2e
URL = "/v1/tracking/subscriptions"


def test_health_reports_the_version(http):
    response = http.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["version"]
    assert uuid.UUID(response.headers["x-correlation-id"])


def test_openapi_document_is_served_without_auth(http):
    doc = http.get("/openapi.json").json()
    assert doc["openapi"] == "3.1.0"
    assert "/v1/tracking/subscriptions/{id}" in doc["paths"]
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_two_consumers_are_private_to_each_other(http, emulator):
    alice = bearer(issue_key(emulator, f"alice-{uuid.uuid4().hex[:6]}@example.org"))
    bob = bearer(issue_key(emulator, f"bob-{uuid.uuid4().hex[:6]}@example.org"))
    created = http.post(URL, json={"topics": ["fur"]}, headers=alice)
    assert created.status_code == 201
    sub_id = created.json()["data"]["id"]
    assert http.get(URL, headers=bob).json()["total"] == 0
    assert http.patch(f"{URL}/{sub_id}", json={"active": False}, headers=bob).status_code == 404
    assert http.delete(f"{URL}/{sub_id}", headers=bob).status_code == 404
    mine = http.get(URL, headers=alice).json()
    assert [s["id"] for s in mine["data"]] == [sub_id]
    assert mine["data"][0]["active"] is True
    assert http.delete(f"{URL}/{sub_id}", headers=alice).json() == {"deleted": True}
    assert http.delete(f"{URL}/{sub_id}", headers=alice).status_code == 404


def test_every_kind_of_bad_key_gets_the_same_401(http, emulator):
    email = f"carol-{uuid.uuid4().hex[:6]}@example.org"
    revoked = issue_key(emulator, email)
    expired = admin(emulator, "issue-key", "--email", email, "--expires-in-days", "1")
    listed = admin(emulator, "list-keys", "--email", email).stdout
    assert revoked not in listed  # listing never shows a key
    records = [json.loads(line) for line in listed.splitlines()]
    by_masked = {r["masked"][-4:]: r["id"] for r in records}
    assert admin(emulator, "revoke-key", by_masked[revoked[-4:]]).returncode == 0
    # Expire the second key in Firestore, as time would.
    get_db().collection(API_KEYS).document(by_masked[expired.stdout.strip()[-4:]]).update(
        {"expires_at": datetime.now(UTC) - timedelta(minutes=1)}
    )
    headers = [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer ars_live_malformed"},
        {"Authorization": "Token " + revoked},
        bearer("ars_live_" + "A" * 38),
        bearer(revoked),
        bearer(expired.stdout.strip()),
    ]
    bodies = []
    for header in headers:
        response = http.get(URL, headers=header)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.headers["content-type"] == "application/problem+json"
        bodies.append(problem_core(response.json()))
    assert all(body == bodies[0] for body in bodies)


def test_errors_carry_the_callers_correlation_id(http):
    response = http.get("/v1/nowhere", headers={"x-correlation-id": "trace-42"})
    assert response.status_code == 404
    assert response.headers["x-correlation-id"] == "trace-42"
    assert response.json()["correlationId"] == "trace-42"


def test_admin_cli_reports_bad_input_clearly(emulator):
    done = admin(emulator, "issue-key", "--email", "not-an-email")
    assert done.returncode == 2
    assert "not a valid email" in done.stderr
    missing = admin(emulator, "list-keys", "--email", "nobody@example.org")
    assert missing.returncode == 1
    assert "No consumer" in missing.stderr


def test_paths_the_framework_cannot_route_still_get_problem_json(http):
    for path in ["/v1/tracking/subscriptions/%0A", "/favicon.ico", "/robots.txt"]:
        response = http.delete(path)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"
        assert response.headers["x-correlation-id"]
