"""The capacity pools share an instance's slots among consumers (issue 43, decision 0065): a
free slot goes to the consumer holding the fewest, and one consumer's burst is bounded."""

from __future__ import annotations

import threading
import time

from common.http.capacity import Pool, Slot


def _waiting(pool: Pool, who: str, n: int = 1) -> None:
    """Until ``who`` has ``n`` requests waiting in ``pool``."""
    deadline = time.monotonic() + 5
    while pool._waiting[who] < n:
        assert time.monotonic() < deadline, f"{who} never waited"
        time.sleep(0.005)


def _acquire_in_thread(pool: Pool, who: str, timeout_s: float, got: list[str]) -> threading.Thread:
    def run() -> None:
        if pool.acquire(who, timeout_s):
            got.append(who)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_freed_slot_goes_to_the_consumer_holding_fewer_though_it_asked_later() -> None:
    pool = Pool(slots=2, per_consumer=10)
    assert pool.acquire("loud", 0)
    assert pool.acquire("loud", 0)
    got: list[str] = []
    loud = _acquire_in_thread(pool, "loud", 3.0, got)  # the burst's third, waiting first
    _waiting(pool, "loud")
    quiet = _acquire_in_thread(pool, "quiet", 3.0, got)
    _waiting(pool, "quiet")
    pool.release("loud")
    quiet.join(timeout=3)
    assert got == ["quiet"]  # the loud consumer still holds one, the quiet one none
    assert pool._waiting["loud"] == 1
    pool.release("loud")  # now both hold one: the waiting loud request may go
    loud.join(timeout=3)
    assert got == ["quiet", "loud"]


def test_a_lone_consumer_uses_every_slot() -> None:
    pool = Pool(slots=3, per_consumer=10)
    assert all(pool.acquire("alone", 0) for _ in range(3))
    assert not pool.acquire("alone", 0)  # all taken, no wait allowed
    pool.release("alone")
    assert pool.acquire("alone", 0)


def test_a_burst_beyond_the_allowance_is_refused_at_once() -> None:
    pool = Pool(slots=1, per_consumer=2)
    assert pool.acquire("loud", 0)
    got: list[str] = []
    waiter = _acquire_in_thread(pool, "loud", 3.0, got)
    _waiting(pool, "loud")
    began = time.monotonic()
    assert not pool.acquire("loud", 3.0)  # running 1 + waiting 1: the allowance is used
    assert time.monotonic() - began < 0.5  # refused without waiting
    assert pool.acquire("other", 0) is False  # the slot is taken, but the other may wait
    pool.release("loud")
    waiter.join(timeout=3)
    assert got == ["loud"]


def test_a_wait_that_runs_out_is_refused_and_leaves_nothing_behind() -> None:
    pool = Pool(slots=1, per_consumer=5)
    assert pool.acquire("a", 0)
    assert not pool.acquire("b", 0.05)
    assert pool._waiting == {}
    assert pool._running == {"a": 1}


def test_a_slot_is_given_back_once_however_often_released() -> None:
    pool = Pool(slots=1, per_consumer=5)
    assert pool.acquire("a", 0)
    slot = Slot(pool, "a")
    slot.release()
    slot.release()  # a stream's end and its response's close
    assert pool._running == {}
    assert pool.acquire("b", 0)
