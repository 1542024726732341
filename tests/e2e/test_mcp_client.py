"""The official MCP client (the ``mcp`` package) against the real server over HTTP, in both
eras of the protocol (issue 28): it connects, lists the tools, calls every one, and the usage
API shows each billed call once at its route's price; every result validates against the
tool's output schema (the client checks it too); a bad key and bad arguments are refused."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from functions.knowledge.importer import import_knowledge
from functions.search.importer import import_records
from functions.search.tables import TABLES
from tests.e2e.conftest import issue_key
from tests.emulator.test_search import CAMPAIGNS, KNOWLEDGE_DOCS, write_jsonl

pytestmark = pytest.mark.e2e

# Every tool, called once with arguments a user's assistant would send, in an order where a
# later call can use an earlier one's result ({task}, {subscription}).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_records", {"query": "cage-free egg pledge"}),
    ("search_table", {"table": "campaigns", "query": "mink fur farms", "search_type": "text"}),
    ("search_knowledge", {"query": "Is undercover filming on farms legal?"}),
    ("generate_content", {"topic": "hens in battery cages", "platform": "x"}),
    ("investigate_company", {"companyName": "Harlow Foods", "reportGoal": "Campaign research"}),
    (
        "profile_person",
        {
            "firstName": "Dana",
            "lastName": "Whitfield",
            "companyName": "Harlow Foods",
            "reportGoal": "Who decides on the egg policy",
        },
    ),
    ("research_news", {"topics": ["cage-free"], "limit": 3}),
    (
        "request_legal_guidance",
        {"situation": "A peaceful protest outside a supermarket", "jurisdiction": "England"},
    ),
    ("get_task", {"taskId": "{task}"}),
    ("classify_intent", {"message": "Draft a tweet about cage-free eggs"}),
    (
        "summarize_text",
        {
            "messages": [
                {"role": "user", "content": "We plan a cage-free campaign against Harlow Foods."},
                {"role": "assistant", "content": "Their 2025 pledge is the lever; start with it."},
            ]
        },
    ),
    ("create_tracking_subscription", {"topics": ["cage-free"], "frequency": "weekly"}),
    ("list_tracking_subscriptions", {}),
    ("pause_tracking_subscription", {"id": "{subscription}"}),
    ("resume_tracking_subscription", {"id": "{subscription}"}),
]


@pytest.fixture(scope="module")
def records(emulator, tmp_path_factory) -> None:
    """The search tables and knowledge corpus the tools search (the server shares the
    emulator; the same offline embedder on both sides)."""
    folder = tmp_path_factory.mktemp("mcp-data")
    assert import_records(TABLES["campaigns"], write_jsonl(folder / "c.jsonl", CAMPAIGNS)).written
    for name, text in KNOWLEDGE_DOCS.items():
        (folder / name).write_text(text)
    assert import_knowledge([Path(folder)]).documents == len(KNOWLEDGE_DOCS)


def connect(server: str, key: str, mode: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``work(client)`` with the official client connected to /mcp in ``mode``."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> Any:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(60.0)
        )
        async with http:
            transport = streamable_http_client(f"{server}/mcp", http_client=http)
            async with Client(transport, mode=mode) as client:
                return await work(client)

    # on a thread of its own: the browser tests' Playwright leaves an event loop running on
    # this one, where asyncio.run() refuses to start another
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, run()).result()


def usage(server: str, key: str) -> dict[str, int]:
    answered = httpx.get(f"{server}/v1/usage", headers={"Authorization": f"Bearer {key}"})
    assert answered.status_code == 200, answered.text
    return {line["operation"]: line["requests"] for line in answered.json()["operations"]}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_official_client_lists_and_calls_every_tool_billed_once_each(
    server, emulator, records, mode
):
    key = issue_key(emulator, f"mcp-{mode}-{uuid.uuid4().hex[:6]}@example.org")

    async def work(client: Any) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        listed = await client.list_tools()
        schemas = {tool.name: tool.output_schema for tool in listed.tools}
        results: dict[str, Any] = {}
        found: dict[str, str] = {}
        progress: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(done)

        for name, arguments in CALLS:
            filled = {
                k: v.format(**found) if isinstance(v, str) else v for k, v in arguments.items()
            }
            watch = on_progress if name == "research_news" else None
            result = await client.call_tool(name, filled, progress_callback=watch)
            assert not result.is_error, (name, result.content)
            results[name] = result.structured_content
            if name == "request_legal_guidance":
                found["task"] = result.structured_content["taskId"]
            if name == "create_tracking_subscription":
                found["subscription"] = result.structured_content["data"]["id"]
        return (
            client.protocol_version,
            {"tools": listed.tools, "schemas": schemas, "progress": progress},
            results,
        )

    version, listing, results = connect(server, key, mode, work)
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    tools = listing["tools"]
    assert len(tools) == len(CALLS)
    for tool in tools:
        assert tool.description
        assert tool.input_schema["type"] == "object"
    for name, structured in results.items():
        jsonschema.validate(structured, listing["schemas"][name])  # and the client checked it
    assert listing["progress"], "research_news reported its progress"
    assert results["search_table"]["data"][0]["id"] == "camp-2"
    assert results["search_knowledge"]["data"]
    assert results["classify_intent"]["intent"] == "CREATE_CONTENT"
    assert results["get_task"]["taskId"] == results["request_legal_guidance"]["taskId"]
    assert results["pause_tracking_subscription"]["data"]["active"] is False
    assert results["resume_tracking_subscription"]["data"]["active"] is True
    report = results["investigate_company"]
    assert all(finding["sourceUrl"] for finding in report["findings"])
    billed = usage(server, key)
    # each priced tool once, at its route's operation; listing, discovery and free tools: none
    assert billed["search.query"] == 2
    for operation in (
        "knowledge.search",
        "content.generate",
        "research.topics",
        "chat.intent",
        "chat.summarize",
    ):
        assert billed[operation] == 1, operation
    assert billed.get("osint.company_profile", 0) == (1 if report["findings"] else 0)
    assert set(billed) <= {
        "search.query",
        "knowledge.search",
        "content.generate",
        "research.topics",
        "chat.intent",
        "chat.summarize",
        "osint.company_profile",
        "osint.personal_profile",
        "legal.guidance",
    }


def test_a_bad_key_is_401_with_where_to_sign_in_and_bad_arguments_a_free_tool_error(
    server, emulator, records
):
    refused = httpx.post(
        f"{server}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": "Bearer ars_live_" + "0" * 38},
    )
    assert refused.status_code == 401
    challenge = refused.headers["WWW-Authenticate"]
    assert "resource_metadata=" in challenge
    metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
    document = httpx.get(server + metadata_url[metadata_url.index("/.well-known") :]).json()
    assert document["resource"].endswith("/mcp")
    from mcp import MCPError

    with pytest.raises(BaseExceptionGroup) as raised:  # the client's task groups wrap it
        connect(server, "ars_live_" + "0" * 38, "legacy", lambda client: client.list_tools())
    assert raised.group_contains(MCPError, match="error response", depth=None)

    key = issue_key(emulator, f"mcp-bad-{uuid.uuid4().hex[:6]}@example.org")

    async def work(client: Any) -> Any:
        return await client.call_tool("search_records", {"query": "", "limit": 0})

    result = connect(server, key, "auto", work)
    assert result.is_error
    assert "limit" in result.content[0].text
    assert usage(server, key) == {}
