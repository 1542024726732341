"""The process's singletons in one container (decision 0072)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from common import container


@pytest.fixture
def entry_name() -> Iterator[str]:
    """A fresh entry's name, taken out of the registry after the test."""
    name = f"test.entry.{time.monotonic_ns()}"
    yield name
    container.reset(name)
    with container._entries_lock:
        container._entries.pop(name, None)


def test_an_entry_is_built_once_even_when_threads_ask_at_once(entry_name):
    built: list[object] = []

    def factory() -> object:
        time.sleep(0.05)  # the threads all arrive while the first one builds
        built.append(object())
        return built[-1]

    entry = container.register(entry_name, factory)
    start = threading.Barrier(8)
    seen: list[object] = []

    def ask() -> None:
        start.wait()
        seen.append(entry.get())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(built) == 1
    assert seen == built * 8
    assert container.get(entry_name) is built[0]


def test_reset_drops_the_instance_and_closes_it(entry_name):
    closed: list[object] = []
    entry = container.register(entry_name, object, close=closed.append)
    first = entry.get()

    container.reset(entry_name)

    assert closed == [first]
    assert not entry.built()
    assert entry.get() is not first


def test_a_reset_of_everything_reaches_every_entry(entry_name):
    entry = container.register(entry_name, object)
    first = entry.get()

    container.reset()

    assert entry.get() is not first
    assert {"firestore.main", "llm.provider", "search.embedder"} <= set(container.names())


def test_an_override_stands_within_its_block_and_survives_a_reset(entry_name):
    entry = container.register(entry_name, object)
    built = entry.get()
    stand_in = object()

    with container.override(entry_name, stand_in):
        assert entry.get() is stand_in
        container.reset(entry_name)
        assert entry.get() is stand_in
        with container.override(entry_name, "inner"):
            assert container.get(entry_name) == "inner"
        assert entry.get() is stand_in

    assert entry.get() is not stand_in
    assert entry.get() is not built  # the reset within the block dropped it


def test_a_name_is_registered_once(entry_name):
    container.register(entry_name, object)
    with pytest.raises(ValueError, match="registered already"):
        container.register(entry_name, object)
    with pytest.raises(KeyError):
        container.get(entry_name + ".unknown")
