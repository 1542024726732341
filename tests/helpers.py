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
    from common.accounts.consumers import get_or_create_by_email
    from common.accounts.keys import issue_key

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
    from common.adapters.firestore import SUBSCRIPTIONS, get_db

    snapshot = get_db().collection(SUBSCRIPTIONS).document(sub_id).get()
    return snapshot.to_dict() if snapshot.exists else None


def streamed_events(response: Any) -> list[dict[str, Any]]:
    """The events of a streamed answer (a Flask test response or an httpx one), each checked
    against the event model its route publishes in /openapi.json (issue 23): NDJSON lines, or
    server-sent events (their ``event:`` name as ``type``). A line no model accepts fails."""
    import json
    import re

    from registry import all_routes

    request = response.request
    path = request.path if hasattr(request, "path") else request.url.path
    route = next(r for r in all_routes() if r.method == request.method and r.pattern().match(path))
    models = {model.model_fields["type"].default: model for model in route.events}
    assert models, f"{route.operation_id} publishes no event models"
    text = response.get_data(as_text=True) if hasattr(response, "get_data") else response.text
    if route.stream == "text/event-stream":
        found = [
            {"type": m.group(1), **json.loads(m.group(2))}
            for m in re.finditer(r"event: (\w+)\ndata: (.*)\n\n", text)
        ]
        assert "".join(f"event: {e['type']}" for e in found) == "".join(
            re.findall(r"event: \w+", text)
        ), "an event that is not one name and one data line"
    else:
        found = [json.loads(line) for line in text.splitlines() if line]
    for event in found:
        assert event.get("type") in models, f"{route.operation_id}: unknown event {event}"
        models[event["type"]].model_validate(event)  # raises on a field the model lacks
    return found


class Connection:
    """A request's connection as the server sees it, for the in-process app: a real socket
    pair whose server end is ``gunicorn.socket`` in the WSGI environ (where gunicorn puts the
    client's connection, and where the pipeline looks to tell a client still there from one
    gone, decision 0066). ``hang_up()`` closes the client's end, as a client that leaves does;
    what the server writes after that is, as over TCP, accepted without an error."""

    def __init__(self) -> None:
        import socket

        self.server, self.client = socket.socketpair()

    @property
    def environ(self) -> dict[str, Any]:
        return {"gunicorn.socket": self.server}

    def hang_up(self) -> None:
        self.client.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_: object) -> None:
        self.client.close()
        self.server.close()


def read_until(response: Any, seen: Any) -> Any:
    """The chunks of a streamed in-process answer (``buffered=False``), as a client reads
    them, up to the first for which ``seen(chunk)`` is true; returns the chunk iterator, so
    that the server's side can be driven on (the server writes each chunk it is given)."""
    chunks = iter(response.response)
    for chunk in chunks:
        if seen(chunk.decode()):
            break
    return chunks
