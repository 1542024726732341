"""An instance loads what its first requests need before /health says it is ready (issue 43,
decision 0065)."""

from __future__ import annotations

import importlib
import threading
import time

import pytest

from common.errors import Warming
from common.http import warmup

RELEASE = threading.Event()
RAN: list[str] = []


def _held() -> None:
    RAN.append("held")
    assert RELEASE.wait(5)


def _failing() -> None:
    RAN.append("failing")
    raise RuntimeError("the model file is missing")


def _until_ready(warmers: tuple[str, ...]) -> None:
    deadline = time.monotonic() + 5
    while not warmup.ready(warmers):
        assert time.monotonic() < deadline, "the warm-up never finished"
        time.sleep(0.01)


def test_every_routes_warmer_names_a_function() -> None:
    from registry import all_routes

    named = {route.warm for route in all_routes() if route.warm}
    assert "common.search.retrieval:warm" in named  # the searches name one
    for warmer in named:
        module, _, function = warmer.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), warmer


def test_health_says_warming_until_its_entry_points_warm_up_is_done() -> None:
    from functions.system import service

    RELEASE.clear()
    warmers = warmup.start([f"{__name__}:_held", None, f"{__name__}:_held"])
    assert warmers == (f"{__name__}:_held",)
    serving = warmup.serving.set(warmers)
    try:
        with pytest.raises(Warming) as refused:
            service.check_health()
        assert refused.value.status == 503
        assert refused.value.headers["Retry-After"] == "1"
    finally:
        warmup.serving.reset(serving)
    assert warmup.ready(())  # an entry point with nothing to warm is ready meanwhile
    warmup.start(warmers)  # once per process: not run again
    RELEASE.set()
    _until_ready(warmers)
    assert RAN.count("held") == 1


def test_a_failing_warmer_is_logged_and_counts_as_done(caplog: pytest.LogCaptureFixture) -> None:
    warmers = warmup.start([f"{__name__}:_failing"])
    _until_ready(warmers)
    assert "failing" in RAN
    assert any(record.getMessage() == "warm-up failed" for record in caplog.records)


def test_only_an_entry_point_that_answers_health_warms_at_start() -> None:
    """A group's own function has no /health to keep its first requests away: it warms
    nothing, and its first requests do not share the CPU with a warm-up."""
    from common.http import Api
    from functions.knowledge.routes import ROUTES as KNOWLEDGE
    from functions.system.routes import ROUTES as SYSTEM

    assert Api(KNOWLEDGE)._warmers == ()
    assert Api([*SYSTEM, *KNOWLEDGE])._warmers == ("common.search.retrieval:warm",)
