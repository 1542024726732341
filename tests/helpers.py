"""Small helpers for tests: an in-process app of the real Functions Framework, and consumers."""

from __future__ import annotations

import threading
from typing import Any

from flask.testing import FlaskClient

from tests.conftest import ROOT

_apps: dict[str, Any] = {}
_apps_lock = threading.Lock()


def _app(target: str) -> Any:
    """One functions-framework app per target, built once (thread-safe: tests call this from
    thread pools)."""
    import functions_framework

    with _apps_lock:
        if target not in _apps:
            _apps[target] = functions_framework.create_app(
                target=target, source=str(ROOT / "main.py")
            )
        return _apps[target]


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


def chat_post(path: str, body: dict, auth: dict[str, str], accept: str | None = None) -> Any:
    """POST /v1/chat/<path> on the in-process app, optionally with an Accept header."""
    headers = {**auth, **({"Accept": accept} if accept else {})}
    return client().post(f"/v1/chat/{path}", json=body, headers=headers)


SUBSCRIPTIONS_URL = "/v1/tracking/subscriptions"


def create_subscription(auth: dict[str, str], body: dict) -> dict:
    """POST a subscription through the API; its ``data``."""
    response = client().post(SUBSCRIPTIONS_URL, json=body, headers=auth)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["data"]


def subscription_doc(sub_id: str) -> dict | None:
    """The stored subscription document, None once it is gone."""
    from common.firestore import SUBSCRIPTIONS, get_db

    snapshot = get_db().collection(SUBSCRIPTIONS).document(sub_id).get()
    return snapshot.to_dict() if snapshot.exists else None
