"""The developer-portal key API, authenticated by ID tokens from a loopback JWKS."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from common.accounts import keys
from common.accounts.consumers import find_by_email
from common.adapters.firestore import API_KEYS, get_db, where_eq
from tests.helpers import bearer, client

pytestmark = pytest.mark.emulator
URL = "/v1/portal/keys"


@pytest.fixture
def alice(db, local_idp):
    local_idp.provision("alice@example.org")
    return bearer(local_idp.token("alice@example.org"))


def create(auth, **body):
    return client("portal").post(URL, json={"name": "laptop", **body}, headers=auth)


def test_create_shows_the_key_once_and_it_works(alice):
    response = create(alice, expires_in_days=30)
    assert response.status_code == 201
    data = response.get_json()["data"]
    assert data["key"].startswith("ars_live_")
    assert data["status"] == "active"
    assert data["expires_at"] is not None
    assert data["masked"] == keys.mask(data["key"])
    api = client().get("/v1/tracking/subscriptions", headers=bearer(data["key"]))
    assert api.status_code == 200
    listed = client("portal").get(URL, headers=alice).get_json()
    assert listed["total"] == 1
    assert "key" not in listed["data"][0]
    assert "key_hash" not in listed["data"][0]
    assert data["key"] not in str(listed)


def test_one_idempotency_key_creates_one_key_and_its_replay_never_shows_the_key(alice):
    """Issue 24: a retried create creates nothing new; the key stays shown once, hashed at
    rest (the replay answers with its record, without it)."""
    keyed = {**alice, "Idempotency-Key": "create-laptop-key-1"}
    first = client("portal").post(URL, json={"name": "laptop"}, headers=keyed)
    again = client("portal").post(URL, json={"name": "laptop"}, headers=keyed)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    created, replayed = first.get_json()["data"], again.get_json()["data"]
    assert created["key"].startswith("ars_live_")
    assert "key" not in replayed
    assert replayed["id"] == created["id"]
    assert client("portal").get(URL, headers=alice).get_json()["total"] == 1
    stored = str([d.to_dict() for d in get_db().collection("idempotency_keys").stream()])
    assert created["key"] not in stored


def test_revoke_takes_effect_and_is_owner_only(alice, local_idp):
    local_idp.provision("bob@example.org")
    bob = bearer(local_idp.token("bob@example.org"))
    data = create(alice).get_json()["data"]
    assert client("portal").delete(f"{URL}/{data['id']}", headers=bob).status_code == 404
    revoked = client("portal").delete(f"{URL}/{data['id']}", headers=alice)
    assert revoked.status_code == 200
    assert revoked.get_json()["data"]["status"] == "revoked"
    api = client().get("/v1/tracking/subscriptions", headers=bearer(data["key"]))
    assert api.status_code == 401
    assert client("portal").get(URL, headers=bob).get_json()["total"] == 0


def test_active_key_limit_is_409_and_revoked_keys_do_not_count(alice, settings_env):
    settings_env(MAX_ACTIVE_KEYS_PER_CONSUMER="2")
    first = create(alice).get_json()["data"]
    assert create(alice).status_code == 201
    third = create(alice)
    assert third.status_code == 409
    assert third.get_json()["code"] == "limit_exceeded"
    client("portal").delete(f"{URL}/{first['id']}", headers=alice)
    assert create(alice).status_code == 201


def test_parallel_key_creates_are_served_up_to_the_cap(alice):
    # They contend on the consumer's record like subscription creates (issue 43, decision
    # 0064): all served up to MAX_ACTIVE_KEYS_PER_CONSUMER (10), the rest meet the cap.
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: create(alice), range(12)))
    codes = sorted(str(a.status_code) + str((a.get_json() or {}).get("code")) for a in answers)
    assert codes == ["201None"] * 10 + ["409limit_exceeded"] * 2
    owner = find_by_email("alice@example.org")["id"]
    stored = get_db().collection(API_KEYS).where(filter=where_eq("consumer_id", owner))
    assert len(list(stored.stream())) == 10


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "k", "expires_in_days": 0}, "expires_in_days"),
        ({"name": "k", "expires_in_days": 366}, "expires_in_days"),
        ({"name": "k", "scope": "all"}, "scope"),
    ],
)
def test_bad_bodies_are_400(alice, body, field):
    response = client("portal").post(URL, json=body, headers=alice)
    assert response.status_code == 400
    assert field in [e["field"] for e in response.get_json()["errors"]]


def test_a_valid_token_of_an_unprovisioned_user_is_403(db, local_idp):
    response = client("portal").get(URL, headers=bearer(local_idp.token("new@example.org")))
    assert response.status_code == 403
    assert response.get_json()["code"] == "not_provisioned"


def test_api_keys_and_bad_tokens_are_not_portal_credentials(alice, local_idp):
    key = create(alice).get_json()["data"]["key"]
    for header in [
        bearer(key),
        {},
        bearer("x.y.z"),
        bearer(local_idp.token("alice@example.org", audience="other")),
    ]:
        response = client("portal").get(URL, headers=header)
        assert response.status_code == 401


def test_last_used_is_recorded_coarsely(db, local_idp, settings_env):
    settings_env(KEY_CACHE_TTL_S="0")  # every request reads the key record
    consumer_id = local_idp.provision("use@example.org")
    issued = keys.issue_key(consumer_id)
    ref = get_db().collection(API_KEYS).document(issued.key_id)
    assert ref.get().get("last_used_at") is None
    keys.verify(issued.plaintext)
    first = ref.get().get("last_used_at")
    assert first is not None
    for _ in range(3):
        keys.verify(issued.plaintext)
    assert ref.get().get("last_used_at") == first  # within the interval: no more writes


def test_rotation_issues_a_successor_and_the_old_key_expires_after_the_grace(db, local_idp):
    consumer_id = local_idp.provision("rotate@example.org")
    old = keys.issue_key(consumer_id, name="ci")
    new = keys.rotate_key(old.key_id, grace_hours=1)
    assert new.record["name"] == "ci"
    assert keys.verify(old.plaintext) is not None  # still within the grace period
    assert keys.verify(new.plaintext) is not None
    immediate = keys.rotate_key(new.key_id, grace_hours=0)
    keys.clear_cache()
    assert keys.verify(new.plaintext) is None
    assert keys.verify(immediate.plaintext) is not None
    assert keys.rotate_key("key_00000000000000000000") is None


def test_portal_requests_count_against_the_consumers_rate_limit(alice, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="2")
    statuses = [client("portal").get(URL, headers=alice).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
