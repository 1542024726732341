"""The per-address limit of failed authentication (decision 0034), through the real pipeline on
the real emulator: a flood of forged keys costs a bounded number of Firestore reads, a warm
valid key from the same address still works, other addresses are not affected, and the
address earns its failures back."""

from __future__ import annotations

import time

import flask
import pytest

from common.accounts import keys
from common.http import Api, edgelimit
from tests.emulator.test_limits_and_metering import ROUTES, count_rpcs
from tests.helpers import bearer, new_consumer

pytestmark = pytest.mark.emulator


def forged() -> str:
    """A well-formed key with a valid checksum that no consumer has: each costs a read."""
    return keys.generate_key()


@pytest.fixture
def http():
    api = Api(ROUTES)
    app = flask.Flask("edge-limit-test")
    app.add_url_rule("/<path:_p>", "any", lambda _p: api(flask.request), methods=["GET", "POST"])
    return app.test_client()


def get(http, key: str, address: str = "203.0.113.7"):
    return http.get("/v1/test/free", headers=bearer(key), environ_base={"REMOTE_ADDR": address})


def test_a_flood_of_forged_keys_costs_at_most_the_burst_in_reads(
    http, db, settings_env, monkeypatch
):
    settings_env(AUTH_FAILURES_PER_ADDRESS="5", AUTH_FAILURE_WINDOW_S="600")
    _, key = new_consumer("warm@example.org")
    assert get(http, key).status_code == 200  # warms this instance's key cache
    calls = count_rpcs(monkeypatch)
    statuses = [get(http, forged()).status_code for _ in range(200)]
    reads = [c for c in calls if c in ("RunQuery", "BatchGetDocuments", "GetDocument")]
    assert statuses[:5] == [401] * 5
    assert set(statuses[5:]) == {429}
    assert len(reads) <= 5 * 2  # the key query (+ the consumer only for a found key)
    assert len(reads) >= 5  # the first failures did read: the limit is what bounds them
    refused = get(http, forged())
    assert refused.status_code == 429
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert int(refused.headers["Retry-After"]) >= 1
    assert "failed authentication" in refused.get_json()["detail"]
    before = len(calls)
    # the warm valid key from the same address is still served (rate limit writes only)
    assert get(http, key).status_code == 200
    assert not {"RunQuery", "BatchGetDocuments"} & set(calls[before:])
    # another address is not affected
    assert get(http, forged(), address="198.51.100.9").status_code == 401
    # no key at all is refused too, without a read
    before = len(calls)
    no_key = http.get("/v1/test/free", environ_base={"REMOTE_ADDR": "203.0.113.7"})
    assert no_key.status_code == 429
    assert calls[before:] == []


def test_missing_keys_count_and_the_address_earns_failures_back(http, db, settings_env):
    settings_env(AUTH_FAILURES_PER_ADDRESS="2", AUTH_FAILURE_WINDOW_S="2")
    no_key = {"environ_base": {"REMOTE_ADDR": "203.0.113.8"}}
    assert [http.get("/v1/test/free", **no_key).status_code for _ in range(3)] == [401, 401, 429]
    time.sleep(1.1)  # one failure per second comes back
    assert http.get("/v1/test/free", **no_key).status_code == 401
    assert http.get("/v1/test/free", **no_key).status_code == 429


def test_without_the_limit_every_forged_key_is_a_read(http, db, settings_env, monkeypatch):
    """What the limit saves: with AUTH_FAILURES_PER_ADDRESS=0 each distinct forged key reads."""
    settings_env(AUTH_FAILURES_PER_ADDRESS="0")
    calls = count_rpcs(monkeypatch)
    assert {get(http, forged()).status_code for _ in range(30)} == {401}
    assert calls.count("RunQuery") == 30


def test_the_client_address_is_taken_from_trusted_forwarded_hops(settings_env):
    """The header as API Gateway's ESPv2 forwards it: what the client sent, then the client's
    address as Google's front end saw it, then the front end's; ESPv2 itself trusts two hops
    from the right by default, and Terraform sets CLIENT_ADDRESS_HOPS to 2."""
    headers = {"X-Forwarded-For": "6.6.6.6, 203.0.113.5, 35.191.3.4"}
    assert edgelimit.client_address("10.9.9.9", headers) == "10.9.9.9"
    settings_env(CLIENT_ADDRESS_HOPS="2")
    assert edgelimit.client_address("10.9.9.9", headers) == "203.0.113.5"  # not the spoofed one
    assert edgelimit.client_address("10.9.9.9", {}) == "10.9.9.9"
    six = {"X-Forwarded-For": "2001:db8::1,2001:db8:5:6:a:b:c:d, 35.191.3.4"}
    assert edgelimit.client_address("10.9.9.9", six) == "2001:db8:5:6:a:b:c:d"


def test_an_ipv6_client_is_counted_by_its_64_prefix(settings_env):
    """One subscriber's /64 holds 2^64 addresses: changing the low bits gains no failures."""
    settings_env(AUTH_FAILURES_PER_ADDRESS="3")
    for address in ("2001:db8:5:6::1", "2001:db8:5:6::2", "2001:db8:5:6:a:b:c:d"):
        edgelimit.failed(address, now=0.0)
    assert edgelimit.closed_for("2001:db8:5:6:ffff::9", now=0.0) is not None
    assert edgelimit.closed_for("2001:db8:5:7::1", now=0.0) is None  # the next /64
    for _ in range(3):
        edgelimit.failed("::ffff:203.0.113.9", now=0.0)  # an IPv4 client on a dual stack
    assert edgelimit.closed_for("203.0.113.9", now=0.0) is not None
    assert edgelimit.closed_for("203.0.113.10", now=0.0) is None


def test_the_limiter_forgets_full_buckets_first_and_stays_bounded(settings_env):
    settings_env(AUTH_FAILURES_PER_ADDRESS="3", AUTH_FAILURE_MAX_ADDRESSES="10")
    for _ in range(3):
        edgelimit.failed("attacker", now=0.0)
    for n in range(50):
        edgelimit.failed(f"visitor-{n}", now=0.0)
    assert edgelimit.closed_for("attacker", now=0.0) is not None  # kept: its bucket is empty
    assert len(edgelimit._buckets) == 10
