from common.http import Auth
from common.openapi import build_openapi, error_statuses
from functions.registry import all_routes


def test_every_route_is_documented_with_its_errors():
    routes = [route for route in all_routes() if not route.auth.internal]
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


def test_schema_references_resolve():
    doc = build_openapi(all_routes(), version="1")
    schemas = doc["components"]["schemas"]
    refs = []

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node and node["$ref"].startswith("#/components/schemas/"):
                refs.append(node["$ref"].rsplit("/", 1)[1])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    assert refs
    assert all(ref in schemas for ref in refs)


EXPECTED = {
    ("get", "/health"): {"200", "502"},
    ("get", "/openapi.json"): {"200", "502"},
    ("get", "/v1/tracking/topics"): {"200", "401", "429", "502"},
    ("get", "/v1/tracking/subscriptions"): {"200", "400", "401", "429", "502"},
    ("post", "/v1/tracking/subscriptions"): {"201", "400", "401", "409", "413", "429", "502"},
    ("patch", "/v1/tracking/subscriptions/{id}"): {
        "200",
        "400",
        "401",
        "404",
        "409",
        "413",
        "429",
        "502",
    },
    ("delete", "/v1/tracking/subscriptions/{id}"): {
        "200",
        "400",
        "401",
        "404",
        "409",
        "429",
        "502",
    },
    ("get", "/v1/portal/keys"): {"200", "401", "403", "429", "502"},
    ("post", "/v1/portal/keys"): {"201", "400", "401", "403", "409", "413", "429", "502"},
    ("delete", "/v1/portal/keys/{id}"): {"200", "400", "401", "403", "404", "429", "502"},
    ("post", "/webhooks/idp"): {"204", "400", "401", "413", "502"},
    ("get", "/v1/usage"): {"200", "400", "401", "429", "502"},
    ("post", "/v1/chat/message"): {"200", "400", "401", "413", "429", "502"},
    ("post", "/v1/chat/intent"): {"200", "400", "401", "413", "429", "502"},
    ("post", "/v1/chat/summarize"): {"200", "400", "401", "413", "429", "502"},
    ("post", "/v1/chat/extract-memory"): {"200", "400", "401", "413", "429", "502"},
    ("get", "/v1/chat/memory"): {"200", "401", "429", "502"},
    ("delete", "/v1/chat/memory"): {"200", "401", "429", "502"},
    ("get", "/v1/tasks/{taskId}"): {"200", "400", "401", "404", "429", "502"},
    ("get", "/v1/tracking/pause"): {"200", "400", "410", "502"},
    ("post", "/v1/tracking/pause"): {"200", "400", "404", "409", "410", "502"},
    ("post", "/v1/legal/guidance"): {"202", "400", "401", "413", "429", "502"},
    ("post", "/v1/research/topics"): {"200", "400", "401", "413", "429", "502"},
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
