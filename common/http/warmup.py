"""An instance's first requests served like later ones (issue 43, decision 0065).

The first burst after a start used to find nothing loaded: its threads imported the engines'
modules and loaded the encoder while their waits for a capacity slot ran out (the issue saw 34
of 50 searches shed, and none of the same burst a minute later; 0065 measured 39 of 50 served
against 50 of 50). Each
route names what its work needs (``Route.warm``); the dispatcher of an entry point that
answers ``/health`` (``Route.readiness``) starts them, once per process, in a background thread
when it is built, and ``/health`` answers 503 ``warming`` until they are done, so a load
balancer's startup probe (and ``make run``) sends the first requests only to an instance that
can serve them. An entry point without ``/health`` warms nothing: nothing would keep its first
requests away, and they would share the CPU with the warm-up (a research stream's feeds timed
out under it in a test run that began with one). A warmer that fails is logged
and counted as done: the first request then loads what it needs itself, as before.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from contextvars import ContextVar

from common import logging as log

logger = log.get_logger("ars.http")

_lock = threading.Lock()
_started: set[str] = set()
_done: set[str] = set()
# The warmers of the entry point serving the current request (set by its dispatcher): what
# its /health waits for. One process serves one entry point in production; tests serve many.
serving: ContextVar[tuple[str, ...]] = ContextVar("warmers", default=())


def start(warmers: Iterable[str | None]) -> tuple[str, ...]:
    """Run each warmer ("package.module:function") not run before in this process, in one
    background thread (which also does the imports); returns the warmers named."""
    named = tuple(dict.fromkeys(w for w in warmers if w))
    with _lock:
        todo = [w for w in named if w not in _started]
        _started.update(todo)
    if todo:
        threading.Thread(target=_run, args=(todo,), name="warmup", daemon=True).start()
    return named


def _run(warmers: list[str]) -> None:
    for warmer in warmers:
        module, _, function = warmer.partition(":")
        try:
            getattr(importlib.import_module(module), function)()
        except Exception:
            logger.exception("warm-up failed", extra={"warmer": warmer})
        with _lock:
            _done.add(warmer)


def ready(warmers: Iterable[str] | None = None) -> bool:
    """Whether ``warmers`` (by default, those of the entry point serving the request) have
    run in this process."""
    wanted = serving.get() if warmers is None else tuple(warmers)
    with _lock:
        return all(w in _done for w in wanted)
