"""Billed when delivered, over real TCP against the functions-framework server (issue 43,
decision 0066): a client that hangs up after a research stream's opening line, or right after
sending an MCP tool call, is not billed, although the server's next write into the closed
connection succeeds; a client that reads the whole answer is billed once."""

from __future__ import annotations

import json
import socket
import time
import uuid

import httpx
import pytest

from tests.e2e.conftest import issue_key

pytestmark = pytest.mark.e2e

RESEARCH = {"topics": ["cage-free"], "limit": 3}


def send(server: str, path: str, body: dict, key: str) -> socket.socket:
    host, port = server.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    sock.sendall(head.encode() + data)
    return sock


def settled(server: str, key: str, operation: str) -> dict:
    """The usage API's line of ``operation`` once the request is settled (billed or noted)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answered = httpx.get(f"{server}/v1/usage", headers={"Authorization": f"Bearer {key}"})
        lines = {line["operation"]: line for line in answered.json()["operations"]}
        line = lines.get(operation)
        if line and line["requests"] + line["unbilled_requests"]:
            return line
        time.sleep(0.2)
    raise AssertionError(f"{operation} was never settled")


def test_a_research_stream_closed_after_its_opening_line_costs_nothing(server, emulator):
    key = issue_key(emulator, f"left-{uuid.uuid4().hex[:6]}@example.org")
    sock = send(server, "/v1/research/topics", RESEARCH, key)
    received = b""
    while b'"begin"' not in received:
        received += sock.recv(65536)
    sock.close()  # the opening line read, the client leaves before any item
    line = settled(server, key, "research.topics")
    assert (line["requests"], line["unbilled_requests"]) == (0, 1)


def test_a_research_stream_read_whole_is_billed_once(server, emulator):
    key = issue_key(emulator, f"whole-{uuid.uuid4().hex[:6]}@example.org")
    with httpx.stream(
        "POST",
        f"{server}/v1/research/topics",
        json=RESEARCH,
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    ) as answer:
        kinds = [json.loads(line)["type"] for line in answer.iter_lines() if line]
    assert kinds[-1] == "end"
    line = settled(server, key, "research.topics")
    assert (line["requests"], line["unbilled_requests"]) == (1, 0)


def test_an_mcp_tool_call_whose_client_left_at_once_costs_nothing(server, emulator):
    key = issue_key(emulator, f"mcp-left-{uuid.uuid4().hex[:6]}@example.org")
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "research_news", "arguments": RESEARCH},
    }
    send(server, "/mcp", call, key).close()  # sent, and gone before the result
    line = settled(server, key, "research.topics")
    assert (line["requests"], line["unbilled_requests"]) == (0, 1)


def test_a_research_stream_closed_with_its_first_item_in_hand_is_billed(server, emulator):
    """The other side of the rule: a client that read the first item and hung up at once got
    what it pays for. After the write its closed connection looks like a client gone before,
    so the server asks before the write (it used to ask after, and billed nothing here)."""
    for run in range(3):
        key = issue_key(emulator, f"item-{run}-{uuid.uuid4().hex[:6]}@example.org")
        sock = send(server, "/v1/research/topics", RESEARCH, key)
        received = b""
        while b'"type": "item"' not in received:
            received += sock.recv(65536)
        sock.close()  # the first item in hand
        line = settled(server, key, "research.topics")
        assert (line["requests"], line["unbilled_requests"]) == (1, 0)
