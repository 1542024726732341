"""Idempotency-Key over HTTP against the real functions-framework server."""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.conftest import issue_key
from tests.helpers import bearer

pytestmark = pytest.mark.e2e
URL = "/v1/tracking/subscriptions"


def test_a_replayed_post_creates_exactly_one_subscription(http, emulator):
    auth = bearer(issue_key(emulator, f"idem-{uuid.uuid4().hex[:6]}@example.org"))
    headers = {**auth, "Idempotency-Key": f"create-{uuid.uuid4()}"}
    body = {"topics": ["fur"], "frequency": "weekly"}
    first = http.post(URL, json=body, headers=headers)
    again = http.post(URL, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["content-type"] == "application/json"
    assert again.json() == first.json()
    listed = http.get(URL, headers=auth).json()
    assert listed["total"] == 1
    assert [s["id"] for s in listed["data"]] == [first.json()["data"]["id"]]
    other = http.post(URL, json={**body, "frequency": "daily"}, headers=headers)
    assert other.status_code == 422
    assert other.headers["content-type"] == "application/problem+json"
    assert other.json()["code"] == "idempotency_key_reused"
    assert http.get(URL, headers=auth).json()["total"] == 1


def test_a_replayed_patch_is_not_applied_again(http, emulator):
    auth = bearer(issue_key(emulator, f"idem-{uuid.uuid4().hex[:6]}@example.org"))
    sub_id = http.post(URL, json={"topics": ["fur"]}, headers=auth).json()["data"]["id"]
    pause = {**auth, "Idempotency-Key": f"pause-{uuid.uuid4()}"}
    paused = http.patch(f"{URL}/{sub_id}", json={"active": False}, headers=pause)
    assert paused.status_code == 200
    resumed = http.patch(f"{URL}/{sub_id}", json={"active": True}, headers=auth)
    assert resumed.json()["data"]["active"] is True
    replayed = http.patch(f"{URL}/{sub_id}", json={"active": False}, headers=pause)
    assert replayed.headers["idempotent-replayed"] == "true"
    assert replayed.json() == paused.json()  # the first answer ...
    assert http.get(URL, headers=auth).json()["data"][0]["active"] is True  # ... not re-run
