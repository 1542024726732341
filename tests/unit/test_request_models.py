"""Request models share one base and one topics-or-keywords rule."""

import pytest
from pydantic import ValidationError

from common.catalog.interests import TopicsOrKeywords
from common.fields import Input
from common.http import Auth
from functions.research.models import ResearchRequest
from functions.tracking.models import SubscriptionCreate
from registry import all_routes


def test_every_request_model_refuses_unknown_fields():
    """Bodies, query strings and path parameters of callers all derive from common.fields.Input;
    only signed providers' events (webhooks) are read leniently, as providers add fields."""
    checked = 0
    for route in all_routes():
        for model in (route.body, route.query, route.path_params):
            if model is None or route.auth in (Auth.WEBHOOK, Auth.SENDGRID):
                continue
            assert issubclass(model, Input), (route.operation_id, model.__name__)
            assert model.model_config.get("extra") == "forbid", model.__name__
            checked += 1
    assert checked > 15


@pytest.mark.parametrize(
    ("model", "topics", "keywords"),
    [
        (SubscriptionCreate, "topics", "custom_keywords"),
        (ResearchRequest, "topics", "customKeywords"),
    ],
)
def test_topics_or_keywords_is_one_rule_in_both_groups(model, topics, keywords):
    for body in ({}, {topics: []}, {keywords: []}, {topics: [], keywords: []}):
        with pytest.raises(ValidationError, match=TopicsOrKeywords.message):
            model.model_validate(body)
    assert getattr(model.model_validate({topics: ["fur"]}), topics) == ["fur"]
    assert getattr(model.model_validate({keywords: ["hens"]}), keywords) == ["hens"]
    assert model.model_json_schema()["anyOf"] == [
        {"required": [topics], "properties": {topics: {"minItems": 1}}},
        {"required": [keywords], "properties": {keywords: {"minItems": 1}}},
    ]
