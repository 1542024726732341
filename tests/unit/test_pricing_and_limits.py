from types import SimpleNamespace

import pytest

from common.billing.pricing import DEFAULT_PRICES, format_usd, price_of
from common.http import Api, Auth, Route
from common.http.ratelimit import Decision, policy_for


def test_design_prices_in_micro_dollars():
    assert DEFAULT_PRICES["chat.message"] == 250_000
    assert DEFAULT_PRICES["chat.intent"] == 100_000
    assert DEFAULT_PRICES["chat.summarize"] == 250_000
    assert DEFAULT_PRICES["legal.guidance"] == 1_000_000
    assert DEFAULT_PRICES["research.topics"] == 250_000
    assert all(isinstance(v, int) for v in DEFAULT_PRICES.values())


@pytest.mark.parametrize(
    ("micros", "text"),
    [
        (250_000, "$0.25"),
        (1_000_000, "$1.00"),
        (0, "$0.00"),
        (125, "$0.000125"),
        (7_500_000, "$7.50"),
        (12_345_678, "$12.345678"),
    ],
)
def test_format_usd(micros, text):
    assert format_usd(micros) == text


def test_price_overrides_and_unknown_operations(settings_env):
    settings_env(PRICE_OVERRIDES='{"content.generate": 300000, "bench.noop": 1}')
    assert price_of("content.generate") == 300_000
    assert price_of("bench.noop") == 1
    with pytest.raises(KeyError):
        price_of("nothing.here")


def test_a_route_with_an_unpriced_operation_is_refused_at_start():
    route = Route(
        "GET", "/x", lambda call: None, "x", "X", "T", auth=Auth.API_KEY, price="no.such.price"
    )
    with pytest.raises(ValueError, match="no price"):
        Api([route])


def test_a_route_in_a_capacity_pool_that_does_not_exist_is_refused_at_start():
    route = Route("GET", "/x", lambda call: None, "x", "X", "T", capacity="serach")
    with pytest.raises(ValueError, match="capacity pools that do not exist"):
        Api([route])


def test_headers_follow_the_ietf_draft():
    admitted = Decision(limit=60, window_s=60, admitted=True, remaining=59, wait_s=41.2)
    assert admitted.headers() == {
        "RateLimit-Policy": '"default";q=60;w=60',
        "RateLimit": '"default";r=59;t=42',
    }
    refused = Decision(limit=10, window_s=60, admitted=False, remaining=0, wait_s=7)
    assert not refused.admitted
    assert refused.headers()["RateLimit"] == '"default";r=0;t=7'
    assert refused.headers()["Retry-After"] == "7"


def test_policy_consumer_override_then_plan_then_default(settings_env):
    settings_env(
        RATE_LIMIT_REQUESTS="60", RATE_LIMIT_WINDOW_S="60", RATE_LIMIT_PLANS='{"pro": [600, 60]}'
    )
    assert policy_for(SimpleNamespace(rate_limit=(5, 10), plan="pro")) == (5, 10)
    assert policy_for(SimpleNamespace(rate_limit=None, plan="pro")) == (600, 60)
    assert policy_for(SimpleNamespace(rate_limit=None, plan="payg")) == (60, 60)
