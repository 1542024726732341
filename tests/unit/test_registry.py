"""The registry beside main.py (decision 0019) hands the groups what they must not import: the
whole API's routes (Call.api_routes), the job table (Call.jobs) and, for the inline task queue,
the task worker."""

from __future__ import annotations

import flask
import pytest

import registry
from common import container
from common.adapters import tasks
from common.http import Api, Auth, Call, Route
from tests.helpers import client


@pytest.fixture
def no_runner(monkeypatch):
    monkeypatch.setattr(tasks, "_runner", None)
    container.reset(tasks.INLINE)
    registry.app.cache_clear()
    yield
    container.reset(tasks.INLINE)
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


def test_the_job_table_names_each_job_by_its_own_kind():
    """registry.JOBS lists each job module's own Job; the worker gets the table, never a list
    of kinds written again (issue 23)."""
    from functions.legal import service as legal
    from functions.tracking import dispatch, recipients, run

    table = registry.jobs()
    assert table == {
        run.KIND: run.run_subscription,
        dispatch.SLICE_KIND: dispatch.run_slice,
        recipients.KIND: recipients.run_confirmation,
        legal.KIND: legal.run_guidance,
    }
    assert len(table) == len(registry.JOBS)


def test_the_worker_runs_only_the_jobs_it_is_handed(settings_env):
    settings_env()
    from functions.tasks.worker import execute

    ran: list[str] = []
    jobs = {"test.job": lambda task: ran.append(task.task_id) or "done"}
    assert execute(tasks.Task("t1", "test.job"), jobs) == "done"
    assert execute(tasks.Task("t2", "tracking.run"), jobs) == "unknown_kind"
    assert ran == ["t1"]
