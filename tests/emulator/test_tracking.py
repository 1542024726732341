"""Tracking subscriptions over HTTP (functions-framework in process) on the real emulator."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from common.adapters.firestore import CONSUMERS, RESULTS, SUBSCRIPTIONS, get_db, where_eq
from tests.helpers import client, create_subscription
from tests.helpers import subscription_doc as stored

pytestmark = pytest.mark.emulator
URL = "/v1/tracking/subscriptions"


def create(auth, **body):
    return create_subscription(auth, body or {"topics": ["cage-free"]})


def test_create_applies_the_defaults(alice):
    consumer, auth = alice
    data = create(auth, topics=["cage-free", "fur"], custom_keywords=["Tyson"])
    assert uuid.UUID(data["id"])
    assert data["user_id"] == consumer["id"]
    assert data["topics"] == ["cage-free", "fur"]
    assert data["custom_keywords"] == ["Tyson"]
    assert data["frequency"] == "daily"
    assert data["delivery_method"] == "email"
    assert data["delivery_email"] == "alice@example.org"
    assert data["active"] is True
    assert data["last_sent_at"] is None
    assert data["specific_interests"] is None
    assert data["created_at"] == data["updated_at"]
    record = stored(data["id"])
    assert record["next_run_at"] <= datetime.now(UTC)  # first digest at the next tick


def test_create_with_every_field(alice):
    _, auth = alice
    data = create(
        auth,
        custom_keywords=["battery cages"],
        frequency="weekly",
        specific_interests="EU retailers",
        delivery_email="team@example.org",
        delivery_method="email",
    )
    assert data["frequency"] == "weekly"
    assert data["delivery_email"] == "team@example.org"
    assert data["specific_interests"] == "EU retailers"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "body"),
        ({"topics": [], "custom_keywords": []}, "body"),
        ({"topics": ["not-a-topic"]}, "topics.0"),
        ({"topics": ["fur"], "specific_interests": "x" * 1001}, "specific_interests"),
        ({"topics": ["fur"], "frequency": "monthly"}, "frequency"),
        ({"topics": ["fur"], "delivery_email": "nope"}, "delivery_email"),
        ({"topics": ["fur"], "active": False}, "active"),
        ({"topics": "fur"}, "topics"),
    ],
)
def test_create_rejects_bad_bodies_and_saves_nothing(alice, body, field):
    _, auth = alice
    response = client().post(URL, json=body, headers=auth)
    assert response.status_code == 400
    problem = response.get_json()
    assert field in [e["field"] for e in problem["errors"]]
    assert list(get_db().collection(SUBSCRIPTIONS).stream()) == []


def test_subscription_limit_gives_409(alice, settings_env):
    settings_env(MAX_SUBSCRIPTIONS_PER_CONSUMER="2")
    _, auth = alice
    create(auth)
    create(auth)
    response = client().post(URL, json={"topics": ["fur"]}, headers=auth)
    assert response.status_code == 409
    assert response.get_json()["code"] == "limit_exceeded"


def parallel_creates(auth: dict[str, str], n: int) -> list[tuple[int, str | None]]:
    """``n`` creates at once, each on its own client: (status, problem code) of each."""

    def attempt(_: int) -> tuple[int, str | None]:
        response = client().post(URL, json={"topics": ["fur"]}, headers=auth)
        return response.status_code, (response.get_json() or {}).get("code")

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(attempt, range(n)))


def stored_and_counted(consumer_id: str) -> tuple[int, int]:
    """The consumer's stored subscriptions, and the count its record holds."""
    owned = get_db().collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", consumer_id))
    record = get_db().collection(CONSUMERS).document(consumer_id).get()
    return len(list(owned.select([]).stream())), record.get("subscription_count")


def test_parallel_creates_are_all_served(alice):
    # Issue 43: 10 at once gave 4 x 201 and 6 x 409 `conflict` (creates contending on the
    # consumer's count); they wait in line on it now (decision 0064).
    consumer, auth = alice
    answers = parallel_creates(auth, 10)
    assert answers == [(201, None)] * 10
    assert stored_and_counted(consumer["id"]) == (10, 10)


def test_the_cap_holds_under_parallel_creates(alice):
    consumer, auth = alice
    answers = parallel_creates(auth, 30)
    assert sorted(answers, key=str) == [(201, None)] * 25 + [(409, "limit_exceeded")] * 5
    assert stored_and_counted(consumer["id"]) == (25, 25)


def test_parallel_deletes_and_creates_keep_the_count(alice, settings_env):
    settings_env(MAX_SUBSCRIPTIONS_PER_CONSUMER="10")
    consumer, auth = alice
    ids = [create(auth)["id"] for _ in range(10)]

    def delete(sub_id: str) -> int:
        return client().delete(f"{URL}/{sub_id}", headers=auth).status_code

    with ThreadPoolExecutor(10) as pool:
        deleted = pool.map(delete, ids[:5])
        created = parallel_creates(auth, 5)
    assert list(deleted) == [200] * 5
    # A create that came before a delete met the cap; none met a conflict.
    assert {code for _, code in created} <= {None, "limit_exceeded"}
    served = sum(status == 201 for status, _ in created)
    assert stored_and_counted(consumer["id"]) == (5 + served, 5 + served)


def test_a_create_that_cannot_get_its_turn_in_time_is_503_and_saves_nothing(alice, settings_env):
    from common.adapters.firestore import run_transaction

    settings_env(FIRESTORE_TIMEOUT_S="1")
    consumer, auth = alice
    consumer_ref = get_db().collection(CONSUMERS).document(consumer["id"])
    holding = threading.Event()

    def slow(transaction):  # another request of this consumer, holding its place in line
        consumer_ref.get(transaction=transaction)
        holding.set()
        time.sleep(4)

    holder = threading.Thread(
        target=run_transaction, args=(slow,), kwargs={"in_line_on": consumer_ref}
    )
    holder.start()
    assert holding.wait(5)
    started = time.monotonic()
    response = client().post(URL, json={"topics": ["fur"]}, headers=auth)
    waited = time.monotonic() - started
    holder.join()
    assert response.status_code == 503
    assert response.get_json()["code"] == "overloaded"
    assert response.headers["Retry-After"] == "1"
    assert 0.9 < waited < 3  # its deadline, not the holder's 4 s
    assert stored_and_counted(consumer["id"]) == (0, 0)
    assert client().post(URL, json={"topics": ["fur"]}, headers=auth).status_code == 201


def test_list_is_newest_first_and_pages_with_a_cursor(alice):
    _, auth = alice
    ids = [create(auth, custom_keywords=[f"k{i}"])["id"] for i in range(5)]
    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        body = client().get(URL, query_string=query, headers=auth).get_json()
        assert body["total"] == 5
        seen += [s["id"] for s in body["data"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == list(reversed(ids))


def test_list_without_subscriptions(alice):
    _, auth = alice
    assert client().get(URL, headers=auth).get_json() == {
        "data": [],
        "total": 0,
        "next_cursor": None,
    }


# A forged cursor dated before year 1 in UTC: the query could not be built (it was a 500).
FORGED_CURSOR = base64.urlsafe_b64encode(
    json.dumps({"t": "0001-01-01T00:00:00+01:00", "id": str(uuid.uuid4())}).encode()
).decode()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"limit": "x"}, "limit"),
        ({"cursor": "garbage"}, "cursor"),
        ({"cursor": FORGED_CURSOR}, "cursor"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_list_rejects_bad_query_parameters(alice, query, field):
    _, auth = alice
    response = client().get(URL, query_string=query, headers=auth)
    assert response.status_code == 400
    assert field in [e["field"] for e in response.get_json()["errors"]]


def test_consumers_never_see_or_change_each_others_subscriptions(alice, bob):
    _, alice_auth = alice
    _, bob_auth = bob
    mine = create(alice_auth)
    theirs = client().get(URL, headers=bob_auth).get_json()
    assert theirs["total"] == 0
    assert theirs["data"] == []
    patched = client().patch(f"{URL}/{mine['id']}", json={"active": False}, headers=bob_auth)
    deleted = client().delete(f"{URL}/{mine['id']}", headers=bob_auth)
    unknown = client().delete(f"{URL}/{uuid.uuid4()}", headers=bob_auth)
    for response in (patched, deleted, unknown):
        assert response.status_code == 404
    # Another's subscription and a missing one look the same.
    assert patched.get_json()["detail"] == unknown.get_json()["detail"]
    assert stored(mine["id"])["active"] is True


def test_malformed_id_is_400(alice):
    _, auth = alice
    for method in ("patch", "delete"):
        response = getattr(client(), method)(
            f"{URL}/not-a-uuid", json={"active": True}, headers=auth
        )
        assert response.status_code == 400
        assert response.get_json()["errors"][0]["field"] == "id"


def test_patch_changes_only_the_supplied_fields(alice):
    _, auth = alice
    original = create(
        auth, topics=["fur"], custom_keywords=["mink"], specific_interests="Nordic farms"
    )
    response = client().patch(f"{URL}/{original['id']}", json={"active": False}, headers=auth)
    assert response.status_code == 200
    updated = response.get_json()["data"]
    assert updated["active"] is False
    assert updated["updated_at"] > original["updated_at"]
    unchanged = {k: v for k, v in original.items() if k not in {"active", "updated_at"}}
    assert {k: updated[k] for k in unchanged} == unchanged
    assert stored(original["id"])["active"] is False
    resumed = client().patch(f"{URL}/{original['id']}", json={"active": True}, headers=auth)
    assert resumed.get_json()["data"]["active"] is True


def test_patch_clears_specific_interests_with_null(alice):
    _, auth = alice
    sub = create(auth, topics=["fur"], specific_interests="mink")
    response = client().patch(f"{URL}/{sub['id']}", json={"specific_interests": None}, headers=auth)
    assert response.get_json()["data"]["specific_interests"] is None


def test_patch_keeps_topics_or_keywords(alice):
    _, auth = alice
    sub = create(auth, topics=["fur"])
    emptied = client().patch(f"{URL}/{sub['id']}", json={"topics": []}, headers=auth)
    assert emptied.status_code == 400
    assert [e["field"] for e in emptied.get_json()["errors"]] == ["topics"]
    assert stored(sub["id"])["topics"] == ["fur"]
    swapped = client().patch(
        f"{URL}/{sub['id']}", json={"topics": [], "custom_keywords": ["x"]}, headers=auth
    )
    assert swapped.status_code == 200
    assert swapped.get_json()["data"]["topics"] == []


def test_patch_frequency_moves_the_next_run_no_later_than_one_new_interval(alice):
    _, auth = alice
    sub = create(auth, topics=["fur"], frequency="weekly")
    far = datetime.now(UTC) + timedelta(days=6)
    get_db().collection(SUBSCRIPTIONS).document(sub["id"]).update({"next_run_at": far})
    client().patch(f"{URL}/{sub['id']}", json={"frequency": "daily"}, headers=auth)
    next_run = stored(sub["id"])["next_run_at"]
    assert next_run <= datetime.now(UTC) + timedelta(days=1)


def test_delete_removes_the_subscription_and_all_its_results(alice):
    consumer, auth = alice
    sub = create(auth)
    results = get_db().collection(SUBSCRIPTIONS).document(sub["id"]).collection(RESULTS)
    for i in range(7):
        results.document(f"r{i}").set({"title": f"item {i}"})
    response = client().delete(f"{URL}/{sub['id']}", headers=auth)
    assert response.status_code == 200
    assert response.get_json() == {"deleted": True}
    assert stored(sub["id"]) is None
    assert list(results.stream()) == []
    again = client().delete(f"{URL}/{sub['id']}", headers=auth)
    assert again.status_code == 404
    count = get_db().collection(CONSUMERS).document(consumer["id"]).get().get("subscription_count")
    assert count == 0


def test_a_delete_that_fails_half_way_is_finished_by_a_retry(alice, monkeypatch):
    """Results deleted, then the final transaction fails: the subscription is still listed
    (never orphaned results), and a repeated DELETE completes."""
    from common.errors import BackendUnavailable
    from functions.tracking import service

    _, auth = alice
    sub = create(auth)
    results = get_db().collection(SUBSCRIPTIONS).document(sub["id"]).collection(RESULTS)
    results.document("r1").set({"title": "item"})
    real = service.run_transaction

    def fail_once(*args, **kwargs):
        monkeypatch.setattr(service, "run_transaction", real)
        raise BackendUnavailable("injected failure after the results were deleted")

    monkeypatch.setattr(service, "run_transaction", fail_once)
    assert client().delete(f"{URL}/{sub['id']}", headers=auth).status_code == 502
    assert [s["id"] for s in client().get(URL, headers=auth).get_json()["data"]] == [sub["id"]]
    assert client().delete(f"{URL}/{sub['id']}", headers=auth).status_code == 200
    assert stored(sub["id"]) is None
    assert list(results.stream()) == []


def test_topic_catalog(alice):
    _, auth = alice
    body = client().get("/v1/tracking/topics", headers=auth).get_json()
    assert body["total"] == 20
    assert {"id": "ag-gag", "name": "Ag-gag laws"}.items() <= body["data"][4].items()


def test_tracking_entry_point_serves_only_its_group(alice):
    _, auth = alice
    assert client("tracking").get(URL, headers=auth).status_code == 200
    assert client("tracking").get("/health").status_code == 404
    assert client("health").get("/health").status_code == 200
