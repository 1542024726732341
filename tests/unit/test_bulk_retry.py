"""Operator bulk work (imports, reindex) survives a slow commit:
``common.adapters.firestore.retried``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from google.api_core import exceptions

from common.adapters import firestore


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(firestore.time, "sleep", waits.append)
    return waits


def flaky(errors: list[Exception]) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return "done"

    return calls, call


def test_a_transient_error_is_tried_again_with_backoff(no_backoff: list[float]) -> None:
    calls, call = flaky([exceptions.DeadlineExceeded("slow"), exceptions.ServiceUnavailable("x")])
    assert firestore.retried(call) == "done"
    assert len(calls) == 3
    assert no_backoff == [1, 2]


def test_a_lasting_failure_is_raised_after_the_last_attempt() -> None:
    calls, call = flaky([exceptions.DeadlineExceeded("slow")] * 10)
    with pytest.raises(exceptions.DeadlineExceeded):
        firestore.retried(call, attempts=3)
    assert len(calls) == 3


@pytest.mark.parametrize(
    "error",
    [exceptions.PermissionDenied("no"), exceptions.InvalidArgument("bad"), ValueError("bug")],
)
def test_an_error_a_retry_cannot_cure_is_raised_at_once(error: Exception) -> None:
    calls, call = flaky([error])
    with pytest.raises(type(error)):
        firestore.retried(call)
    assert len(calls) == 1
