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

Run: ``.venv/bin/python bench/gateway.py [--requests N] [--only gateway,creates]``.
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
from concurrent.futures import ThreadPoolExecutor
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
    from common.firestore import get_db

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
    import tempfile

    from common.consumers import get_or_create_by_email
    from common.firestore import CONSUMERS, SUBSCRIPTIONS, get_db, where_eq

    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "server.log", "wb") as log:
        port = free_port()
        server = start_api({**os.environ, "THREADS": str(THREADS)}, port, log)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=5) as client:
                deadline = time.monotonic() + 60
                while not _answers(client):
                    if time.monotonic() > deadline:
                        raise SystemExit("the server did not start")
                    time.sleep(0.2)
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
                    get_db()
                    .collection(SUBSCRIPTIONS)
                    .where(filter=where_eq("user_id", consumer.id))
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
        finally:
            server.terminate()
            server.wait(timeout=10)
    return results


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--only", default="gateway,creates", help="scenarios: gateway,creates")
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
        if "creates" in only:
            creates = parallel_creates()
        if "gateway" not in only:
            print(json.dumps(creates, indent=2))
            return
        from common.config import get_settings
        from common.consumers import create_consumer
        from common.http.keys import issue_key

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
        results = {
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
        if "creates" in only:
            results["creates"] = creates
        print(json.dumps(results, indent=2))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
