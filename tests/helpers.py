"""Small helpers for tests: an in-process app of the real Functions Framework, and consumers."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask.testing import FlaskClient

from tests.conftest import ROOT


@cache
def _app(target: str) -> Any:
    import functions_framework

    return functions_framework.create_app(target=target, source=str(ROOT / "main.py"))


def client(target: str = "api") -> FlaskClient:
    """A test client of ``main.<target>`` served by functions-framework's own Flask app."""
    return _app(target).test_client()


def new_consumer(email: str = "alice@example.org") -> tuple[dict, str]:
    """A consumer and a fresh API key for it."""
    from common.consumers import get_or_create_by_email
    from common.keys import issue_key

    consumer, _ = get_or_create_by_email(email)
    return consumer, issue_key(consumer["id"]).plaintext


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def problem_core(body: dict) -> dict:
    """A problem body without the per-request members, to compare two answers."""
    return {k: v for k, v in body.items() if k not in {"correlationId", "instance"}}
