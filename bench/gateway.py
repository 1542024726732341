"""Gateway overhead, printed as JSON: GET /health next to an authenticated, rate-limited,
metered request (a no-op handler), over HTTP against a local server on the Firestore emulator.

For each: requests per second, p50 and p99 latency (sequential requests on one keep-alive
connection), and the Firestore round trips (RPCs) per request, counted by wrapping the client's
RPC methods, by method, with the documents written per request (what Firestore bills). The
authenticated request runs with a warm key cache, so its RPCs are the gateway's: the rate limit
(one commit of two writes) and the usage record (one commit). Then the same for requests refused
with 429 (a refusal is remembered in process until Retry-After: no RPC), and a burst of 20
concurrent requests from one consumer, under a limit of 60 and of 10.

``creates`` (issue 43, decision 0064): 10 and 30 parallel ``POST /v1/tracking/subscriptions``
from one consumer each (a fresh one per burst, the cap of 25 subscriptions), against the real
``functions-framework --target=api`` server as ``make run`` serves it (its own process, 64
threads), each request on its own connection: served (201), statuses with their problem codes,
p50/p99 latency, and the subscriptions stored and counted on the consumer afterwards.

``shares`` (issue 43, decision 0065): on the knowledge corpus, against the same real server:
the first burst of 50 knowledge searches from one consumer as soon as ``/health`` answers 200,
and the same burst ``--later`` seconds (60) later; three times each, one consumer's burst of 40
and of 100 searches with another consumer's 3 searches sent 0.1 s into it (served, statuses,
p50/p99, per consumer); 4 chat messages one after another, then three times 20 at once, with
the bound the CPU sets (the serial p50 x 20 / the machine's cores).

Run: ``.venv/bin/python bench/gateway.py [--requests N] [--only gateway,creates,shares]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import emulated  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402
from devtools.run import THREADS  # noqa: E402
from devtools.server import start_api  # noqa: E402

RPCS: Counter[str] = Counter()
WRITES: Counter[str] = Counter()


def count_rpcs() -> None:
    from common.adapters.firestore import get_db

    transport = get_db()._firestore_api._transport
    for method, wrapped in list(transport._wrapped_methods.items()):
        name = rpc_name(method)

        def counting(*args, _wrapped=wrapped, _name=name, **kwargs):
            RPCS[_name] += 1
            request = args[0] if args else kwargs.get("request")
            WRITES["documents"] += len(getattr(request, "writes", None) or [])
            return _wrapped(*args, **kwargs)

        transport._wrapped_methods[method] = counting


def rpc_name(method) -> str:
    """``Commit`` for the gRPC callable of /google.firestore.v1.Firestore/Commit."""
    raw = getattr(method, "_method", None) or getattr(method, "__name__", repr(method))
    return (raw.decode() if isinstance(raw, bytes) else str(raw)).rsplit("/", 1)[-1]


def serve(port: int):
    import functions_framework
    from werkzeug.serving import make_server

    app = functions_framework.create_app(
        target="gateway_bench", source=str(ROOT / "bench" / "gateway_app.py")
    )
    server = make_server("127.0.0.1", port, app, threaded=True)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access line per request
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(client: httpx.Client, n: int, request, status: int = 200) -> dict:
    latencies, rpcs = [], []
    methods_before, writes_before = Counter(RPCS), WRITES["documents"]
    for _ in range(n):
        before = sum(RPCS.values())
        started = time.perf_counter()
        response = request(client)
        latencies.append((time.perf_counter() - started) * 1000)
        rpcs.append(sum(RPCS.values()) - before)
        assert response.status_code == status, response.text
    latencies.sort()
    return {
        "requests": n,
        "rps": round(n / (sum(latencies) / 1000), 1),
        "p50_ms": round(statistics.median(latencies), 2),
        "p99_ms": round(latencies[int(0.99 * (n - 1))], 2),
        "firestore_rpcs_per_request": {
            "mean": round(statistics.mean(rpcs), 3),
            "max": max(rpcs),
            "by_method": {
                name: round(count / n, 3) for name, count in (RPCS - methods_before).items()
            },
        },
        "documents_written_per_request": round((WRITES["documents"] - writes_before) / n, 3),
    }


def burst(base: str, key: str, n: int = 20) -> dict:
    def one(i: int) -> int:
        with httpx.Client(base_url=base, timeout=30) as client:
            return client.post(
                "/v1/bench/metered",
                json={"message": f"burst {i}"},
                headers={"Authorization": f"Bearer {key}"},
            ).status_code

    started = time.perf_counter()
    with ThreadPoolExecutor(n) as pool:
        statuses = list(pool.map(one, range(n)))
    return {
        "concurrent": n,
        "seconds": round(time.perf_counter() - started, 3),
        "statuses": dict(Counter(statuses)),
    }


def parallel_creates(bursts: tuple[int, ...] = (10, 30)) -> dict:
    """Each burst: that many concurrent creates from one new consumer, over HTTP against a
    server process of its own on the bench's emulator."""
    from common.accounts.consumers import get_or_create_by_email
    from common.adapters.firestore import CONSUMERS, SUBSCRIPTIONS, get_db, where_eq

    results: dict = {}
    with api_server() as base:
        for n in bursts:
            email = f"creates-{n}@example.org"
            auth = {"Authorization": f"Bearer {emulated.api_key(email)}"}
            with httpx.Client(base_url=base, timeout=30) as client:  # the key is cached
                client.get("/v1/tracking/topics", headers=auth)

            def one(_: int, auth: dict = auth) -> tuple[str, float]:
                with httpx.Client(base_url=base, timeout=70) as client:
                    started = time.perf_counter()
                    answer = client.post(
                        "/v1/tracking/subscriptions",
                        json={"topics": ["fur"]},
                        headers=auth,
                    )
                    elapsed = (time.perf_counter() - started) * 1000
                code = "" if answer.is_success else f" {answer.json().get('code')}"
                return f"{answer.status_code}{code}", elapsed

            started = time.perf_counter()
            with ThreadPoolExecutor(n) as pool:
                answers = list(pool.map(one, range(n)))
            seconds = time.perf_counter() - started
            consumer = (
                get_db().collection(CONSUMERS).document(get_or_create_by_email(email)[0]["id"])
            )
            owned = (
                get_db().collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", consumer.id))
            )
            latencies = sorted(ms for _, ms in answers)
            results[f"parallel_{n}"] = {
                "concurrent": n,
                "served": sum(status == "201" for status, _ in answers),
                "statuses": dict(Counter(status for status, _ in answers)),
                "p50_ms": round(statistics.median(latencies), 1),
                "p99_ms": round(latencies[int(0.99 * (n - 1))], 1),
                "longest_ms": round(latencies[-1], 1),
                "seconds": round(seconds, 2),
                "stored": len(list(owned.select([]).stream())),
                "subscription_count": consumer.get().get("subscription_count"),
            }
    return results


@contextmanager
def api_server(ready: list[float] | None = None) -> Iterator[str]:
    """The real ``functions-framework --target=api`` server as ``make run`` serves it (its own
    process, ``THREADS`` threads) on the bench's emulator: its base URL once ``/health``
    answers 200 (``ready`` gets the seconds that took)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "server.log", "wb") as log:
        port = free_port()
        started = time.monotonic()
        server = start_api({**os.environ, "THREADS": str(THREADS)}, port, log)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=5) as client:
                while not _answers(client):
                    if time.monotonic() > started + 120:
                        raise SystemExit("the server did not start")
                    time.sleep(0.05)
            if ready is not None:
                ready.append(time.monotonic() - started)
            yield base
        finally:
            server.terminate()
            server.wait(timeout=10)


SEARCHES = (  # knowledge searches a campaigner might send (each embeds its query)
    "cage-free egg commitments",
    "live export of sheep by sea",
    "fur farming bans in Europe",
    "farrowing crates for sows",
    "how to escalate a corporate campaign",
)
CHATS = (
    "How do I start a campaign asking a supermarket to go cage-free?",
    "What does the law say about live export from New Zealand?",
    "Which fish welfare problems matter most at slaughter?",
    "How should we follow up after three unanswered letters?",
)


def fire(base: str, requests: list[tuple[str, str, str, dict, float]]) -> list[tuple]:
    """Each request (tag, key, path, body, delay in s) from its own thread and connection,
    all released at once and each sent after its delay: (tag, status with its problem code,
    ms) for each."""
    start = threading.Barrier(len(requests))

    def one(request: tuple[str, str, str, dict, float]) -> tuple[str, str, float]:
        tag, key, path, body, delay = request
        with httpx.Client(base_url=base, timeout=90) as client:
            start.wait()
            time.sleep(delay)
            began = time.perf_counter()
            answer = client.post(path, json=body, headers={"Authorization": f"Bearer {key}"})
            ms = (time.perf_counter() - began) * 1000
        code = "" if answer.is_success else f" {answer.json().get('code')}"
        return tag, f"{answer.status_code}{code}", ms

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(one, requests))


def tally(answers: list[tuple], tag: str | None = None) -> dict:
    """Served (2xx), statuses, p50/p99 and the longest, of the answers tagged ``tag``."""
    mine = [(status, ms) for t, status, ms in answers if tag is None or t == tag]
    latencies = sorted(ms for _, ms in mine)
    return {
        "requests": len(mine),
        "served": sum(status.startswith("2") for status, _ in mine),
        "statuses": dict(Counter(status for status, _ in mine)),
        "p50_ms": round(statistics.median(latencies)),
        "p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))]),
        "longest_ms": round(latencies[-1]),
    }


def searches(key: str, n: int, tag: str, delay: float = 0.0) -> list[tuple]:
    return [
        (tag, key, "/v1/knowledge/search", {"query": SEARCHES[i % len(SEARCHES)]}, delay)
        for i in range(n)
    ]


def load_corpus() -> None:
    """The knowledge corpus and the sample campaigns, as ``make run`` loads them."""
    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    import_knowledge([ROOT / "data" / "knowledge"])
    import_records(TABLES["campaigns"], ROOT / "data" / "sample" / "campaigns.jsonl")


def shares(bursts: tuple[int, ...] = (40, 100), runs: int = 3, later_s: float = 60.0) -> dict:
    """Fair shares (issue 43): the first burst of 50 searches after the server is ready and
    the same burst ``later_s`` later; then, ``runs`` times per burst size, one consumer's
    burst of searches with another consumer's 3 searches sent 0.1 s into it; then 20
    concurrent chat messages from one consumer."""
    ready: list[float] = []
    results: dict = {}
    loud, quiet = emulated.api_key("loud@example.org"), emulated.api_key("quiet@example.org")
    with api_server(ready) as base:
        results["ready_s"] = round(ready[0], 2)
        results["first_burst_50"] = tally(fire(base, searches(loud, 50, "first")))
        time.sleep(later_s)
        results[f"burst_50_{round(later_s)}s_later"] = tally(fire(base, searches(loud, 50, "")))
        for n in bursts:
            for run in range(runs):
                time.sleep(2)  # the last burst's stragglers gone
                answers = fire(base, searches(loud, n, "loud") + searches(quiet, 3, "quiet", 0.1))
                results[f"burst_{n}_run_{run + 1}"] = {
                    "loud": tally(answers, "loud"),
                    "quiet": tally(answers, "quiet"),
                }
        time.sleep(2)
        chats = [
            ("chat", quiet, "/v1/chat/message", {"message": CHATS[i % len(CHATS)]}, 0.0)
            for i in range(20)
        ]
        serial = [fire(base, [chat])[0] for chat in chats[:4]]
        results["chat_serial"] = tally(serial)
        # The chat engine's work is CPU: 20 at once can end no sooner than 20 serial
        # replies' work shared by the machine's cores, and, as far as it is Python holding the
        # interpreter's lock, no sooner than the 20 replies one after another.
        serial_20 = results["chat_serial"]["p50_ms"] * 20
        results["chat_20_cpu_bound_ms"] = round(serial_20 / (os.cpu_count() or 1))
        results["chat_20_one_interpreter_bound_ms"] = round(serial_20)
        for run in range(runs):
            time.sleep(2)
            results[f"chat_20_concurrent_run_{run + 1}"] = tally(fire(base, chats))
    return results


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument(
        "--only", default="gateway,creates,shares", help="scenarios: gateway,creates,shares"
    )
    parser.add_argument("--later", type=float, default=60.0, help="s between the two bursts")
    args = parser.parse_args()
    n, only = args.requests, set(args.only.split(","))

    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-gateway").start()
    os.environ.update(
        {
            "ENVIRONMENT": "test",
            "FIRESTORE_EMULATOR_HOST": emulator.address,
            "GOOGLE_CLOUD_PROJECT": emulator.project,
            "LOG_LEVEL": "WARNING",
            "RATE_LIMIT_REQUESTS": str(10 * n),
        }
    )
    try:
        results: dict = {}
        if "creates" in only:
            results["creates"] = parallel_creates()
        if "shares" in only:
            os.environ["EMBEDDINGS_BACKEND"] = "offline"
            load_corpus()
            results["shares"] = shares(later_s=args.later)
        if "gateway" not in only:
            print(json.dumps(results, indent=2))
            return
        from common.accounts.consumers import create_consumer
        from common.accounts.keys import issue_key
        from common.config import get_settings

        key = issue_key(create_consumer("bench@example.org")["id"]).plaintext
        refused_key = issue_key(create_consumer("refused@example.org")["id"]).plaintext
        count_rpcs()
        port = free_port()
        server = serve(port)
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, timeout=30) as client:
            client.get("/health")
            client.post("/v1/bench/metered", json={"message": "warm"}, headers=auth)
            health = measure(client, n, lambda c: c.get("/health"))
            metered = measure(
                client,
                n,
                lambda c: c.post(
                    "/v1/bench/metered",
                    json={"message": "How do I start a campaign?"},
                    headers=auth,
                ),
            )
            os.environ["RATE_LIMIT_REQUESTS"] = "1"
            get_settings.cache_clear()
            over = {"Authorization": f"Bearer {refused_key}"}
            warm = client.post("/v1/bench/metered", json={"message": "once"}, headers=over)
            assert warm.status_code == 200, warm.text  # the one admitted (and the key cached)
            refused = measure(
                client,
                n,
                lambda c: c.post("/v1/bench/metered", json={"message": "again"}, headers=over),
                status=429,
            )
        results |= {
            "health": health,
            "metered": metered,
            "metered_p50_vs_health": round(metered["p50_ms"] / health["p50_ms"], 2),
            "rpcs_beyond_handler_max": metered["firestore_rpcs_per_request"]["max"],
            "refused_429": refused,
        }
        for limit in (60, 10):
            os.environ["RATE_LIMIT_REQUESTS"] = str(limit)
            get_settings.cache_clear()
            fresh = issue_key(create_consumer(f"burst{limit}@example.org")["id"]).plaintext
            results[f"burst_limit_{limit}"] = burst(base, fresh)
        server.shutdown()
        print(json.dumps(results, indent=2))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
