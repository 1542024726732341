"""Rate limiting and metering through the real pipeline on the real emulator: concurrency,
exact counts, the sliding window (no boundary burst), headers and Retry-After, idempotent
records, and the usage API."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import flask
import pytest
from pydantic import BaseModel, ConfigDict, Field

from common.accounts.keys import verify
from common.adapters.firestore import CONSUMERS, RATELIMIT_WINDOWS, USAGE, get_db
from common.billing import metering
from common.errors import RateLimited
from common.http import Api, Call, Route, ratelimit
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
        "unbilled_requests": 0,
    }
    assert usage["operations"][0]["operation"] == "chat.intent"


def away_from_a_boundary(window_s: int, margin: float = 2.0) -> None:
    """Wait for the next window if its boundary is less than ``margin`` seconds away, so what a
    test does in real time happens within one window."""
    left = window_s - time.time() % window_s
    if left < margin:
        time.sleep(left + 0.05)


def window_of_our_own(window_s: int = 60) -> int:
    """The start of a window in the future: tests that pass ``now`` own their windows."""
    return (int(time.time()) // window_s + 10) * window_s


def test_a_limit_of_ten_admits_exactly_ten_of_thirty_parallel_requests(http, alice, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    away_from_a_boundary(60)
    responses, elapsed = burst(http, alice, 30)
    statuses = [r.status_code for r in responses]
    assert statuses.count(200) == 10
    assert statuses.count(429) == 20
    assert elapsed < 2.0  # no transaction lock waits (the emulator's are 2 s each)
    for response in responses:
        assert response.headers["RateLimit-Policy"] == '"default";q=10;w=60'
        remaining, reset = parse_ratelimit(response.headers["RateLimit"])
        assert 1 <= reset <= 120
        if response.status_code == 429:
            # 10 carried into the next window must decay to 9: the rest of this window + 6 s.
            assert remaining == 0
            assert 6 < reset <= 66
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
    away_from_a_boundary(60)
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


def admitted_or_refused(principal, now: float) -> bool:
    try:
        ratelimit.admit(principal, now=now)
        return True
    except RateLimited:
        return False


def window_count(principal, start: int) -> int:
    doc = get_db().collection(RATELIMIT_WINDOWS).document(f"{principal.consumer_id}_{start}")
    return doc.get().to_dict()["count"]


def test_no_second_full_limit_right_after_the_boundary(db):
    """The fixed window's burst: the whole limit in the last seconds of one window, and the whole
    limit again in the first seconds of the next. The sliding window gives back one request per
    W / limit seconds at most."""
    principal = verify(new_consumer()[1])  # the default: 60 per 60 s
    start = window_of_our_own()
    assert all(admitted_or_refused(principal, start - 6 + i * 0.1) for i in range(60))
    after = [admitted_or_refused(principal, start + i * 0.1) for i in range(60)]
    assert not after[0]
    assert sum(after) <= 6  # the fixed window admitted all 60


def test_the_limit_comes_back_gradually_after_the_boundary(db):
    principal = verify(new_consumer()[1])
    start = window_of_our_own()
    for i in range(60):
        ratelimit.admit(principal, now=start - 6 + i * 0.1)
    with pytest.raises(RateLimited) as refused:
        ratelimit.admit(principal, now=start)  # 60 + 1
    assert refused.value.headers["Retry-After"] == "2"  # 60 * (60 - t) / 60 + 1 <= 59
    decision = ratelimit.admit(principal, now=start + 2)
    assert decision.remaining == 0
    # 60 * 0.5 + 3 counted (the refusal at the boundary among them) = 33: 27 left.
    assert ratelimit.admit(principal, now=start + 30).remaining == 27


def test_concurrent_requests_are_bounded_by_the_weighted_estimate(db, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    principal = verify(new_consumer()[1])
    start = window_of_our_own()
    for i in range(10):
        ratelimit.admit(principal, now=start - 60 + i)
    with ThreadPoolExecutor(30) as pool:  # halfway: 10 * 0.5 carried, room for 5
        outcomes = list(pool.map(lambda _: admitted_or_refused(principal, start + 30), range(30)))
    assert sum(outcomes) == 5


def test_retry_after_is_truthful(db, settings_env):
    """One consumer retries a second before Retry-After, an identical one on time; the early
    one is refused by Firestore (not by the in-process memory), the punctual one admitted."""
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    start = window_of_our_own()
    principals = [verify(new_consumer(f"{who}@example.org")[1]) for who in ("early", "on-time")]
    for principal in principals:
        for i in range(6):
            ratelimit.admit(principal, now=start - 60 + i)
        decisions = [ratelimit.admit(principal, now=start + 30) for _ in range(7)]
        assert [d.remaining for d in decisions] == [6, 5, 4, 3, 2, 1, 0]  # 6 * 0.5 + 1..7
        assert decisions[0].headers()["RateLimit"] == '"default";r=6;t=10'
        with pytest.raises(RateLimited) as refused:
            ratelimit.admit(principal, now=start + 30)
        assert refused.value.headers["Retry-After"] == "20"
        assert refused.value.headers["RateLimit"] == '"default";r=0;t=20'
    ratelimit.forget_refusals()
    assert not admitted_or_refused(principals[0], start + 49)
    assert admitted_or_refused(principals[1], start + 50)


def test_a_remembered_refusal_costs_no_rpc_and_is_not_counted(db, monkeypatch):
    principal = verify(new_consumer()[1])
    start = window_of_our_own()
    for i in range(60):
        ratelimit.admit(principal, now=start + i * 0.1)
    with pytest.raises(RateLimited) as refused:
        ratelimit.admit(principal, now=start + 10)
    retry = int(refused.value.headers["Retry-After"])
    assert retry == 51  # 60 carried into the next window must decay to 59: 50 s + 1 s
    calls = count_rpcs(monkeypatch)
    with pytest.raises(RateLimited) as again:
        ratelimit.admit(principal, now=start + 10 + retry - 1)
    assert again.value.headers["Retry-After"] == "1"
    assert calls == []
    assert window_count(principal, start) == 61
    assert ratelimit.admit(principal, now=start + 10 + retry).remaining == 0


def test_rejected_attempts_that_reach_firestore_count(db, settings_env):
    """On another instance (no refusal remembered) a rejected attempt is counted: retrying early
    pushes Retry-After further out."""
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    principal = verify(new_consumer()[1])
    start = window_of_our_own()
    for i in range(10):
        ratelimit.admit(principal, now=start - 60 + i)
    for _ in range(5):
        ratelimit.admit(principal, now=start + 30)
    with pytest.raises(RateLimited) as first:
        ratelimit.admit(principal, now=start + 30)
    assert first.value.headers["Retry-After"] == "12"  # 10 * (30 - t) / 60 + 6 <= 9
    ratelimit.forget_refusals()
    with pytest.raises(RateLimited) as second:
        ratelimit.admit(principal, now=start + 31)
    assert second.value.headers["Retry-After"] == "17"  # 10 * (29 - t) / 60 + 7 <= 9
    assert window_count(principal, start) == 7


def test_hammering_is_forgotten_in_the_next_window_beyond_the_limit(db, settings_env):
    """However many attempts were counted, the next window carries at most the limit."""
    settings_env(RATE_LIMIT_REQUESTS="10", RATE_LIMIT_WINDOW_S="60")
    principal = verify(new_consumer()[1])
    start = window_of_our_own()
    for _ in range(40):
        ratelimit.forget_refusals()
        admitted_or_refused(principal, start - 30)
    assert window_count(principal, start - 60) == 40
    ratelimit.forget_refusals()
    assert ratelimit.admit(principal, now=start + 6).remaining == 0  # 10 * 0.9 + 1


def test_a_client_that_waits_retry_after_is_admitted_over_http(http, alice, settings_env):
    settings_env(RATE_LIMIT_REQUESTS="2", RATE_LIMIT_WINDOW_S="1")
    deadline = time.monotonic() + 3
    while (refused := http.get("/v1/test/free", headers=alice)).status_code != 429:
        assert time.monotonic() < deadline
    assert http.get("/v1/test/free", headers=alice).status_code == 429
    time.sleep(int(refused.headers["Retry-After"]))
    assert http.get("/v1/test/free", headers=alice).status_code == 200


def count_rpcs(monkeypatch) -> list[str]:
    """The names of the Firestore RPCs made from now on (the client's transport, wrapped)."""
    calls: list[str] = []
    transport = get_db()._firestore_api._transport
    for method, wrapped in list(transport._wrapped_methods.items()):
        raw = getattr(method, "_method", None) or method.__name__  # the gRPC method's path
        name = (raw.decode() if isinstance(raw, bytes) else str(raw)).rsplit("/", 1)[-1]

        def counting(*args, _wrapped=wrapped, _name=name, **kwargs):
            calls.append(_name)
            return _wrapped(*args, **kwargs)

        monkeypatch.setitem(transport._wrapped_methods, method, counting)
    return calls


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
    calls = count_rpcs(monkeypatch)
    assert http.post("/v1/test/metered", json={"message": "hi"}, headers=alice).status_code == 200
    assert len(calls) <= 2, calls  # the rate-limit increments and the usage record
    assert "Commit" in calls
    assert "BeginTransaction" not in calls
