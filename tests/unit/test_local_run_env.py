"""`make run` writes what it started to LOCAL_DIR/run.env, and the command-line tools in
another shell use it (issue 23): the same ports and emulator without exporting anything, the
shell's own variables first, and nothing outside a local environment."""

from __future__ import annotations

import os

import pytest

from common import config


@pytest.fixture
def local_dir(tmp_path, monkeypatch):
    saved = dict(os.environ)  # use_local_run sets variables itself: put them all back after
    monkeypatch.setenv("LOCAL_DIR", str(tmp_path))
    for name in config.RUN_ENV_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield tmp_path
    os.environ.clear()
    os.environ.update(saved)
    config.get_settings.cache_clear()


def test_the_tools_use_what_make_run_started(local_dir, monkeypatch):
    (local_dir / "run.env").write_text(
        "PORT=9191\nEMULATOR_PORT=9292\nFIRESTORE_EMULATOR_HOST=127.0.0.1:9292\nSECRET=x\n"
    )
    monkeypatch.setenv("EMULATOR_PORT", "9393")  # the shell's own setting wins
    applied = config.use_local_run()
    assert applied == {"PORT": "9191", "FIRESTORE_EMULATOR_HOST": "127.0.0.1:9292"}
    settings = config.get_settings()
    assert (settings.port, settings.emulator_port) == (9191, 9393)
    assert "SECRET" not in applied  # only the variables a run records


def test_nothing_is_used_without_a_run_or_outside_local(local_dir, monkeypatch):
    assert config.use_local_run() == {}  # no make run
    (local_dir / "run.env").write_text("PORT=9191\n")
    monkeypatch.setenv("ENVIRONMENT", "test")
    assert config.use_local_run() == {}
