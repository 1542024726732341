"""The files `make test` starts first (``tests/conftest.py``, decision 0075) exist: a renamed
one would quietly end the run alone again."""

from __future__ import annotations

from tests.conftest import ROOT, STARTED_FIRST


def test_the_files_started_first_exist() -> None:
    for path in STARTED_FIRST:
        assert (ROOT / path).is_file(), path
