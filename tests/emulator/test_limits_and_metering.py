"""Rate limiting and metering through the real pipeline on the real emulator: concurrency,
exact counts, headers, window reset, idempotent records, and the usage API."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import flask
import pytest
from pydantic import BaseModel, ConfigDict, Field

from common import metering, ratelimit
from common.errors import RateLimited
from common.firestore import CONSUMERS, USAGE, get_db
from common.http import Api, Call, Route
from common.keys import verify
from functions.usage.routes import ROUTES as USAGE_ROUTES
from tests.helpers import bearer, new_consumer

pytestmark = pytest.mark.emulator
INTENT_PRICE = 100_000


class Ask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=20)


class Answer(BaseModel):
    ok: bool


def answer(call: Call) -> Answer:
    return Answer(ok=True)


def fail(call: Call) -> Answer:
    from common.errors import NotFound

    raise NotFound("nothing")


# A priced operation with a trivial handler: what is measured is the pipeline around it.
ROUTES = [
    Route(
        "POST",
        "/v1/test/metered",
        answer,
        "metered",
        "Metered",
        "Test",
        body=Ask,
        response=Answer,
        price="chat.intent",
    ),
    Route("GET", "/v1/test/fails", fail, "fails", "Fails", "Test", price="chat.intent"),
    Route("GET", "/v1/test/free", answer, "free", "Free", "Test", response=Answer),
    *USAGE_ROUTES,
]


@pytest.fixture
def http():
    api = Api(ROUTES)
    app = flask.Flask("limits-test")
    app.add_url_rule("/<path:_p>", "any", lambda _p: api(flask.request), methods=["GET", "POST"])
    return app.test_client()


@pytest.fixture
def alice(db):
    return bearer(new_consumer("alice@example.org")[1])


def usage_records() -> list[dict]:
    return [d.to_dict() for d in get_db().collection(USAGE).stream()]


def burst(http, auth, n: int, path: str = "/v1/test/metered"):
    def call(i):
        return http.post(path, json={"message": f"m{i}"}, headers=auth)

    started = time.monotonic()
    with ThreadPoolExecutor(n) as pool:
        responses = list(pool.map(call, range(n)))
    return responses, time.monotonic() - started


def test_thirty_parallel_metered_requests_make_thirty_records_and_the_exact_cost(
    http, alice, settings_env
):
    settings_env(RATE_LIMIT_REQUESTS="1000")
    responses, _ = burst(http, alice, 30)
    assert [r.status_code for r in responses] == [200] * 30
    records = usage_records()
    assert len(records) == 30
    assert sum(r["cost_micros"] for r in records) == 30 * INTENT_PRICE
    assert {r["operation"] for r in records} == {"chat.intent"}
    usage = http.get("/v1/usage", headers=alice).get_json()
    assert usage["total"] == {
        "operation": "total",
        "requests": 30,
        "cost_micros": 3_000_000,
        "cost": "$3.00",
    }
    assert usage["operations"][0]["operation"] == "chat.intent"


def test_a_limit_of_ten_admits_exactly_ten_of_thirty_parallel_requests(http, alice, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    responses, elapsed = burst(http, alice, 30)
    statuses = [r.status_code for r in responses]
    assert statuses.count(200) == 10
    assert statuses.count(429) == 20
    assert elapsed < 2.0  # no transaction lock waits (the emulator's are 2 s each)
    for response in responses:
        assert response.headers["RateLimit-Policy"] == '"default";q=10;w=60'
        remaining, reset = parse_ratelimit(response.headers["RateLimit"])
        assert 0 <= reset <= 60
        if response.status_code == 429:
            assert remaining == 0
            assert int(response.headers["Retry-After"]) == reset
            body = response.get_json()
            assert body["code"] == "rate_limited"
            assert response.mimetype == "application/problem+json"
    assert len(usage_records()) == 10  # 429s are not metered


def parse_ratelimit(value: str) -> tuple[int, int]:
    params = dict(part.split("=") for part in value.split(";")[1:])
    return int(params["r"]), int(params["t"])


def test_remaining_counts_down_and_errors_after_admission_carry_the_headers(
    http, alice, settings_env
):
    settings_env(RATE_LIMIT_REQUESTS="5", RATE_LIMIT_WINDOW_S="60")
    seen = [
        parse_ratelimit(http.get("/v1/test/free", headers=alice).headers["RateLimit"])[0]
        for _ in range(3)
    ]
    assert seen == [4, 3, 2]
    invalid = http.post("/v1/test/metered", json={"message": ""}, headers=alice)
    assert invalid.status_code == 400
    assert parse_ratelimit(invalid.headers["RateLimit"])[0] == 1
    assert http.get("/v1/test/fails", headers=alice).status_code == 404
    assert usage_records() == []  # 4xx answers are not metered
    assert http.get("/v1/test/free", headers=alice).status_code == 429


def test_unauthenticated_requests_carry_no_rate_limit_headers(http, db):
    response = http.get("/v1/test/free")
    assert response.status_code == 401
    assert "RateLimit" not in response.headers


def test_the_window_resets(db):
    _, key = new_consumer()
    principal = verify(key)
    start = (int(time.time()) // 60 + 10) * 60  # a window of our own, in the future
    for i in range(60):
        ratelimit.admit(principal, now=start + 1 + i * 0.5)
    with pytest.raises(RateLimited, match="At most 60 requests"):
        ratelimit.admit(principal, now=start + 59)
    assert ratelimit.admit(principal, now=start + 60).count == 1  # the next window


def test_a_real_window_resets_over_http(http, alice, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="2", RATE_LIMIT_WINDOW_S="1")
    deadline = time.monotonic() + 3
    while http.get("/v1/test/free", headers=alice).status_code != 429:
        assert time.monotonic() < deadline
    time.sleep(1.05)
    assert http.get("/v1/test/free", headers=alice).status_code == 200


def test_consumer_and_plan_overrides(http, db, settings_env):
    consumer, key = new_consumer("pro@example.org")
    get_db().collection(CONSUMERS).document(consumer["id"]).update({"rate_limit": [2, 60]})
    statuses = [http.get("/v1/test/free", headers=bearer(key)).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    settings_env(RATE_LIMIT_PLANS='{"team": [1, 60]}')
    other, other_key = new_consumer("team@example.org")
    get_db().collection(CONSUMERS).document(other["id"]).update({"plan": "team"})
    statuses = [http.get("/v1/test/free", headers=bearer(other_key)).status_code for _ in range(2)]
    assert statuses == [200, 429]


def test_a_record_written_twice_counts_once(db):
    consumer, _ = new_consumer()
    assert metering.record(consumer["id"], "chat.message", "req-1")
    assert not metering.record(consumer["id"], "chat.message", "req-1")
    assert len(usage_records()) == 1


def test_usage_is_private_and_bounded_by_period(http, alice, db):
    bob_consumer, bob_key = new_consumer("bob@example.org")
    metering.record(bob_consumer["id"], "legal.guidance", "bob-1")
    http.post("/v1/test/metered", json={"message": "hi"}, headers=alice)
    mine = http.get("/v1/usage", headers=alice).get_json()
    assert mine["total"]["requests"] == 1
    assert [x["operation"] for x in mine["operations"]] == ["chat.intent"]
    theirs = http.get("/v1/usage", headers=bearer(bob_key)).get_json()
    assert theirs["total"]["cost"] == "$1.00"
    long_ago = http.get("/v1/usage?from=2020-01-01&to=2020-01-31", headers=alice).get_json()
    assert long_ago["total"]["requests"] == 0


@pytest.mark.parametrize(
    "query",
    [
        "from=2026-13-01",
        "from=2026-11-10&to=2026-11-01",
        "from=2020-01-01&to=2022-01-01",
        "month=2026-11",
        "to=yesterday",
    ],
)
def test_usage_rejects_bad_periods(http, alice, query):
    response = http.get(f"/v1/usage?{query}", headers=alice)
    assert response.status_code == 400
    assert response.get_json()["code"] == "invalid_request"


def test_hot_path_costs_at_most_two_firestore_rpcs_with_a_warm_key_cache(http, alice, monkeypatch):
    http.get("/v1/test/free", headers=alice)  # warm the key cache (and last_used_at)
    calls: list[str] = []
    transport = get_db()._firestore_api._transport
    for method, wrapped in list(transport._wrapped_methods.items()):

        def counting(*args, _wrapped=wrapped, _name=method.__name__, **kwargs):
            calls.append(_name)
            return _wrapped(*args, **kwargs)

        monkeypatch.setitem(transport._wrapped_methods, method, counting)
    assert http.post("/v1/test/metered", json={"message": "hi"}, headers=alice).status_code == 200
    assert len(calls) <= 2, calls  # the rate-limit increment and the usage record
    assert "begin_transaction" not in calls
