"""The MCP server's tools as generated from the route table (decision 0052): every declared
tool has its text and every text its tool, names are what the protocol allows, schemas are
objects an assistant can fill, and a tool's arguments become exactly its route's inputs."""

from __future__ import annotations

import json
import re

import pytest

from functions.mcp import tools
from registry import all_routes

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")  # MCP's rule for a tool name


def catalog() -> dict[str, tools.Offered]:
    return tools.catalog(all_routes())


def test_every_tool_has_its_text_and_every_text_a_tool():
    assert set(catalog()) == set(tools.texts())
    assert all(NAME.match(name) for name in catalog())
    assert tools.instructions()


def test_only_routes_of_callers_offer_tools():
    from common.http import Auth

    for offered in catalog().values():
        assert offered.route.auth is Auth.API_KEY, offered.tool.name


@pytest.mark.parametrize("name", sorted(tools.texts()))
def test_each_listing_is_complete_and_its_schemas_are_json(name):
    listed = catalog()[name].listing()
    assert listed["inputSchema"]["type"] == "object"
    assert listed["outputSchema"]["type"] == "object"
    json.dumps(listed)  # what tools/list sends
    for required in listed["inputSchema"].get("required", []):
        assert required in listed["inputSchema"]["properties"]


def test_arguments_split_into_path_query_and_body_with_fixed_fields_set():
    pause = catalog()["pause_tracking_subscription"]
    path, query, raw = pause.inputs({"id": "sub_1"})
    assert (path, query, json.loads(raw)) == ({"id": "sub_1"}, {}, {"active": False})
    with pytest.raises(ValueError, match="active"):
        pause.inputs({"id": "sub_1", "active": True})  # the tool's own field is not an argument
    table = catalog()["search_table"]
    path, query, raw = table.inputs({"table": "campaigns", "query": "fur"})
    assert (path, json.loads(raw)) == ({"table": "campaigns"}, {"query": "fur"})
    listing = catalog()["list_tracking_subscriptions"]
    path, query, raw = listing.inputs({"limit": 5})
    assert (path, query, raw) == ({}, {"limit": 5}, b"")


def test_a_streamed_route_reports_its_events_gathered():
    schema = catalog()["research_news"].listing()["outputSchema"]
    assert schema["properties"]["items"]["type"] == "array"
    assert "summary" in schema["properties"]
    assert "error" not in schema["properties"]  # an error event is a tool error instead


def test_prices_come_from_the_price_table(settings_env):
    settings_env(PRICE_OVERRIDES='{"search.query": 70000}')
    assert "$0.07 per call (search.query)" in catalog()["search_records"].listing()["description"]
