"""The registry beside main.py (decision 0019) hands the groups what they must not import: the
whole API's routes (Call.api_routes) and, for the inline task queue, the task worker."""

from __future__ import annotations

import flask
import pytest

import registry
from common import tasks
from common.http import Api, Auth, Call, Route
from tests.helpers import client


@pytest.fixture
def no_runner(monkeypatch):
    monkeypatch.setattr(tasks, "_runner", None)
    tasks.reset_inline()
    registry.app.cache_clear()
    yield
    tasks.reset_inline()
    registry.app.cache_clear()


def test_the_health_function_documents_the_whole_api():
    """/openapi.json is served by the `health` function, which serves only the system routes."""
    paths = client("health").get("/openapi.json").get_json()["paths"]
    assert {"/health", "/v1/tracking/subscriptions", "/v1/chat/message"} <= set(paths)


def test_handlers_see_the_routes_their_api_was_given(settings_env):
    settings_env()
    seen: list[list[str]] = []

    def handler(call: Call) -> None:
        seen.append([route.path for route in call.api_routes()])

    own = Route("GET", "/own", handler, "own", "Own", "Test", auth=Auth.NONE, status=204)
    other = Route("GET", "/other", handler, "other", "Other", "Test", auth=Auth.NONE)
    for api in (Api([own], api_routes=lambda: (own, other)), Api([own])):
        app = flask.Flask("registry-test")
        app.add_url_rule("/own", "own", lambda api=api: api(flask.request))
        assert app.test_client().get("/own").status_code == 204
    assert seen == [["/own", "/other"], ["/own"]]  # by default, the Api's own routes


def test_the_inline_queue_refuses_to_start_without_a_runner(no_runner, settings_env):
    settings_env()
    with pytest.raises(RuntimeError, match="no runner"):
        tasks.inline_queue()


def test_building_an_entry_point_hands_the_task_worker_to_the_inline_queue(no_runner, settings_env):
    settings_env()
    registry.app("system")
    assert tasks._runner is registry.run_task
    assert tasks.inline_queue() is not None
