"""The request pipeline with routes of its own: no Firestore involved."""

from __future__ import annotations

import json
import uuid

import flask
import pytest
from google.api_core import exceptions as gexc
from pydantic import BaseModel, ConfigDict, Field

from common.accounts import keys
from common.errors import NotFound
from common.http import Api, Auth, Call, Route
from tests.conftest import refresh_settings


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=5)
    count: int = Field(1, ge=1, le=10)
    flag: bool = False


class Echo(BaseModel):
    name: str
    count: int


class Path(BaseModel):
    id: uuid.UUID


def echo(call: Call) -> Echo:
    return Echo(name=call.body.name, count=call.body.count)


def boom(call: Call) -> None:
    raise RuntimeError("secret internals")


def backend_down(call: Call) -> None:
    raise gexc.ServiceUnavailable("connection refused")


def missing(call: Call) -> None:
    raise NotFound("nothing here")


ROUTES = [
    Route("POST", "/echo", echo, "echo", "Echo", "Test", auth=Auth.NONE, body=Body,
          response=Echo, status=201),
    Route("GET", "/boom", boom, "boom", "Boom", "Test", auth=Auth.NONE),
    Route("GET", "/down", backend_down, "down", "Down", "Test", auth=Auth.NONE),
    Route("GET", "/things/{id}", missing, "thing", "Thing", "Test", auth=Auth.NONE,
          path_params=Path),
    Route("DELETE", "/things/{id}", missing, "delThing", "Thing", "Test", auth=Auth.NONE,
          path_params=Path),
    Route("GET", "/private", missing, "private", "Private", "Test"),
    Route("GET", "/hello", lambda call: Echo(name="hello", count=1), "hello", "Hello", "Test",
          auth=Auth.NONE, response=Echo),
]  # fmt: skip


@pytest.fixture
def client():
    api = Api(ROUTES)
    app = flask.Flask("pipeline-test")
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    app.add_url_rule("/", "root", lambda: api(flask.request), methods=methods)
    app.add_url_rule("/<path:_p>", "any", lambda _p: api(flask.request), methods=methods)
    return app.test_client()


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"/problems/{code}"
    assert body["correlationId"] == response.headers["x-correlation-id"]
    assert body["title"]
    assert body["detail"]
    return body


def test_valid_body_is_handled(client):
    response = client.post("/echo", json={"name": "abc", "count": 3})
    assert response.status_code == 201
    assert response.get_json() == {"name": "abc", "count": 3}


@pytest.mark.parametrize(
    ("payload", "field", "fragment"),
    [
        ('{"name": "abc",', "body", "Malformed JSON"),
        ("", "body", "Malformed JSON"),
        ("[1, 2]", "body", "JSON object"),
        ('"text"', "body", "JSON object"),
        ('{"name": "abc", "colour": "red"}', "colour", "Unknown field"),
        ('{"name": "abc", "count": "3"}', "count", "integer"),
        ('{"name": "abc", "flag": 1}', "flag", "boolean"),
        ('{"name": ""}', "name", "at least 1"),
        ('{"name": "abcdef"}', "name", "at most 5"),
        ('{"name": "abc", "count": 11}', "count", "less than or equal to 10"),
        ("{}", "name", "required"),
    ],
)
def test_bad_bodies_get_400_naming_the_field(client, payload, field, fragment):
    response = client.post("/echo", data=payload, content_type="application/json")
    body = assert_problem(response, 400, "invalid_request")
    fields = {e["field"]: e["message"] for e in body["errors"]}
    assert field in fields, body
    assert fragment.lower() in fields[field].lower()


def test_a_body_with_many_errors_lists_the_first_twenty_and_counts_them(client):
    payload = {"name": "abc", **{f"extra{i}": i for i in range(60)}}
    response = client.post("/echo", json=payload)
    body = assert_problem(response, 400, "invalid_request")
    assert len(body["errors"]) == 20
    assert body["errorCount"] == 60
    assert len(response.data) < 10_000  # was a body of every error (8 MB for 60,000 fields)
    few = assert_problem(client.post("/echo", json={"name": "abc", "x": 1}), 400, "invalid_request")
    assert "errorCount" not in few


def test_body_over_the_limit_gets_413(client, settings_env):
    settings_env(MAX_BODY_BYTES="100")
    response = client.post(
        "/echo", data=json.dumps({"name": "a" * 200}), content_type="application/json"
    )
    assert_problem(response, 413, "payload_too_large")


def test_default_limit_is_one_mebibyte(client):
    refresh_settings()
    big = json.dumps({"name": "x" * (1024 * 1024)})
    assert_problem(
        client.post("/echo", data=big, content_type="application/json"), 413, "payload_too_large"
    )


def test_a_declared_length_over_the_limit_is_413_on_any_route_before_anything_else(client):
    refresh_settings()
    declared = {"CONTENT_LENGTH": str(300 * 1024 * 1024)}  # nothing sent
    for method, path in [("GET", "/private"), ("GET", "/nowhere"), ("POST", "/echo")]:
        response = client.open(path, method=method, environ_overrides=declared)
        assert_problem(response, 413, "payload_too_large")  # not 401 (no key) nor 404


def test_a_body_declared_as_something_other_than_json_gets_415(client):
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "application/xml"]:
        response = client.post("/echo", data='{"name": "abc"}', content_type=content_type)
        body = assert_problem(response, 415, "unsupported_media_type")
        assert "application/json" in body["detail"]
    # JSON with parameters, a +json type, or no declared type at all (decision 0015) is read.
    for content_type in ["Application/JSON; charset=utf-8", "application/merge-patch+json", None]:
        headers = {"Content-Type": content_type} if content_type else {}
        response = client.post("/echo", data='{"name": "abc"}', headers=headers)
        assert response.status_code == 201, (content_type, response.get_json())


def test_unknown_path_is_404_and_wrong_method_is_405(client):
    assert_problem(client.get("/nowhere"), 404, "not_found")
    response = client.put("/echo", json={})
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "POST"
    assert client.post(f"/things/{uuid.uuid4()}").headers["Allow"] == "DELETE, GET"


def test_head_is_served_like_get_without_a_body(client):
    got = client.get("/hello")
    assert got.status_code == 200
    assert got.get_json() == {"name": "hello", "count": 1}
    response = client.head("/hello")
    assert response.status_code == 200  # routed to the GET handler, not a 404 or 405
    assert response.headers["Content-Type"] == "application/json"
    assert response.data == b""
    assert client.head(f"/things/{uuid.uuid4()}").data == b""  # an error's body is left out too


def test_malformed_path_parameter_is_400_naming_it(client):
    body = assert_problem(client.get("/things/not-a-uuid"), 400, "invalid_request")
    assert body["errors"][0]["field"] == "id"


def test_handler_errors_map_to_their_status(client):
    assert_problem(client.get(f"/things/{uuid.uuid4()}"), 404, "not_found")


def test_backend_failure_is_502_never_500(client):
    body = assert_problem(client.get("/down"), 502, "backend_unavailable")
    assert "connection refused" not in body["detail"]


def test_a_failed_query_stream_is_a_backend_error_not_a_bug():
    """google-cloud-firestore's stream retry reads ``_retry`` of a gRPC callable that has none
    and raises AttributeError while handling the stream's own error (issue 26): a 502."""
    from google.api_core.exceptions import DeadlineExceeded

    from common.adapters.firestore import backend_unavailable, is_backend_error

    def stream() -> None:
        try:
            raise DeadlineExceeded("stream timed out")
        except DeadlineExceeded:
            raise AttributeError(  # noqa: B904 -- the library raises it this way
                "'_UnaryStreamMultiCallable' object has no attribute '_retry'"
            )

    with pytest.raises(AttributeError) as raised:
        stream()
    assert is_backend_error(raised.value)
    assert "did not answer in time" in str(backend_unavailable(raised.value).detail)
    assert not is_backend_error(AttributeError("'NoneType' object has no attribute 'x'"))


def test_a_bug_is_500_without_internals(client, capsys):
    body = assert_problem(client.get("/boom"), 500, "internal")
    assert "secret internals" not in json.dumps(body)
    logged = capsys.readouterr().out
    assert "secret internals" in logged  # the log has it, the caller does not


def test_correlation_id_is_echoed_when_valid_and_replaced_when_not(client):
    given = "req-123.abc:XYZ_9"
    assert (
        client.get("/nowhere", headers={"x-correlation-id": given}).headers["x-correlation-id"]
        == given
    )
    for bad in ["has space", "x" * 129, "semi;colon"]:
        answered = client.get("/nowhere", headers={"x-correlation-id": bad})
        assert str(uuid.UUID(answered.headers["x-correlation-id"]))


def test_every_bad_key_gets_the_same_401(client, monkeypatch):
    monkeypatch.setattr(keys, "_load_principal", lambda *_: None)  # unknown key, no database
    answers = []
    for header in [
        None,
        "Basic abc",
        "Bearer",
        "Bearer ars_live_short",
        f"Bearer {keys.generate_key()}",
    ]:
        headers = {"Authorization": header} if header else {}
        response = client.get("/private", headers=headers)
        body = assert_problem(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        answers.append({k: v for k, v in body.items() if k != "correlationId"})
    assert all(answer == answers[0] for answer in answers)


def test_logs_are_json_with_the_correlation_id_and_never_the_key(client, capsys, monkeypatch):
    monkeypatch.setattr(keys, "_load_principal", lambda *_: None)
    key = keys.generate_key()
    client.get("/private", headers={"Authorization": f"Bearer {key}", "x-correlation-id": "c-1"})
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line]
    request_lines = [line for line in lines if line["message"] == "request"]
    assert request_lines[-1]["correlationId"] == "c-1"
    assert request_lines[-1]["severity"] == "INFO"
    assert request_lines[-1]["httpRequest"]["status"] == 401
    assert key not in json.dumps(lines)
