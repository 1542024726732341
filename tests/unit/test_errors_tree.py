"""The tree drawn in ``common/errors.py``'s docstring is the tree of the classes (decision 0071).

Every module of ``common/`` and ``functions/`` and the entry points are imported, then
``AppError.__subclasses__()`` is walked: every class found must be defined in ``common.errors``
and drawn, under its parent, with its status and problem code; every class drawn must exist.
Every other exception class of the deployed code must be named in the docstring's list of
those kept in their modules, and every class listed there must exist. A class added, moved,
renamed or given another status or code without the drawing fails here.
"""

from __future__ import annotations

import builtins
import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import common
import functions
from common import errors
from common.errors import AppError

ENTRY_POINTS = ("main", "registry", "admin")
DEPLOYED = ("common", "functions", *ENTRY_POINTS)


@dataclass(frozen=True)
class Drawn:
    depth: int
    name: str
    rest: str  # what follows the name: "<status> <code> [who raises it]", or "-"
    parent: str | None


def _drawing(doc: str) -> list[Drawn]:
    """The lines of the first indented block of ``doc``: the tree, four spaces a level."""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"    \S", line))
    drawn: list[Drawn] = []
    stack: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 4 == 0, f"not four spaces a level: {line!r}"
        depth = indent // 4 - 1
        assert depth <= len(stack), f"a level skipped: {line!r}"
        name, _, rest = line.strip().partition(" ")
        del stack[depth:]
        drawn.append(Drawn(depth, name, rest.strip(), stack[-1] if stack else None))
        stack.append(name)
    return drawn


def _kept_elsewhere(doc: str) -> set[str]:
    """The dotted names of the list of classes kept in their modules."""
    return set(re.findall(r"^- ``([\w.]+)``", doc, re.MULTILINE))


def _import_everything() -> None:
    for package in (common, functions):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    for name in ENTRY_POINTS:
        importlib.import_module(name)


def _walk(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _walk(sub)


def _deployed(cls: type) -> bool:
    return cls.__module__.split(".")[0] in DEPLOYED and "<locals>" not in cls.__qualname__


def _resolve(name: str) -> type | None:
    found = getattr(errors, name, None) or getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def _undrawn(classes: list[type], drawing: list[Drawn]) -> list[str]:
    names = {line.name for line in drawing}
    return sorted({f"{c.__module__}.{c.__qualname__}" for c in classes if c.__name__ not in names})


@pytest.fixture(scope="module")
def doc() -> str:
    _import_everything()
    assert errors.__doc__
    return errors.__doc__


@pytest.fixture(scope="module")
def drawing(doc: str) -> list[Drawn]:
    return _drawing(doc)


def test_every_error_class_is_defined_in_errors(doc):
    elsewhere = [
        f"{c.__module__}.{c.__qualname__}"
        for c in _walk(AppError)
        if _deployed(c) and c.__module__ != "common.errors"
    ]
    assert not elsewhere, f"move these into common/errors.py: {elsewhere}"


def test_every_class_is_drawn(drawing):
    defined_here = [
        value
        for value in vars(errors).values()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == "common.errors"
    ]
    classes = [AppError, *(c for c in _walk(AppError) if _deployed(c)), *defined_here]
    assert not _undrawn(classes, drawing), "draw these in common/errors.py's docstring"


def test_every_drawn_class_exists_under_its_parent(drawing):
    names = [line.name for line in drawing]
    assert len(names) == len(set(names)), "a class drawn twice"
    for line in drawing:
        cls = _resolve(line.name)
        assert cls is not None, f"{line.name} is drawn but is no exception class"
        if line.parent is not None:
            assert _resolve(line.parent) in cls.__bases__, f"{line.name} is not a {line.parent}"


def test_the_drawing_says_each_status_and_code(drawing):
    for line in drawing:
        cls = _resolve(line.name)
        assert cls is not None
        if issubclass(cls, AppError):
            assert line.rest.split()[:2] == [str(cls.status), cls.code], line
        elif line.depth > 0:
            assert line.rest.split()[0] == "-", f"{line.name} is never answered: draw '-'"


def test_the_list_of_classes_kept_in_their_modules_is_whole(doc):
    others = {
        f"{c.__module__}.{c.__qualname__}"
        for c in _walk(BaseException)
        if _deployed(c) and c.__module__ != "common.errors" and not issubclass(c, AppError)
    }
    listed = _kept_elsewhere(doc)
    assert others - listed == set(), "list these in common/errors.py's docstring, or move them"
    assert listed - others == set(), "listed in common/errors.py's docstring, but gone"


def test_the_checks_see_a_class_left_out():
    class Teapot(errors.NotFound):
        status, code = 418, "teapot"

    tree = _drawing("Doc.\n\n    AppError    500 internal\n        NotFound    404 not_found\n")
    assert [(line.name, line.parent) for line in tree] == [
        ("AppError", None),
        ("NotFound", "AppError"),
    ]
    assert _undrawn([AppError, errors.NotFound, Teapot], tree) == [
        f"{__name__}.test_the_checks_see_a_class_left_out.<locals>.Teapot"
    ]
