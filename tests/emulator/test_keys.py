"""API keys and consumers against the real Firestore emulator."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from common.accounts import keys
from common.accounts.consumers import get_or_create_by_email
from common.adapters.firestore import API_KEYS, CONSUMERS, get_db
from tests.helpers import new_consumer

pytestmark = pytest.mark.emulator


def test_a_valid_key_verifies_to_its_consumer(db):
    consumer, key = new_consumer("a@example.org")
    principal = keys.verify(key)
    assert principal is not None
    assert principal.consumer_id == consumer["id"]
    assert principal.email == "a@example.org"


def test_unknown_well_formed_key_is_rejected(db):
    new_consumer()
    assert keys.verify(keys.generate_key()) is None


def test_only_the_hash_is_stored(db):
    _consumer, key = new_consumer()
    for collection in (API_KEYS, CONSUMERS):
        for doc in get_db().collection(collection).stream():
            assert key not in repr(doc.to_dict())
    stored = next(iter(get_db().collection(API_KEYS).stream())).to_dict()
    assert stored["key_hash"] == keys.hash_key(key)
    assert stored["masked"] == keys.mask(key)


def test_revocation_takes_effect_within_the_cache_ttl(db, settings_env):
    settings_env(KEY_CACHE_TTL_S="0.3")
    _, key = new_consumer()
    principal = keys.verify(key)
    assert principal is not None
    # Another instance revokes it: this process's cache still trusts it until the TTL ends.
    get_db().collection(API_KEYS).document(principal.key_id).update(
        {"revoked_at": datetime.now(UTC)}
    )
    assert keys.verify(key) is not None
    import time

    time.sleep(0.35)
    assert keys.verify(key) is None


def test_revoking_in_this_process_forgets_the_cached_key(db):
    _, key = new_consumer()
    principal = keys.verify(key)
    assert keys.revoke_key(principal.key_id)
    assert keys.verify(key) is None
    assert not keys.revoke_key("key_doesnotexist")


def test_expired_key_is_rejected_even_from_the_cache(db):
    consumer, _ = new_consumer()
    issued = keys.issue_key(consumer["id"], expires_in_days=1)
    assert keys.verify(issued.plaintext) is not None
    get_db().collection(API_KEYS).document(issued.key_id).update(
        {"expires_at": datetime.now(UTC) - timedelta(seconds=1)}
    )
    keys.clear_cache()
    assert keys.verify(issued.plaintext) is None


def test_disabled_consumer_keys_are_rejected(db):
    consumer, key = new_consumer()
    get_db().collection(CONSUMERS).document(consumer["id"]).update({"status": "disabled"})
    assert keys.verify(key) is None


def test_cache_spares_the_database(db, monkeypatch):
    _, key = new_consumer()
    calls = []
    real = keys._load_principal
    monkeypatch.setattr(keys, "_load_principal", lambda *a: calls.append(1) or real(*a))
    for _ in range(5):
        assert keys.verify(key) is not None
    assert len(calls) == 1


def test_consumers_are_found_by_email_case_insensitively(db):
    first, created = get_or_create_by_email("Mixed@Example.org")
    again, created_again = get_or_create_by_email("mixed@example.org")
    assert created
    assert not created_again
    assert first["id"] == again["id"]


def test_listing_keys_never_shows_the_hash(db):
    consumer, _ = new_consumer()
    keys.issue_key(consumer["id"], name="second")
    listed = keys.list_keys(consumer["id"])
    assert [k["name"] for k in listed] == ["second", "default"]
    assert all("key_hash" not in k for k in listed)
