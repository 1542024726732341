"""Hostile input on the routes added for content, OSINT and the portal: control characters,
reserved document ids, forged cursors and other callers' ids each get a clear 4xx, never a
500, and nothing is billed or changed."""

from __future__ import annotations

import pytest

from common.adapters.firestore import USAGE, get_db
from tests.helpers import bearer, client, new_consumer

pytestmark = pytest.mark.emulator
MAX_FIELD_CHARS = 200  # common.errors.MAX_FIELD_CHARS


@pytest.fixture
def auth(db) -> dict[str, str]:
    return bearer(new_consumer("hostile@example.org")[1])


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/content/generate", {"topic": "cage-free\u202eeggs"}, "topic"),
        ("/v1/content/generate", {"topic": "eggs", "callToAction": "sign\x00now"}, "callToAction"),
        (
            "/v1/osint/personal-profile",
            {"firstName": "Pri\x07ya", "lastName": "Raman"},
            "firstName",
        ),
        ("/v1/osint/company-profile", {"companyName": "Bright\u200fwell"}, "companyName"),
    ],
)
def test_control_and_bidi_characters_are_a_400_naming_the_field(auth, path, body, field):
    response = client().post(path, json=body, headers=auth)
    assert response.status_code == 400
    assert field in [e["field"] for e in response.get_json()["errors"]]
    assert list(get_db().collection(USAGE).stream()) == []


@pytest.mark.parametrize("cursor", ["not-a-cursor", "eyJ0IjogIjAwMDEtMDEtMDFUMDA6MDAifQ", "%00"])
def test_a_forged_audit_cursor_is_a_400(auth, cursor):
    response = client().get("/v1/osint/audit", query_string={"cursor": cursor}, headers=auth)
    assert response.status_code == 400
    assert response.get_json()["errors"][0]["field"] == "cursor"


@pytest.mark.parametrize("key_id", ["__reserved__", "..", "x" * 2000])
def test_rotating_a_reserved_or_absurd_key_id_is_a_4xx(db, local_idp, key_id):
    local_idp.provision("alice@example.org")
    alice = bearer(local_idp.token("alice@example.org"))
    response = client("portal").post(f"/v1/portal/keys/{key_id}/rotate", json={}, headers=alice)
    assert response.status_code in (400, 404)
    assert response.content_type == "application/problem+json"


def test_rotating_another_users_key_is_404_and_leaves_it_working(db, local_idp):
    local_idp.provision("alice@example.org")
    local_idp.provision("bob@example.org")
    alice = bearer(local_idp.token("alice@example.org"))
    bob = bearer(local_idp.token("bob@example.org"))
    created = client("portal").post("/v1/portal/keys", json={"name": "a"}, headers=alice)
    key_id = created.get_json()["data"]["id"]
    response = client("portal").post(f"/v1/portal/keys/{key_id}/rotate", json={}, headers=bob)
    assert response.status_code == 404
    key = created.get_json()["data"]["key"]
    assert client().get("/v1/tracking/topics", headers=bearer(key)).status_code == 200


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"query": "cage-free", "query": "fur farms"}', "query"),
        ('{"query": "eggs", "filters": {"status": "won", "status": "lost"}}', "filters.status"),
        ('{"query": "eggs", "tables": ["campaigns"], "limit": 3, "limit": 50}', "limit"),
    ],
)
def test_a_field_sent_twice_in_one_object_is_a_400_naming_it(auth, raw, field):
    """Last-wins parsing would run another request than a reader of the first value sees."""
    response = client().post(
        "/v1/search", data=raw, headers={**auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 400, response.get_json()
    [error] = response.get_json()["errors"]
    assert error["field"] == field
    assert "more than once" in error["message"]
    assert list(get_db().collection(USAGE).stream()) == []


@pytest.mark.parametrize("blank", ["\u200b\u200c", " \u3164 ", "\u00ad\ufeff\u2060", "\u2800"])
def test_text_made_only_of_invisible_characters_is_blank(db, auth, local_idp, blank):
    """A key name or a query that shows nothing is refused like an empty one, naming it."""
    local_idp.provision("alice@example.org")
    alice = bearer(local_idp.token("alice@example.org"))
    named = client("portal").post("/v1/portal/keys", json={"name": blank}, headers=alice)
    asked = client().post("/v1/knowledge/search", json={"query": blank}, headers=auth)
    for response, field in ((named, "name"), (asked, "query")):
        assert response.status_code == 400, response.get_json()
        [error] = response.get_json()["errors"]
        assert (error["field"], "visible character" in error["message"]) == (field, True)
    visible = client("portal").post("/v1/portal/keys", json={"name": "\u200bci"}, headers=alice)
    assert visible.status_code == 201


@pytest.mark.parametrize(
    "raw",
    [
        '{"query": "eggs", "' + "n" * 900_000 + '": 1}',
        '{"query": "eggs", "' + "d" * 400_000 + '": 1, "' + "d" * 400_000 + '": 2}',
    ],
    ids=["unknown", "sent twice"],
)
def test_a_huge_field_name_is_named_in_a_400_only_up_to_a_bound(auth, raw):
    """A 900 KB field name used to be echoed twice (the detail and ``errors``): a 1.8 MB 400."""
    response = client().post(
        "/v1/search", data=raw, headers={**auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert len(response.data) < 2000
    [error] = response.get_json()["errors"]
    assert len(error["field"]) <= MAX_FIELD_CHARS  # 200 characters
    assert error["field"].endswith("\u2026")
    assert error["field"][0] in "nd"
