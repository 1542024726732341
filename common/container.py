"""The process's singletons in one place (decision 0072): named lazy factories.

A module that keeps one of something per process (a client, a provider, a loaded model)
registers its factory here at import and reads it through its own accessor (``get_db()``,
``get_provider()``, ``get_embedder()``...)::

    _provider = container.register("llm.provider", _build_provider, close=_close)

    def get_provider() -> ChatProvider:
        return _provider.get()

Each entry is built on first use, once, under its own lock (two threads asking at once get the
same instance; entries build in parallel, and a factory may read another entry). Tests do not
reach into modules' globals: ``reset()`` drops every built instance (``reset(name, ...)`` the
named ones only), and ``override(name, value)`` stands a value in for an entry within a
``with`` block. The container knows nothing of what it holds, so it sits below every room of
``common/`` and any of them may register.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_UNBUILT: Any = object()


class Entry(Generic[T]):
    """One named singleton: its factory, its built instance (if any), its override (if any)."""

    def __init__(self, name: str, factory: Callable[[], T], close: Callable[[T], Any] | None):
        self.name = name
        self._factory = factory
        self._close = close
        self._lock = threading.Lock()
        self._value: Any = _UNBUILT
        self._override: Any = _UNBUILT

    def get(self) -> T:
        """The instance: the override if one stands, else the built one, built on first use."""
        value = self._override
        if value is not _UNBUILT:
            return value
        value = self._value
        if value is _UNBUILT:
            with self._lock:
                value = self._value
                if value is _UNBUILT:
                    value = self._value = self._factory()
        return value

    def built(self) -> bool:
        return self._value is not _UNBUILT

    def drop(self) -> None:
        """Forget the built instance (closing it if the entry says how); overrides stay."""
        with self._lock:
            value, self._value = self._value, _UNBUILT
        if value is not _UNBUILT and self._close is not None:
            self._close(value)


_entries: dict[str, Entry[Any]] = {}
_entries_lock = threading.Lock()


def register(
    name: str, factory: Callable[[], T], close: Callable[[T], Any] | None = None
) -> Entry[T]:
    """Name a singleton and how to build it (and, optionally, to close it when dropped)."""
    with _entries_lock:
        if name in _entries:
            raise ValueError(f"container: {name!r} is registered already")
        entry = _entries[name] = Entry(name, factory, close)
    return entry


def get(name: str) -> Any:
    """The instance of entry ``name``, built on first use."""
    return _entries[name].get()


def names() -> list[str]:
    """The registered entries' names (those of the modules imported so far)."""
    with _entries_lock:
        return sorted(_entries)


def reset(*names: str) -> None:
    """Drop the built instances of ``names`` (every entry's when none is named): the next
    ``get`` builds afresh, from the settings of the moment."""
    with _entries_lock:
        entries = [_entries[name] for name in names] if names else list(_entries.values())
    for entry in entries:
        entry.drop()


@contextmanager
def override(name: str, value: Any) -> Iterator[Any]:
    """Within the block, entry ``name`` is ``value`` (tests); the previous state comes back
    after it. A reset within the block leaves the override standing."""
    entry = _entries[name]
    previous, entry._override = entry._override, value
    try:
        yield value
    finally:
        entry._override = previous
