import pytest
from pydantic import ValidationError

from common.adapters.cursors import decode as _decode_cursor
from common.adapters.cursors import encode as _encode_cursor
from common.catalog.topics import ids as topic_ids
from common.errors import InvalidRequest
from functions.tracking.models import SubscriptionCreate, SubscriptionPatch

TOPICS = topic_ids()


def fields_of(exc: ValidationError) -> set[str]:
    return {".".join(map(str, e["loc"])) for e in exc.errors()}


def test_catalog_has_the_twenty_designed_topics():
    assert len(TOPICS) == 20
    assert {"factory-farming", "cage-free", "corporate-campaigns"} <= set(TOPICS)


def test_defaults_on_creation():
    created = SubscriptionCreate.model_validate({"topics": ["fur"]})
    assert created.frequency == "daily"
    assert created.delivery_method == "email"
    assert created.custom_keywords == []
    assert created.delivery_email is None


@pytest.mark.parametrize("body", [{}, {"topics": []}, {"topics": [], "custom_keywords": []}])
def test_topics_or_keywords_required(body):
    with pytest.raises(ValidationError, match="at least one topic or custom keyword"):
        SubscriptionCreate.model_validate(body)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"topics": ["unknown-topic"]}, "topics.0"),
        ({"topics": [*list(TOPICS), "fur"]}, "topics"),
        ({"custom_keywords": [f"k{i}" for i in range(21)]}, "custom_keywords"),
        ({"custom_keywords": ["x" * 101]}, "custom_keywords.0"),
        ({"custom_keywords": ["   "]}, "custom_keywords.0"),
        ({"topics": ["fur"], "specific_interests": "x" * 1001}, "specific_interests"),
        ({"topics": ["fur"], "frequency": "hourly"}, "frequency"),
        ({"topics": ["fur"], "delivery_method": "sms"}, "delivery_method"),
        ({"topics": ["fur"], "delivery_email": "not-an-email"}, "delivery_email"),
        ({"topics": ["fur"], "user_id": "x"}, "user_id"),
    ],
)
def test_bounds_are_enforced(body, field):
    with pytest.raises(ValidationError) as caught:
        SubscriptionCreate.model_validate(body)
    assert field in fields_of(caught.value)


def test_limits_are_inclusive():
    created = SubscriptionCreate.model_validate(
        {
            "topics": list(TOPICS),
            "custom_keywords": [f"keyword {i}" for i in range(20)],
            "specific_interests": "x" * 1000,
        }
    )
    assert len(created.topics) == 20


def test_duplicates_are_dropped_and_keywords_trimmed():
    created = SubscriptionCreate.model_validate(
        {"topics": ["fur", "fur"], "custom_keywords": [" Tyson ", "Tyson"]}
    )
    assert created.topics == ["fur"]
    assert created.custom_keywords == ["Tyson"]


def test_patch_keeps_only_supplied_fields():
    patch = SubscriptionPatch.model_validate({"active": False, "specific_interests": None})
    assert patch.changes() == {"active": False, "specific_interests": None}


@pytest.mark.parametrize(
    "field",
    ["topics", "custom_keywords", "frequency", "active", "delivery_email", "delivery_method"],
)
def test_patch_rejects_null_for_required_fields(field):
    with pytest.raises(ValidationError) as caught:
        SubscriptionPatch.model_validate({field: None})
    assert field in fields_of(caught.value)


def test_empty_patch_is_rejected():
    with pytest.raises(ValidationError, match="at least one field"):
        SubscriptionPatch.model_validate({})


def test_cursor_round_trip_and_garbage():
    from datetime import UTC, datetime

    record = {"id": "0b0f6b1e-8a43-4d38-9c39-2b4b3a1d2e3f", "created_at": datetime.now(UTC)}
    assert _decode_cursor(_encode_cursor(record)) == (record["created_at"], record["id"])
    for garbage in ["x", "!!!", "e30", "W10", "eyJ0IjoxfQ"]:
        with pytest.raises(InvalidRequest):
            _decode_cursor(garbage)


@pytest.mark.parametrize(
    "timestamp",
    [
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC: the query could not be built (500)
        "9999-12-31T23:59:59-05:00",  # after year 9999 in UTC
        "2026-01-01T00:00:00",  # no offset: never one this API issued
    ],
)
def test_forged_cursor_timestamps_are_refused(timestamp):
    import base64
    import json

    raw = json.dumps({"t": timestamp, "id": "0b0f6b1e-8a43-4d38-9c39-2b4b3a1d2e3f"})
    cursor = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    with pytest.raises(InvalidRequest) as caught:
        _decode_cursor(cursor)
    assert [e.field for e in caught.value.errors] == ["cursor"]
