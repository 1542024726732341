"""The MCP server's overhead, printed as JSON: a tool call's latency next to the same REST call's
(issue 28; goal: p50 within 1.2x).

A functions-framework server (``--target=api``, as `make run` serves) on a Firestore emulator of
its own, with the sample campaigns imported. Over HTTP with keep-alive, alternating one REST
request and one MCP request so that both see the same machine:
- ``rest``: ``POST /v1/search/campaigns``;
- ``mcp_2026``: ``POST /mcp`` ``tools/call`` ``search_table`` with the 2026-07-28 headers and
  ``_meta`` (one self-contained request, as a modern client sends it);
- ``mcp_2025``: the same call as a 2025-era client sends it after its handshake.
The same queries, ``search_type`` text and hybrid. Then the official client (``mcp``), once per
era: connect, list the tools and call the tool, to show what a client adds on its side.

Run: ``.venv/bin/python bench/mcp.py [--requests N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
# run as a script, this file's folder comes first on the path, and "import mcp" would find
# this file instead of the MCP SDK
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
sys.path.insert(0, str(ROOT))

from bench import emulated  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402
from devtools.server import start_api  # noqa: E402

QUERIES = (
    "cage-free egg pledge",
    "mink fur farms",
    "broiler chicken welfare commitment",
    "foie gras ban",
    "fish welfare slaughter",
)
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def progress(message: str) -> None:
    print(f"[bench/mcp {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def rest(http: httpx.Client, query: str, search_type: str) -> httpx.Response:
    return http.post(
        "/v1/search/campaigns", json={"query": query, "search_type": search_type, "limit": 10}
    )


def tool_call(http: httpx.Client, query: str, search_type: str, era: str) -> httpx.Response:
    arguments = {"table": "campaigns", "query": query, "search_type": search_type, "limit": 10}
    params: dict[str, Any] = {"name": "search_table", "arguments": arguments}
    headers = {"Accept": "application/json, text/event-stream"}
    if era == "2026":
        params["_meta"] = MODERN_META
        headers |= {
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "search_table",
        }
    else:
        headers["MCP-Protocol-Version"] = "2025-11-25"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return http.post("/mcp", json=body, headers=headers)


def checked(response: httpx.Response, mcp: bool) -> int:
    """The number of records answered; a failed call stops the bench (its figure would lie)."""
    if response.status_code != 200:
        raise SystemExit(f"{response.request.url.path} answered {response.status_code}")
    body = response.json()
    if mcp:
        if "error" in body or body["result"].get("isError"):
            raise SystemExit(f"tool call failed: {json.dumps(body)[:300]}")
        body = body["result"]["structuredContent"]
    return len(body["data"])


def timing(latencies: list[float]) -> dict[str, Any]:
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
    }


def compare(http: httpx.Client, search_type: str, n: int) -> dict[str, Any]:
    """``n`` requests of each kind, interleaved, after a warm-up of each."""
    kinds = {
        "rest": lambda q: checked(rest(http, q, search_type), mcp=False),
        "mcp_2026": lambda q: checked(tool_call(http, q, search_type, "2026"), mcp=True),
        "mcp_2025": lambda q: checked(tool_call(http, q, search_type, "2025"), mcp=True),
    }
    latencies: dict[str, list[float]] = {kind: [] for kind in kinds}
    records: dict[str, int] = {kind: 0 for kind in kinds}
    for query in QUERIES:  # warm-up: caches, embeddings of the queries, the tool catalog
        for call in kinds.values():
            call(query)
    for i in range(n):
        query = QUERIES[i % len(QUERIES)]
        for kind, call in kinds.items():
            started = time.perf_counter()
            records[kind] += call(query)
            latencies[kind].append((time.perf_counter() - started) * 1000)
    figures: dict[str, Any] = {kind: timing(values) for kind, values in latencies.items()}
    if len(set(records.values())) != 1:
        raise SystemExit(f"the two doors answered different records: {records}")
    for kind in ("mcp_2026", "mcp_2025"):
        figures[f"{kind}_p50_over_rest"] = round(
            figures[kind]["p50_ms"] / figures["rest"]["p50_ms"], 3
        )
    return figures


def official_client(base: str, key: str, mode: str, n: int) -> dict[str, Any]:
    """The official client: connecting (handshake or discovery), listing, and ``n`` calls."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> dict[str, Any]:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(30.0)
        )
        async with http:
            started = time.perf_counter()
            async with Client(
                streamable_http_client(f"{base}/mcp", http_client=http), mode=mode
            ) as client:
                connected = (time.perf_counter() - started) * 1000
                started = time.perf_counter()
                await client.list_tools()
                listed = (time.perf_counter() - started) * 1000
                calls = []
                for i in range(n):
                    started = time.perf_counter()
                    result = await client.call_tool(
                        "search_table",
                        {
                            "table": "campaigns",
                            "query": QUERIES[i % len(QUERIES)],
                            "search_type": "text",
                        },
                    )
                    if result.is_error:
                        raise SystemExit(f"official client: {result.content}")
                    calls.append((time.perf_counter() - started) * 1000)
                return {
                    "protocol_version": client.protocol_version,
                    "connect_ms": round(connected, 1),
                    "list_tools_ms": round(listed, 1),
                    "call_tool": timing(calls),
                }

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="of each kind and type (200)")
    args = parser.parse_args()
    began = time.perf_counter()
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-mcp").start()
    emulated.environment(emulator)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115
        port = free_port()
        # emulated.environment set the emulator, the offline engines and quiet logs
        server = start_api(dict(os.environ), port, log)
        try:
            from functions.search.importer import import_records
            from functions.search.tables import TABLES

            progress("importing the sample campaigns (embedding)...")
            report = import_records(TABLES["campaigns"], ROOT / "data/sample/campaigns.jsonl")
            results["records"] = report.written
            key = emulated.api_key("bench-mcp@example.org")
            base = f"http://127.0.0.1:{port}"
            auth = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=base, headers=auth, timeout=30) as http:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        if http.get("/health").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    if time.monotonic() > deadline:
                        raise SystemExit("the server did not start")
                    time.sleep(0.2)
                for search_type in ("text", "hybrid"):
                    progress(f"{search_type}: REST and MCP x{args.requests}...")
                    results[search_type] = compare(http, search_type, args.requests)
            for mode in ("legacy", "auto"):
                progress(f"official client, mode={mode}...")
                results[f"official_client_{mode}"] = official_client(base, key, mode, 50)
        finally:
            server.terminate()
            server.wait(timeout=10)
            log.close()
            emulator.stop()
    results["seconds_total"] = round(time.perf_counter() - began, 1)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
