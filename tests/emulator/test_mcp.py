"""The MCP server in process (issue 28, decision 0052): JSON-RPC and both protocol eras at the
message level, a tool call run as its route (validation, billing once, Idempotency-Key,
guardrails), and what is refused how. The official client drives it over HTTP in
tests/e2e/test_mcp_client.py."""

from __future__ import annotations

import base64
import json

import pytest

from common.adapters.firestore import USAGE, USAGE_UNBILLED, get_db, where_eq
from common.config import get_settings
from tests.emulator.test_search import campaigns, offline  # noqa: F401 - fixtures
from tests.helpers import Connection, client, read_until

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
ACCEPT = "application/json, text/event-stream"
MAX_ID_CHARS = 200  # functions.mcp.protocol.MAX_ID_CHARS


def rpc(auth, method, params=None, *, ident=1, headers=None, raw=None, **options):
    """One JSON-RPC message to /mcp; ``options`` go to the test client (``buffered``,
    ``environ_overrides``)."""
    body = {"jsonrpc": "2.0", "method": method, **({"id": ident} if ident is not None else {})}
    if params is not None:
        body["params"] = params
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", **auth, **(headers or {})}
    data = raw if raw is not None else json.dumps(body)
    return client().post("/mcp", data=data, headers=sent, **options)


def modern(auth, method, params=None, *, name=None, headers=None, ident=1):
    sent = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method, **(headers or {})}
    if name is not None:
        sent["Mcp-Name"] = name
    return rpc(auth, method, {**(params or {}), "_meta": META}, headers=sent, ident=ident)


def usage_of(consumer, collection: str = USAGE) -> list[str]:
    query = get_db().collection(collection).where(filter=where_eq("consumer_id", consumer["id"]))
    return [u.get("operation") for u in query.stream()]


def test_the_2025_handshake_is_answered_without_a_session(alice):
    _, auth = alice
    started = rpc(auth, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
    assert started.status_code == 200
    assert "Mcp-Session-Id" not in started.headers
    result = started.get_json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "advocacy-research"
    assert "animal-advocacy" in result["instructions"]
    # a version it does not know gets the newest it speaks
    newer = rpc(auth, "initialize", {"protocolVersion": "2099-01-01", "capabilities": {}})
    assert newer.get_json()["result"]["protocolVersion"] == "2025-11-25"
    notified = rpc(auth, "notifications/initialized", ident=None)
    assert (notified.status_code, notified.data) == (202, b"")
    ping = rpc(auth, "ping", headers={"MCP-Protocol-Version": "2025-06-18"})
    assert ping.get_json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    # GET (a server-to-client stream) and DELETE (end of a session): there are none
    for method in ("GET", "DELETE"):
        answered = client().open("/mcp", method=method, headers=auth)
        assert answered.status_code == 405
        assert answered.headers["Allow"] == "POST"


def test_the_2026_revision_discovers_and_lists_with_cache_hints(alice):
    _, auth = alice
    found = modern(auth, "server/discover").get_json()["result"]
    assert found["supportedVersions"] == [MODERN]
    assert found["resultType"] == "complete"
    assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "advocacy-research"
    listed = modern(auth, "tools/list").get_json()["result"]
    assert listed["ttlMs"] > 0
    assert listed["cacheScope"] == "public"
    assert listed["resultType"] == "complete"
    names = {tool["name"] for tool in listed["tools"]}
    assert {
        "search_records",
        "search_table",
        "search_knowledge",
        "generate_content",
        "investigate_company",
        "profile_person",
        "research_news",
        "request_legal_guidance",
        "classify_intent",
        "summarize_text",
        "list_tracking_subscriptions",
        "create_tracking_subscription",
        "pause_tracking_subscription",
    } <= names
    # the 2025 era lists the same tools, without the 2026 fields
    legacy = rpc(auth, "tools/list").get_json()["result"]
    assert [t["name"] for t in legacy["tools"]] == [t["name"] for t in listed["tools"]]
    assert "ttlMs" not in legacy
    assert "resultType" not in legacy


def test_each_tool_is_described_for_a_model_with_its_schemas_and_price(alice):
    _, auth = alice
    tools = {t["name"]: t for t in rpc(auth, "tools/list").get_json()["result"]["tools"]}
    for tool in tools.values():
        assert len(tool["description"]) > 100, tool["name"]
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert set(tool["annotations"]) >= {"readOnlyHint", "destructiveHint", "openWorldHint"}
        assert tool["outputSchema"]["type"] == "object", tool["name"]
    table = tools["search_table"]["inputSchema"]
    assert set(table["required"]) == {"table", "query"}  # the path parameter and the body's
    assert "$0.05 per call (search.query)" in tools["search_records"]["description"]
    assert tools["list_tracking_subscriptions"]["description"].endswith("Free: not metered.")
    pause = tools["pause_tracking_subscription"]["inputSchema"]
    assert set(pause["properties"]) == {"id"}  # active: false is the tool's, not an argument
    assert tools["investigate_company"]["annotations"]["openWorldHint"] is True
    assert tools["search_records"]["annotations"]["readOnlyHint"] is True
    report = tools["investigate_company"]["outputSchema"]["properties"]
    assert {"findings", "sources", "report", "end"} <= set(report)
    legal = tools["request_legal_guidance"]["inputSchema"]
    assert legal["anyOf"]  # prompt or situation: the body's own rule is kept


def test_a_tool_call_is_its_route_billed_once_and_bad_arguments_are_a_free_tool_error(
    campaigns,  # noqa: F811
    alice,
):
    consumer, auth = alice
    called = rpc(
        auth,
        "tools/call",
        {
            "name": "search_table",
            "arguments": {"table": "campaigns", "query": "mink fur farms", "search_type": "text"},
        },
    )
    result = called.get_json()["result"]
    assert "isError" not in result
    assert result["structuredContent"]["data"][0]["id"] == "camp-2"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert usage_of(consumer) == ["search.query"]
    # the route's own validation, as a tool error the model can read; not billed
    bad = rpc(
        auth,
        "tools/call",
        {"name": "search_table", "arguments": {"table": "campaigns", "query": "", "limit": 500}},
    ).get_json()["result"]
    assert bad["isError"] is True
    text = bad["content"][0]["text"]
    assert "query" in text
    assert "limit" in text
    assert "400" in text
    unknown = rpc(
        auth,
        "tools/call",
        {"name": "search_records", "arguments": {"query": "mink", "colour": "red"}},
    ).get_json()["result"]
    assert unknown["isError"] is True
    assert "colour" in unknown["content"][0]["text"]
    missing = rpc(
        auth, "tools/call", {"name": "list_tracking_subscriptions", "arguments": {"extra": 1}}
    ).get_json()["result"]
    assert missing["isError"] is True
    assert "extra" in missing["content"][0]["text"]
    no_such = rpc(auth, "tools/call", {"name": "launch_rocket", "arguments": {}})
    assert no_such.status_code == 400
    assert no_such.get_json()["error"]["code"] == -32602
    assert usage_of(consumer) == ["search.query"]


def test_an_idempotency_key_makes_a_retried_tool_call_run_and_bill_once(
    campaigns,  # noqa: F811
    alice,
):
    consumer, auth = alice
    params = {"name": "search_records", "arguments": {"query": "mink fur", "search_type": "text"}}
    key = {"Idempotency-Key": "retry-1"}
    first = rpc(auth, "tools/call", params, headers=key).get_json()
    again = rpc(auth, "tools/call", params, headers=key, ident=2).get_json()
    assert again["result"] == first["result"]
    assert again["id"] == 2
    assert usage_of(consumer) == ["search.query"]
    other = {"name": "search_records", "arguments": {"query": "cages", "search_type": "text"}}
    reused = rpc(auth, "tools/call", other, headers=key).get_json()["result"]
    assert reused["isError"] is True
    assert "idempotency_key_reused" in reused["content"][0]["text"]


def test_the_2026_headers_must_agree_with_the_body(alice):
    _, auth = alice
    params = {"name": "list_tracking_subscriptions", "arguments": {}}
    wrong_name = modern(auth, "tools/call", params, name="search_records")
    assert wrong_name.status_code == 400
    assert wrong_name.get_json()["error"]["code"] == -32020
    encoded = "=?base64?" + base64.b64encode(b"list_tracking_subscriptions").decode() + "?="
    right = modern(auth, "tools/call", params, name=encoded)
    assert right.get_json()["result"]["structuredContent"]["data"] == []
    wrong_method = modern(auth, "tools/list", headers={"Mcp-Method": "tools/call"})
    assert wrong_method.get_json()["error"]["code"] == -32020
    no_meta = rpc(
        auth, "tools/list", {}, headers={"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
    )
    assert no_meta.get_json()["error"]["code"] == -32602
    future = rpc(auth, "tools/list", headers={"MCP-Protocol-Version": "2099-01-01"})
    error = future.get_json()["error"]
    assert (future.status_code, error["code"]) == (400, -32022)
    assert MODERN in error["data"]["supported"]
    assert "2025-11-25" in error["data"]["supported"]
    # methods of the other era
    assert modern(auth, "initialize").status_code == 404
    assert modern(auth, "ping").get_json()["error"]["code"] == -32601
    assert rpc(auth, "server/discover").status_code == 404


def test_what_is_not_one_json_rpc_message_is_answered_in_json_rpc(alice):
    _, auth = alice
    for raw, code in [
        (b"{not json", -32700),
        (b"[]", -32600),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', -32602),
    ]:
        answered = rpc(auth, "ping", raw=raw)
        assert answered.status_code == 400, raw
        assert answered.mimetype == "application/json"
        assert answered.get_json()["error"]["code"] == code, raw
    # a response the client sends back is taken and ignored
    assert rpc(auth, "x", raw=b'{"jsonrpc": "2.0", "id": 5, "result": {}}').status_code == 202


def test_routing_headers_must_agree_with_the_body_in_every_era(campaigns, alice):  # noqa: F811
    """Mcp-Method and Mcp-Name are compared with the body whenever they are sent, not only with
    an MCP-Protocol-Version of 2026: a call whose headers name another one is refused and not
    billed (it was run and billed)."""
    consumer, auth = alice
    params = {"name": "search_records", "arguments": {"query": "mink fur", "search_type": "text"}}
    for headers in (
        {"Mcp-Method": "tools/list"},  # no version header: the 2025 era
        {"Mcp-Name": "list_tracking_subscriptions"},
        {"MCP-Protocol-Version": "2025-06-18", "Mcp-Method": "ping"},
        {"MCP-Protocol-Version": "2025-06-18", "Mcp-Name": "search_table"},
        {
            "Mcp-Method": "tools/call",
            "Mcp-Name": "=?base64?" + base64.b64encode(b"x").decode() + "?=",
        },
    ):
        refused = rpc(auth, "tools/call", params, headers=headers)
        assert refused.status_code == 400, headers
        assert refused.get_json()["error"]["code"] == -32020, headers
    # a 2025 request whose _meta names another version than its header
    other = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}
    mixed = rpc(auth, "tools/call", other, headers={"MCP-Protocol-Version": "2025-06-18"})
    assert mixed.get_json()["error"]["code"] == -32020
    assert usage_of(consumer) == []
    agreeing = {"Mcp-Method": "tools/call", "Mcp-Name": "search_records"}
    answered = rpc(auth, "tools/call", params, headers=agreeing).get_json()["result"]
    assert "isError" not in answered
    assert usage_of(consumer) == ["search.query"]
    # the 2026 era still requires them
    bare = {"MCP-Protocol-Version": MODERN}
    no_method = rpc(auth, "tools/list", {"_meta": META}, headers=bare)
    assert no_method.get_json()["error"]["code"] == -32020
    no_name = rpc(
        auth, "tools/call", {**params, "_meta": META}, headers={**bare, "Mcp-Method": "tools/call"}
    )
    assert no_name.get_json()["error"]["code"] == -32020
    assert usage_of(consumer) == ["search.query"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "tools/list"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "method": "tools/list"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_records",'
        b' "arguments": {"query": "mink", "query": "fur"}}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}",
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": '
        + b"[" * 300
        + b"]" * 300
        + b"}}",
    ],
    ids=["id twice", "method twice", "argument twice", "nested 100000", "nested 300"],
)
def test_duplicate_names_and_deep_nesting_are_refused_as_rest_refuses_them(alice, raw):
    """As a REST body: a name sent twice in one object (a reader of the first value would see
    another call than the one run), or JSON nested deeper than REST takes, is an invalid
    request (400, -32600), never a 500, and nothing is run or billed."""
    consumer, auth = alice
    answered = rpc(auth, "ping", raw=raw)
    assert answered.status_code == 400
    error = answered.get_json()["error"]
    assert error["code"] == -32600
    assert ("more than once" in error["message"]) or ("nested too deeply" in error["message"])
    assert answered.get_json()["id"] is None
    assert usage_of(consumer) == []
    # as deep as REST takes is still a message
    deep = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": %s}}' % (
        b"[" * 150 + b"]" * 150
    )
    assert rpc(auth, "ping", raw=deep).get_json()["result"] == {}


def test_ids_and_method_names_are_echoed_only_up_to_a_bound(alice):
    """A 100 KB id was echoed in a 152 KB answer: an id longer than the bound is an invalid
    request, answered without it; an unknown method's name is quoted only up to the bound."""
    _, auth = alice
    for ident in ("i" * 100_000, "i" * (MAX_ID_CHARS + 1), 2**63, -(2**63) - 1):
        answered = rpc(auth, "ping", ident=ident)
        assert answered.status_code == 400, ident
        body = answered.get_json()
        assert (body["id"], body["error"]["code"]) == (None, -32600)
        assert len(answered.data) < 500
    longest = "i" * MAX_ID_CHARS
    assert rpc(auth, "ping", ident=longest).get_json() == {
        "jsonrpc": "2.0",
        "id": longest,
        "result": {},
    }
    assert rpc(auth, "ping", ident=2**63 - 1).get_json()["id"] == 2**63 - 1
    unknown = rpc(auth, "m" * 100_000)
    assert unknown.status_code == 404
    assert len(unknown.data) < 2 * MAX_ID_CHARS + 200
    assert unknown.get_json()["error"]["data"].startswith("mmm")


def test_keys_origins_and_media_types_are_checked_before_any_work(alice, settings_env):
    _, auth = alice
    for header in ({}, {"Authorization": "Bearer ars_live_" + "x" * 38}):
        refused = rpc(header, "tools/list")
        assert refused.status_code == 401
        challenge = refused.headers["WWW-Authenticate"]
        assert challenge.startswith("Bearer ")
        base = get_settings().public_base_url  # local runs: http://127.0.0.1:$PORT
        assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
    document = client().get("/.well-known/oauth-protected-resource/mcp").get_json()
    assert document["resource"] == f"{base}/mcp"
    assert document["bearer_methods_supported"] == ["header"]
    assert document["authorization_servers"]  # the identity provider of the portal
    hostile = rpc(auth, "tools/list", headers={"Origin": "https://evil.example"})
    assert hostile.status_code == 403
    local = rpc(auth, "tools/list", headers={"Origin": "http://localhost:6274"})
    assert local.status_code == 200  # a local inspector beside a local server
    settings_env(PUBLIC_BASE_URL="https://api.example.org", MCP_ALLOWED_ORIGINS="https://app.x.org")
    assert rpc(auth, "tools/list", headers={"Origin": "http://localhost:6274"}).status_code == 403
    assert rpc(auth, "tools/list", headers={"Origin": "https://app.x.org"}).status_code == 200
    own = rpc(auth, "tools/list", headers={"Origin": "https://api.example.org"})
    assert own.status_code == 200
    assert rpc(auth, "tools/list", headers={"Accept": "text/html"}).status_code == 406
    text = client().post("/mcp", data="{}", headers={**auth, "Content-Type": "text/plain"})
    assert text.status_code == 415


def test_company_investigation_through_mcp_obeys_the_osint_rules(alice, feeds):
    """The tool runs the route's own screen: a person's name is no company (422, not billed),
    and a company's report comes back whole, each claim with its source."""
    consumer, auth = alice
    person = rpc(
        auth,
        "tools/call",
        {"name": "investigate_company", "arguments": {"companyName": "Jane Smith"}},
    ).get_json()["result"]
    assert person["isError"] is True
    assert "not_an_organization" in person["content"][0]["text"]
    assert usage_of(consumer) == []


@pytest.mark.parametrize("progress", [False, True])
def test_a_streamed_tool_returns_its_report_and_progress_when_asked(alice, feeds, progress):
    consumer, auth = alice
    params: dict = {"name": "research_news", "arguments": {"topics": ["cage-free"], "limit": 3}}
    if progress:
        params["_meta"] = {"progressToken": "p1"}
    answered = rpc(auth, "tools/call", params)
    if progress:
        assert answered.mimetype == "text/event-stream"
        events = [
            json.loads(line.removeprefix("data: "))
            for line in answered.get_data(as_text=True).splitlines()
            if line.startswith("data: ")
        ]
        notes, last = events[:-1], events[-1]
        assert notes
        assert all(n["method"] == "notifications/progress" for n in notes)
        assert [n["params"]["progress"] for n in notes] == list(range(1, len(notes) + 1))
        assert {n["params"]["progressToken"] for n in notes} == {"p1"}
        result = last["result"]
    else:
        result = answered.get_json()["result"]
    report = result["structuredContent"]
    assert 1 <= len(report["items"]) <= 3
    assert report["summary"]["text"]
    assert report["end"]
    assert usage_of(consumer) == ["research.topics"]


RESEARCH = {"name": "research_news", "arguments": {"topics": ["cage-free"], "limit": 3}}


def test_a_tool_call_whose_client_left_at_once_is_not_billed(alice, feeds):
    """Issue 43: a research_news call whose client closed at once was billed (the server read
    the route's first item); the same REST call was not. The result is written into a closed
    connection (TCP takes it): not delivered, not billed (decision 0066)."""
    consumer, auth = alice
    with Connection() as connection:
        connection.hang_up()  # before the tool has run
        answered = rpc(auth, "tools/call", RESEARCH, environ_overrides=connection.environ)
        assert answered.status_code == 200  # the server writes it, to no one
    assert usage_of(consumer) == []
    assert usage_of(consumer, USAGE_UNBILLED) == ["research.topics"]


def test_a_tool_call_left_during_its_progress_is_not_billed_and_one_read_whole_is(alice, feeds):
    consumer, auth = alice
    params = {**RESEARCH, "_meta": {"progressToken": "p1"}}
    with Connection() as connection:
        answered = rpc(
            auth, "tools/call", params, buffered=False, environ_overrides=connection.environ
        )
        chunks = read_until(answered, lambda chunk: "notifications/progress" in chunk)
        connection.hang_up()
        assert b'"result"' in b"".join(chunks)  # every write accepted, to the result
        answered.close()
    assert usage_of(consumer) == []
    with Connection() as connection:
        whole = rpc(auth, "tools/call", params, environ_overrides=connection.environ)
        assert '"result"' in whole.get_data(as_text=True)
    assert usage_of(consumer) == ["research.topics"]
    assert usage_of(consumer, USAGE_UNBILLED) == ["research.topics"]  # the first one


# Tools cheap enough to fuzz: generated arguments from each one's inputSchema (schemathesis's
# generator, through an OpenAPI document of the tools), valid and invalid.
FUZZED = (
    "search_records",
    "search_table",
    "search_knowledge",
    "classify_intent",
    "summarize_text",
    "list_tracking_subscriptions",
    "get_task",
)


def tools_as_openapi(listed: list[dict]) -> dict:
    """Each tool as ``POST /tools/{name}`` whose body is its arguments (``$defs`` moved to the
    components, where OpenAPI's references point)."""
    paths, components = {}, {}
    for tool in listed:
        schema = json.loads(
            json.dumps(tool["inputSchema"]).replace("#/$defs/", "#/components/schemas/")
        )
        components.update(schema.pop("$defs", {}))
        body = {"required": True, "content": {"application/json": {"schema": schema}}}
        paths[f"/tools/{tool['name']}"] = {
            "post": {"requestBody": body, "responses": {"200": {"description": "result"}}}
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "tools", "version": "1"},
        "paths": paths,
        "components": {"schemas": components},
    }


@pytest.mark.parametrize("name", FUZZED)
def test_generated_arguments_get_a_result_matching_the_output_schema_or_a_tool_error(
    campaigns,  # noqa: F811
    alice,
    name,
):
    """Whatever the arguments, a tool answers a result that validates against its
    outputSchema, or a tool error (never a protocol error or a 500); what the route refused
    is not billed."""
    import jsonschema
    import schemathesis
    from hypothesis import HealthCheck, assume, given, settings

    consumer, auth = alice
    listed = rpc(auth, "tools/list").get_json()["result"]["tools"]
    output = next(t["outputSchema"] for t in listed if t["name"] == name)
    operation = schemathesis.openapi.from_dict(tools_as_openapi(listed))[f"/tools/{name}"]["POST"]
    outcomes = {"result": 0, "error": 0}

    @settings(
        max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(
        operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE)
        | operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE)
    )
    def call(case):
        assume(not isinstance(case.body, bytes))  # a body that is not JSON: no arguments
        answered = rpc(auth, "tools/call", {"name": name, "arguments": case.body})
        if not isinstance(case.body, dict):  # arguments must be an object: the protocol's 400
            outcomes["error"] += 1
            assert answered.get_json()["error"]["code"] == -32602
            return
        assert answered.status_code == 200, answered.get_data(as_text=True)
        result = answered.get_json()["result"]
        if result.get("isError"):
            outcomes["error"] += 1
            assert result["content"][0]["text"]
        else:
            outcomes["result"] += 1
            jsonschema.validate(result["structuredContent"], output)

    billed_before = len(usage_of(consumer))
    call()
    assert outcomes["result"] + outcomes["error"] >= 10
    assert len(usage_of(consumer)) - billed_before <= outcomes["result"]  # errors are free


def test_tool_calls_count_against_the_consumers_rate_limit_and_refuse_control_characters(alice):
    """Each POST /mcp is one request of the consumer's rate limit, as a REST request is; an
    argument with a control or bidi character is refused as the REST body would be (free)."""
    from common.accounts import keys
    from common.adapters.firestore import CONSUMERS

    consumer, auth = alice
    hidden = rpc(
        auth, "tools/call", {"name": "search_records", "arguments": {"query": "mink\u202efur"}}
    ).get_json()["result"]
    assert hidden["isError"] is True
    assert "query" in hidden["content"][0]["text"]
    assert usage_of(consumer) == []
    get_db().collection(CONSUMERS).document(consumer["id"]).update({"rate_limit": [2, 60]})
    keys.clear_cache()
    statuses = [rpc(auth, "tools/list").status_code for _ in range(3)]
    assert statuses == [200, 429, 429]  # the refused call above was the window's first


def test_a_tool_cannot_reach_another_consumers_subscription(alice, bob):
    """Bob's pause tool call with Alice's subscription id is the route's 404, a free tool
    error; Alice's subscription is untouched."""
    _, auth = alice
    created = rpc(
        auth,
        "tools/call",
        {"name": "create_tracking_subscription", "arguments": {"topics": ["fur"]}},
    ).get_json()["result"]["structuredContent"]["data"]
    _, bob_auth = bob
    paused = rpc(
        bob_auth,
        "tools/call",
        {"name": "pause_tracking_subscription", "arguments": {"id": created["id"]}},
    ).get_json()["result"]
    assert paused["isError"] is True
    assert "404" in paused["content"][0]["text"]
    listed = rpc(auth, "tools/call", {"name": "list_tracking_subscriptions", "arguments": {}})
    [mine] = listed.get_json()["result"]["structuredContent"]["data"]
    assert (mine["id"], mine["active"]) == (created["id"], True)
