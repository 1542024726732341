"""Idempotency-Key through the real pipeline on the real emulator: replay, reuse with another
request, concurrency, per-consumer scope, released keys, expiry, abandoned locks and streams."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import flask
import pytest
from google.api_core import exceptions as gexc
from pydantic import BaseModel, ConfigDict, Field

from common.accounts.keys import verify
from common.adapters.firestore import IDEMPOTENCY_KEYS, USAGE, get_db
from common.errors import LimitExceeded
from common.http import Api, Call, Route, Streamed, idempotency, ratelimit
from tests.helpers import bearer, new_consumer

pytestmark = pytest.mark.emulator
KEY = "order-7f3a 2026-11-02"  # printable ASCII, spaces inside are allowed

runs: Counter[str] = Counter()  # handler runs per route, reset by each test
failures: Counter[str] = Counter()  # how many times a route fails before it succeeds
entered = threading.Event()
proceed = threading.Event()


class Ask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=40)


class Answer(BaseModel):
    message: str
    run: int


def answer(call: Call) -> Answer:
    runs["metered"] += 1
    call.response_headers["X-Test-Run"] = str(runs["metered"])
    return Answer(message=call.body.message, run=runs["metered"])


def slow(call: Call) -> Answer:
    runs["slow"] += 1
    entered.set()
    assert proceed.wait(10)
    return Answer(message=call.body.message, run=runs["slow"])


def flaky(call: Call) -> Answer:
    runs["flaky"] += 1
    if failures["backend"]:
        failures["backend"] -= 1
        raise gexc.ServiceUnavailable("connection refused")
    if failures["limit"]:
        failures["limit"] -= 1
        raise LimitExceeded("At most 25.")
    return Answer(message=call.body.message, run=runs["flaky"])


def stream(call: Call) -> Streamed:
    runs["stream"] += 1
    streamed = Streamed([], "application/x-ndjson")

    def events():
        yield '{"type": "begin"}\n'
        if failures["stream"]:
            failures["stream"] -= 1
            streamed.failed = True
            yield '{"type": "error"}\n'
            return
        streamed.delivered = True  # what the stream is priced for (decision 0039)
        yield '{"type": "item"}\n'
        yield '{"type": "end"}\n'

    streamed.chunks = events()
    return streamed


def free(call: Call) -> Answer:
    runs["free"] += 1
    return Answer(message="free", run=runs["free"])


def route(method: str, path: str, handler, **extra) -> Route:
    return Route(method, path, handler, path.rsplit("/", 1)[1], "Test", "Test", **extra)


ROUTES = [
    route("POST", "/v1/test/metered", answer, body=Ask, response=Answer, status=201,
          price="chat.intent"),
    route("POST", "/v1/test/other", answer, body=Ask, response=Answer, price="chat.intent"),
    route("PATCH", "/v1/test/metered", answer, body=Ask, response=Answer),
    route("POST", "/v1/test/slow", slow, body=Ask, response=Answer, price="chat.intent"),
    route("POST", "/v1/test/flaky", flaky, body=Ask, response=Answer, price="chat.intent"),
    route("POST", "/v1/test/stream", stream, body=Ask, price="research.topics"),
    route("GET", "/v1/test/free", free, response=Answer),
]  # fmt: skip


@pytest.fixture
def http(db):
    runs.clear()
    failures.clear()
    entered.clear()
    proceed.clear()
    api = Api(ROUTES)
    app = flask.Flask("idempotency-test")
    app.add_url_rule(
        "/<path:_p>", "any", lambda _p: api(flask.request), methods=["GET", "POST", "PATCH"]
    )
    return app.test_client()


@pytest.fixture
def alice(db):
    return bearer(new_consumer("alice@example.org")[1])


def keyed(auth: dict[str, str], key: str = KEY) -> dict[str, str]:
    return {**auth, "Idempotency-Key": key}


def usage_records() -> list[dict]:
    return [d.to_dict() for d in get_db().collection(USAGE).stream()]


def key_records() -> list[dict]:
    return [d.to_dict() for d in get_db().collection(IDEMPOTENCY_KEYS).stream()]


def remaining(response) -> int:
    return int(response.headers["RateLimit"].split("r=")[1].split(";")[0])


def test_a_retry_replays_the_first_answer_and_is_billed_once(http, alice):
    first = http.post("/v1/test/metered", json={"message": "hi"}, headers=keyed(alice))
    again = http.post("/v1/test/metered", json={"message": "hi"}, headers=keyed(alice))
    assert first.status_code == again.status_code == 201
    assert first.get_json() == {"message": "hi", "run": 1}
    assert again.get_data() == first.get_data()
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Content-Type"] == first.headers["Content-Type"] == "application/json"
    assert again.headers["X-Test-Run"] == "1"  # the handler's own header, replayed
    assert again.headers["x-correlation-id"] != first.headers["x-correlation-id"]
    assert runs["metered"] == 1
    assert len(usage_records()) == 1
    assert remaining(again) == remaining(first) - 1  # a replay is a request: rate-limited
    for _ in range(2):  # without the header nothing changes: each request runs, nothing stored
        assert http.post("/v1/test/metered", json={"message": "hi"}, headers=alice).status_code
    assert runs["metered"] == 3
    assert len(usage_records()) == 3
    assert len(key_records()) == 1


def test_the_same_key_with_another_request_is_422(http, alice):
    assert http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice)).status_code
    for method, path, body in [
        ("POST", "/v1/test/metered", {"message": "b"}),  # another body
        ("POST", "/v1/test/other", {"message": "a"}),  # another path
        ("PATCH", "/v1/test/metered", {"message": "a"}),  # another method
    ]:
        response = http.open(path, method=method, json=body, headers=keyed(alice))
        assert response.status_code == 422, (method, path)
        assert response.mimetype == "application/problem+json"
        assert response.get_json()["code"] == "idempotency_key_reused"
    assert runs["metered"] == 1
    assert len(usage_records()) == 1


@pytest.mark.parametrize("value", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_malformed_key_is_400_naming_the_header(http, alice, value):
    response = http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice, value))
    assert response.status_code == 400
    body = response.get_json()
    assert body["code"] == "invalid_request"
    assert body["errors"][0]["field"] == "Idempotency-Key"
    assert runs["metered"] == 0
    assert key_records() == []


def test_the_longest_key_is_honoured_and_get_ignores_the_header(http, alice):
    for _ in range(2):
        post = http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice, "k" * 255))
        assert post.status_code == 201
    assert post.headers["Idempotent-Replayed"] == "true"
    for _ in range(2):  # a GET is not keyed: it runs each time, even with a bad key
        assert http.get("/v1/test/free", headers=keyed(alice, "")).status_code == 200
    assert runs["free"] == 2


def test_a_key_still_in_progress_is_409_then_replayed(http, alice):
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(http.post, "/v1/test/slow", json={"message": "a"}, headers=keyed(alice))
        assert entered.wait(10)
        during = http.post("/v1/test/slow", json={"message": "a"}, headers=keyed(alice))
        proceed.set()
        assert first.result().status_code == 200
    assert during.status_code == 409
    assert during.get_json()["code"] == "idempotency_key_in_use"
    assert during.headers["Retry-After"] == "1"
    after = http.post("/v1/test/slow", json={"message": "a"}, headers=keyed(alice))
    assert after.headers["Idempotent-Replayed"] == "true"
    assert after.get_json() == first.result().get_json()
    assert runs["slow"] == 1
    assert len(usage_records()) == 1


def test_parallel_requests_with_one_key_run_once(http, alice):
    def call(_):
        return http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice))

    with ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(call, range(8)))
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) <= {201, 409}
    fresh = [
        r for r in responses if r.status_code == 201 and "Idempotent-Replayed" not in r.headers
    ]
    assert len(fresh) == 1
    assert runs["metered"] == 1
    assert len(usage_records()) == 1


def test_keys_are_scoped_per_consumer(http, alice):
    bob = bearer(new_consumer("bob@example.org")[1])
    mine = http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice))
    theirs = http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(bob))
    assert mine.status_code == theirs.status_code == 201
    assert "Idempotent-Replayed" not in theirs.headers
    assert theirs.get_json()["run"] == 2
    assert len(usage_records()) == 2
    assert len(key_records()) == 2


def test_a_backend_failure_releases_the_key_so_a_retry_runs(http, alice):
    failures["backend"] = 1
    failed = http.post("/v1/test/flaky", json={"message": "a"}, headers=keyed(alice))
    assert failed.status_code == 502
    retried = http.post("/v1/test/flaky", json={"message": "a"}, headers=keyed(alice))
    assert retried.status_code == 200
    assert "Idempotent-Replayed" not in retried.headers
    replayed = http.post("/v1/test/flaky", json={"message": "a"}, headers=keyed(alice))
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.get_json() == retried.get_json() == {"message": "a", "run": 2}
    assert runs["flaky"] == 2
    assert len(usage_records()) == 1


def test_a_handler_4xx_is_not_stored_and_a_released_key_takes_any_request(http, alice):
    failures["limit"] = 1
    refused = http.post("/v1/test/flaky", json={"message": "a"}, headers=keyed(alice))
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "limit_exceeded"
    retried = http.post("/v1/test/flaky", json={"message": "b"}, headers=keyed(alice))
    assert retried.status_code == 200
    assert retried.get_json()["message"] == "b"
    replayed = http.post("/v1/test/flaky", json={"message": "b"}, headers=keyed(alice))
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert runs["flaky"] == 2
    assert len(usage_records()) == 1


def test_a_key_expires_after_24_hours(http, alice):
    assert http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice)).status_code
    (doc,) = get_db().collection(IDEMPOTENCY_KEYS).list_documents()
    doc.update({"expires_at": datetime.now(UTC) - timedelta(seconds=1)})  # as 24 h would
    reused = http.post("/v1/test/metered", json={"message": "b"}, headers=keyed(alice))
    assert reused.status_code == 201
    assert "Idempotent-Replayed" not in reused.headers
    assert reused.get_json() == {"message": "b", "run": 2}
    assert len(usage_records()) == 2  # a new 24 h: billed again
    (record,) = key_records()
    assert record["expires_at"] > datetime.now(UTC) + timedelta(hours=23)


def test_a_fresh_key_is_kept_24_hours(http, alice):
    before = datetime.now(UTC)
    http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice))
    (record,) = key_records()
    assert (
        before + timedelta(hours=24)
        <= record["expires_at"]
        <= datetime.now(UTC) + timedelta(hours=24)
    )
    assert record["state"] == "done"
    assert KEY not in str(record)  # stored under a hash; the body is compressed


def test_a_key_abandoned_mid_request_is_taken_over_after_its_lock_and_billed_once(http, alice):
    consumer_id = verify(alice["Authorization"].split()[1]).consumer_id
    request_hash = idempotency.fingerprint("POST", "/v1/test/metered", b"", b'{"message": "a"}')
    crashed = idempotency.begin(consumer_id, KEY, request_hash)  # never settled: instance died
    assert isinstance(crashed, idempotency.Reservation)
    from common.billing import metering

    metering.record(consumer_id, "chat.intent", crashed.request_id)  # billed before it died
    body = b'{"message": "a"}'
    post = {"data": body, "content_type": "application/json", "headers": keyed(alice)}
    assert http.post("/v1/test/metered", **post).status_code == 409
    crashed.ref.update({"locked_until": datetime.now(UTC) - timedelta(seconds=1)})
    taken = http.post("/v1/test/metered", **post)
    assert taken.status_code == 201
    assert "Idempotent-Replayed" not in taken.headers
    assert len(usage_records()) == 1  # the same key's usage record: not billed twice
    assert http.post("/v1/test/metered", **post).headers["Idempotent-Replayed"] == "true"


def test_a_completed_stream_is_not_replayed_and_a_failed_one_releases_its_key(http, alice):
    failures["stream"] = 1
    failed = http.post("/v1/test/stream", json={"message": "a"}, headers=keyed(alice))
    assert failed.get_data(as_text=True).endswith('{"type": "error"}\n')
    assert usage_records() == []
    done = http.post("/v1/test/stream", json={"message": "a"}, headers=keyed(alice))
    assert done.get_data(as_text=True).endswith('{"type": "end"}\n')
    again = http.post("/v1/test/stream", json={"message": "a"}, headers=keyed(alice))
    assert again.status_code == 422
    assert again.get_json()["code"] == "idempotency_key_reused"
    assert "not replayed" in again.get_json()["detail"]
    assert runs["stream"] == 2
    assert len(usage_records()) == 1


class _Admitted:
    def headers(self) -> dict[str, str]:
        return {}


def test_a_keyed_request_costs_two_more_rpcs_and_a_replay_one(http, alice, monkeypatch):
    http.get("/v1/test/free", headers=alice)  # warm the key cache (and last_used_at)
    # Counted here: what the key costs, not the rate limiter's own round trips.
    monkeypatch.setattr(ratelimit, "admit", lambda principal: _Admitted())
    calls: list[str] = []
    transport = get_db()._firestore_api._transport
    for method, wrapped in list(transport._wrapped_methods.items()):

        def counting(*args, _wrapped=wrapped, _name=method.__name__, **kwargs):
            calls.append(_name)
            return _wrapped(*args, **kwargs)

        monkeypatch.setitem(transport._wrapped_methods, method, counting)
    http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice))
    first, calls[:] = list(calls), []
    http.post("/v1/test/metered", json={"message": "a"}, headers=keyed(alice))
    assert len(first) == 3, first  # reserve, usage record, stored answer
    assert len(calls) == 2, calls  # reserve (exists), read the answer
    assert "begin_transaction" not in first + calls
