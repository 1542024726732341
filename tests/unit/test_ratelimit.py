"""The sliding-window estimate, its decisions and headers, and the in-process refusals: pure
arithmetic, no I/O (the emulator tests run the same code against Firestore)."""

from __future__ import annotations

import itertools

import pytest

from common.http.ratelimit import Decision, _Refusals, decide, estimate, seconds_until

W = 60


def future_estimate(previous: int, current: int, elapsed: float, later: float, limit: int):
    """The estimate ``later`` seconds from now if no other request is counted, by definition:
    in the next window the current count becomes the previous one."""
    at = elapsed + later
    if at < W:
        return estimate(previous, current, at, W, limit)
    if at < 2 * W:
        return estimate(current, 0, at - W, W, limit)
    return 0.0


def test_the_estimate_weights_the_previous_window_by_its_overlap():
    # Cloudflare's example: 42 in the previous minute, 18 in this one, 15 s into it.
    assert estimate(42, 18, 15, W, 50) == pytest.approx(42 * 45 / 60 + 18) == 49.5
    assert estimate(42, 18, 0, W, 50) == 60  # at the boundary the previous window counts fully
    assert estimate(0, 7, 30, W, 50) == 7


def test_the_carry_over_is_at_most_the_limit():
    assert estimate(1_000, 0, 30, W, 60) == estimate(60, 0, 30, W, 60) == 30


def test_no_burst_at_the_boundary():
    """A client that used its whole limit just before the boundary gets one request 1 s after
    it (the fixed window gave it the whole limit again), then one more each W/limit seconds."""
    admitted = sum(decide(60, W, 1.0, 60, current).admitted for current in range(1, 61))
    assert admitted == 1
    for elapsed, fits in [(1.0, 1), (2.0, 2), (30.0, 30), (59.0, 59)]:
        assert decide(60, W, elapsed, 60, fits).admitted
        assert not decide(60, W, elapsed, 60, fits + 1).admitted


def test_remaining_and_the_time_until_one_more():
    # 6 in the previous window, halfway through this one, the first request: 6 * 0.5 + 1 = 4.
    decision = decide(10, W, 30, 6, 1)
    assert (decision.admitted, decision.remaining) == (True, 6)
    # A 7th becomes available when 6 * (30 - t) / 60 + 1 <= 3, i.e. after t = 10 s.
    assert decision.wait_s == pytest.approx(10)
    assert decision.headers() == {
        "RateLimit-Policy": '"default";q=10;w=60',
        "RateLimit": '"default";r=6;t=10',
    }


def test_the_first_request_leaves_the_sliding_window_only_at_the_end_of_the_next_window():
    decision = decide(60, W, 18, 0, 1)
    assert (decision.remaining, decision.reset_s) == (59, 102)


def test_a_refusal_carries_retry_after_equal_to_t():
    decision = decide(10, W, 30, 6, 8)  # 3 + 8 = 11 > 10
    assert not decision.admitted
    assert decision.remaining == 0
    # 6 * (30 - t) / 60 + 8 <= 9  ->  t >= 20
    assert decision.headers() == {
        "RateLimit-Policy": '"default";q=10;w=60',
        "RateLimit": '"default";r=0;t=20',
        "Retry-After": "20",
    }


def test_over_the_limit_in_this_window_waits_for_the_next():
    # 30 counted attempts, limit 10, 50 s in: the next window carries 10 (capped), which must
    # decay to 9: 10 s to the boundary + 6 s.
    decision = decide(10, W, 50, 0, 30)
    assert not decision.admitted
    assert decision.wait_s == pytest.approx(16)


@pytest.mark.parametrize("limit", [1, 2, 10, 60])
def test_retry_after_is_exactly_when_the_estimate_admits_one_more(limit):
    """Against the estimate's definition, over a grid of states: at ``wait_s`` one more request
    fits, a moment earlier it does not."""
    counts = sorted({0, 1, limit // 2, limit - 1, limit, limit + 1, 3 * limit})
    for previous, current, elapsed in itertools.product(counts, counts, [0, 0.5, 17.3, 45, 59.9]):
        if current == 0:
            continue  # a decision always counts its own request
        decision = decide(limit, W, elapsed, previous, current)
        level = estimate(previous, current, elapsed, W, limit)
        assert decision.admitted == (level <= limit)
        assert decision.remaining == max(0, int(limit - level + 1e-9))
        wanted = limit - decision.remaining - 1  # the level at which one more is available
        wait = decision.wait_s
        assert future_estimate(previous, current, elapsed, wait, limit) <= wanted + 1e-6
        if wait > 0.01:
            later = future_estimate(previous, current, elapsed, wait - 0.01, limit)
            assert later > wanted, (previous, current, elapsed, wait)
        assert wait <= 2 * W - elapsed


def test_a_limit_of_zero_admits_nothing():
    decision = decide(0, W, 10, 0, 1)
    assert not decision.admitted
    assert decision.headers()["Retry-After"] == "60"
    assert seconds_until(-1, 0, 1, 10, W, 0) == W


def test_header_seconds_are_whole_and_at_least_one():
    assert Decision(10, 60, True, 3, 0.2).reset_s == 1
    assert Decision(10, 60, True, 3, 9.0000000001).reset_s == 9
    assert Decision(10, 60, True, 3, 9.2).reset_s == 10


def test_refusals_last_until_their_time_and_stay_bounded():
    refusals = _Refusals(max_entries=2)
    refusals.remember(("a", 10, 60), 100.0)
    refusals.remember(("a", 10, 60), 90.0)  # an earlier time never shortens a refusal
    assert refusals.until(("a", 10, 60), 50.0) == 100.0
    assert refusals.until(("a", 20, 60), 50.0) is None  # another policy: not refused
    assert refusals.until(("a", 10, 60), 100.0) is None  # due: forgotten
    assert refusals.until(("a", 10, 60), 50.0) is None
    for name in "bcd":
        refusals.remember((name, 10, 60), 1e12)
    assert refusals.until(("b", 10, 60), 0.0) is None  # the oldest made room
    assert refusals.until(("d", 10, 60), 0.0) == 1e12
