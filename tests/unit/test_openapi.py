from enum import StrEnum

import pytest
from pydantic import BaseModel, Field

from common.errors import InvalidRequest
from common.http import Auth, Call, Route
from common.http.idempotency import HEADER
from common.http.openapi import build_openapi, error_statuses
from registry import all_routes
from tests.conftest import refresh_settings


def test_every_route_is_documented_with_its_errors():
    routes = [route for route in all_routes() if not route.auth.internal and route.documented]
    doc = build_openapi(routes, version="9.9.9")
    assert doc["openapi"] == "3.1.0"
    assert doc["info"]["version"] == "9.9.9"
    for route in routes:
        operation = doc["paths"][route.path][route.method.lower()]
        assert operation["operationId"] == route.operation_id
        assert str(route.status) in operation["responses"]
        for status in error_statuses(route):
            content = operation["responses"][str(status)]["content"]
            assert content["application/problem+json"]["schema"] == {
                "$ref": "#/components/schemas/Problem"
            }
        secured = operation["security"] == [{"bearerAuth": []}]
        assert secured == (route.auth is Auth.API_KEY)


def references(doc: dict) -> list[str]:
    """Every ``$ref`` anywhere in ``doc``, each resolved as a JSON pointer into ``doc`` itself:
    an AssertionError names the first that is external or points at nothing."""
    found: list[str] = []

    def resolve(ref: str) -> object:
        assert ref.startswith("#/"), f"{ref}: not a reference into this document"
        node: object = doc
        for token in ref[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            assert isinstance(node, dict), f"{ref}: dangling"
            assert token in node, f"{ref}: dangling"
            node = node[token]
        return node

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                found.append(node["$ref"])
                resolve(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    return found


def test_every_reference_of_the_document_resolves():
    refs = references(build_openapi(all_routes(), version="1"))
    assert "#/components/schemas/Problem" in refs
    assert "#/components/headers/CorrelationId" in refs
    assert any(ref.startswith("#/components/schemas/Subscription") for ref in refs)


class Colour(StrEnum):
    RED = "red"
    GREEN = "green"


class Shade(StrEnum):
    DARK = "dark"
    LIGHT = "light"


class Window(BaseModel):
    days: int = Field(7, ge=1)


class PaintQuery(BaseModel):
    colour: Colour = Field(description="Which colour.")
    shade: Shade | None = None
    window: Window | None = None


class PaintPath(BaseModel):
    shade: Shade


class Paint(BaseModel):
    colour: Colour


def _paint(call: Call) -> Paint:
    return Paint(colour=call.query.colour)


def test_enums_and_models_in_parameters_are_published_with_the_document():
    """A parameter model's field may refer to a definition of its own (an enum, a nested
    model): the definition is published in components, never left dangling."""
    routes = [
        Route("GET", "/paint", _paint, "paint", "Paint", "Test", query=PaintQuery),
        Route("GET", "/paint/{shade}", _paint, "paintShade", "Paint", "Test",
              path_params=PaintPath, query=PaintQuery, response=Paint),
    ]  # fmt: skip
    doc = build_openapi(routes, version="1")
    refs = references(doc)
    schemas = doc["components"]["schemas"]
    params = {p["name"]: p for p in doc["paths"]["/paint"]["get"]["parameters"]}
    assert params["colour"]["schema"]["$ref"] == "#/components/schemas/Colour"
    assert params["colour"]["required"] is True
    assert params["colour"]["description"] == "Which colour."
    assert schemas["Colour"]["enum"] == ["red", "green"]
    assert schemas["Window"]["properties"]["days"]["minimum"] == 1
    assert {"#/components/schemas/Shade", "#/components/schemas/Window"} <= set(refs)
    path_params = doc["paths"]["/paint/{shade}"]["get"]["parameters"]
    assert path_params[0] == {
        "name": "shade",
        "in": "path",
        "required": True,
        "schema": {"$ref": "#/components/schemas/Shade"},
    }
    # The parameter models themselves are spread into parameters, not published.
    assert not {"PaintQuery", "PaintPath"} & set(schemas)


def test_the_documented_body_limit_is_the_setting(monkeypatch):
    monkeypatch.setenv("MAX_BODY_BYTES", str(64 * 1024))
    refresh_settings()
    try:
        doc = build_openapi(all_routes(), version="1")
    finally:
        monkeypatch.delenv("MAX_BODY_BYTES")
        refresh_settings()
    create = doc["paths"]["/v1/tracking/subscriptions"]["post"]
    assert create["responses"]["413"]["description"] == "The request body is larger than 64 KiB."
    default = build_openapi(all_routes(), version="1")["paths"]["/v1/tracking/subscriptions"]
    assert "larger than 1 MiB." in default["post"]["responses"]["413"]["description"]


# A POST with an API key and a JSON body, which honours Idempotency-Key.
KEYED_POST = {"200", "400", "401", "408", "409", "413", "415", "422", "429", "502"}

EXPECTED = {
    ("get", "/health"): {"200", "502"},
    ("get", "/openapi.json"): {"200", "502"},
    # RFC 9728 metadata, where a 401 of POST /mcp points (decision 0052); /mcp itself speaks
    # JSON-RPC and is described in the README, not here
    ("get", "/.well-known/oauth-protected-resource"): {"200", "502"},
    ("get", "/.well-known/oauth-protected-resource/mcp"): {"200", "502"},
    ("get", "/v1/tracking/topics"): {"200", "401", "429", "502"},
    ("get", "/v1/tracking/subscriptions"): {"200", "400", "401", "429", "502"},
    ("post", "/v1/tracking/subscriptions"): {
        "201",
        "400",
        "401",
        "403",  # a keyword naming an opted-out person (decision 0058)
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
        "503",  # its turn in line did not come before its deadline (decision 0064)
    },
    ("patch", "/v1/tracking/subscriptions/{id}"): {
        "200",
        "400",
        "401",
        "403",  # a keyword naming an opted-out person (decision 0058)
        "404",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
    },
    ("delete", "/v1/tracking/subscriptions/{id}"): {
        "200",
        "400",
        "401",
        "404",
        "429",
        "502",
        "503",  # its turn in line did not come before its deadline (decision 0064)
    },
    ("get", "/v1/portal/keys"): {"200", "401", "403", "429", "502"},
    ("post", "/v1/portal/keys"): {
        "201",
        "400",
        "401",
        "403",
        "408",
        "409",
        "413",
        "415",
        "422",  # an Idempotency-Key reused for another request
        "429",
        "502",
        "503",  # its turn in line did not come before its deadline (decision 0064)
    },
    ("delete", "/v1/portal/keys/{id}"): {"200", "400", "401", "403", "404", "429", "502"},
    ("post", "/v1/portal/keys/{id}/rotate"): {
        *("200", "400", "401", "403", "404", "408", "409", "413", "415", "422", "429", "502"),
        "503",
    },
    ("get", "/v1/portal/usage"): {"200", "400", "401", "403", "429", "502"},
    ("post", "/webhooks/idp"): {"204", "400", "401", "408", "413", "415", "502"},
    ("get", "/v1/usage"): {"200", "400", "401", "429", "502"},
    ("post", "/v1/chat/message"): {
        "200",
        "400",
        "401",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
        "503",  # a stream's slot (decision 0065)
    },
    ("post", "/v1/chat/intent"): {
        "200",
        "400",
        "401",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
    },
    ("post", "/v1/chat/summarize"): {
        "200",
        "400",
        "401",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
    },
    ("post", "/v1/chat/extract-memory"): {
        "200",
        "400",
        "401",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
    },
    ("get", "/v1/chat/memory"): {"200", "401", "429", "502"},
    ("delete", "/v1/chat/memory"): {"200", "401", "429", "502"},
    ("get", "/v1/tasks/{taskId}"): {"200", "400", "401", "404", "429", "502"},
    ("get", "/v1/tracking/pause"): {"200", "400", "410", "502"},
    ("post", "/v1/tracking/pause"): {"200", "400", "404", "410", "502", "503"},  # 0064
    ("get", "/v1/tracking/confirm"): {"200", "400", "404", "502"},
    ("post", "/v1/tracking/confirm"): {"200", "400", "404", "410", "502", "503"},  # 0064
    ("get", "/v1/tracking/unsubscribe"): {"200", "400", "404", "502"},
    ("post", "/v1/tracking/unsubscribe"): {"200", "400", "404", "502"},
    ("post", "/webhooks/sendgrid"): {"204", "400", "401", "408", "413", "415", "502"},
    ("post", "/v1/legal/guidance"): {
        "202",
        "400",
        "401",
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
    },
    ("post", "/v1/research/topics"): {
        "200",
        "400",
        "401",
        "403",  # a keyword naming an opted-out person (decision 0058)
        "408",
        "409",
        "413",
        "415",
        "422",
        "429",
        "502",
        "503",  # a stream's slot (decision 0065)
    },
    ("post", "/v1/search"): KEYED_POST | {"503"},  # overloaded (decision 0048)
    ("post", "/v1/search/{table}"): KEYED_POST | {"404", "503"},
    ("post", "/v1/knowledge/search"): KEYED_POST | {"503"},
    ("post", "/v1/content/generate"): KEYED_POST | {"503"},  # a stream's slot (decision 0065)
    ("post", "/v1/osint/personal-profile"): KEYED_POST | {"403", "503"},
    ("post", "/v1/osint/company-profile"): KEYED_POST | {"403", "503"},
    ("get", "/v1/osint/audit"): {"200", "400", "401", "429", "502"},
}


def test_internal_operations_are_not_in_the_public_document():
    doc = build_openapi(all_routes(), version="1")
    internal = [r for r in all_routes() if r.path.startswith("/internal/")]
    assert {r.path for r in internal} == {"/internal/dispatch", "/internal/tasks/run"}
    assert not any(path.startswith("/internal/") for path in doc["paths"])


def test_each_operation_documents_exactly_the_statuses_it_can_answer():
    doc = build_openapi(all_routes(), version="1")
    documented = {
        (method, path): set(operation["responses"])
        for path, item in doc["paths"].items()
        for method, operation in item.items()
    }
    assert documented == EXPECTED


def test_every_post_and_patch_of_a_consumer_takes_an_idempotency_key():
    doc = build_openapi(all_routes(), version="1")
    keyed = []
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            names = [p["name"] for p in operation.get("parameters", [])]
            secured = operation["security"] in ([{"bearerAuth": []}], [{"idToken": []}])
            if secured and method in {"post", "patch"}:
                (parameter,) = [p for p in operation["parameters"] if p["name"] == HEADER]
                assert parameter["in"] == "header"
                assert parameter["required"] is False
                assert parameter["schema"]["maxLength"] == 255
                success = operation["responses"][next(iter(operation["responses"]))]
                assert "Idempotent-Replayed" in success["headers"]
                keyed.append((method, path))
            else:
                assert HEADER not in names, (method, path)
    assert ("post", "/v1/tracking/subscriptions") in keyed
    assert ("patch", "/v1/tracking/subscriptions/{id}") in keyed
    assert ("post", "/v1/chat/message") in keyed
    assert ("post", "/v1/portal/keys") in keyed  # a create like any other (decision 0039)


def test_the_documented_key_pattern_is_the_one_enforced():
    import re

    from common.http.idempotency import PATTERN, key_from

    pattern = re.compile(PATTERN)
    for value in ["a", "k" * 255, "order 17", "~!@#"]:
        assert pattern.match(value)
        assert key_from({HEADER: value}) == value
    for value in ["", " a", "a ", "k" * 256, "caf\u00e9", "a\tb", "a\x00"]:
        assert not pattern.match(value)
        with pytest.raises(InvalidRequest) as raised:
            key_from({HEADER: value})
        assert raised.value.errors[0].field == HEADER
    assert key_from({}) is None


def test_the_request_fingerprint_covers_method_path_query_and_body():
    from common.http.idempotency import document_id, fingerprint

    base = fingerprint("POST", "/v1/x", b"", b"{}")
    assert base == fingerprint("POST", "/v1/x", b"", b"{}")
    others = [
        fingerprint("PATCH", "/v1/x", b"", b"{}"),
        fingerprint("POST", "/v1/y", b"", b"{}"),
        fingerprint("POST", "/v1/x", b"a=1", b"{}"),
        fingerprint("POST", "/v1/x", b"", b"{ }"),
        fingerprint("POST", "/v1/x{}", b"", b""),  # no ambiguity between the parts
    ]
    assert len({base, *others}) == 6
    assert document_id("alice", "k") != document_id("bob", "k")


def test_every_text_field_of_a_callers_body_documents_the_refused_characters():
    """The pipeline refuses control and bidi characters in callers' bodies; the published
    schema must say so, or a client (and the fuzzer) would send what the schema allows."""
    import re

    doc = build_openapi(all_routes(), version="1")
    defs = doc["components"]["schemas"]
    checked: list[str] = []

    def strings(schema, where):
        if isinstance(schema, dict):
            if "$ref" in schema and schema["$ref"].startswith("#/components/schemas/"):
                name = schema["$ref"].rsplit("/", 1)[-1]
                if name not in seen:
                    seen.add(name)
                    yield from strings(defs[name], name)
            if schema.get("type") == "string" and not {"format", "enum", "const"} & set(schema):
                yield where, schema
            for key, value in schema.items():
                yield from strings(value, f"{where}.{key}")
        elif isinstance(schema, list):
            for value in schema:
                yield from strings(value, where)

    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if "requestBody" not in operation or not operation["security"]:
                continue  # webhooks: providers' JSON, not callers' text
            seen: set[str] = set()
            for where, schema in strings(operation["requestBody"], f"{method} {path}"):
                pattern = schema.get("pattern")
                assert pattern, f"{where}: a text field without the documented rule"
                for bad in ("a\x00b", "a\u202eb", "a\x1bb"):
                    assert not re.search(pattern, bad), f"{where} allows {bad!r}"
                checked.append(where)
    assert len(checked) > 10


def test_every_stream_publishes_its_events_by_type():
    """Streamed answers are typed (issue 23): each event a model with its own `type`, listed in
    the route's x-itemSchema and published in the components."""
    from common.http.streams import NDJSON, SSE

    document = build_openapi(all_routes(), version="test")
    streamed = [r for r in all_routes() if r.stream]
    assert {r.operation_id for r in streamed} >= {
        "researchTopics",
        "osintPersonalProfile",
        "osintCompanyProfile",
        "chatMessage",
        "generateContent",
    }
    for route in streamed:
        assert route.stream in (NDJSON, SSE)
        types = [model.model_fields["type"].default for model in route.events]
        assert len(types) == len(set(types)) > 0, route.operation_id
        content = document["paths"][route.path][route.method.lower()]["responses"]["200"]
        items = content["content"][route.stream]["x-itemSchema"]
        names = [ref["$ref"].rsplit("/", 1)[1] for ref in items["oneOf"]]
        assert len(names) == len(route.events)
        for name, kind in zip(names, types, strict=True):
            schema = document["components"]["schemas"][name]
            assert schema["properties"]["type"]["const"] == kind
