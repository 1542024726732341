"""Faults of the database, printed as JSON (issue 27, decision 0050): what the service answers
while Firestore stalls or restarts, how soon it recovers by itself, and what was lost.

Each scenario runs the real pipeline in process (functions-framework's app of ``main.api``,
one Flask test client per client thread) on a Firestore emulator of its own, with the
production deadlines (``FIRESTORE_TIMEOUT_S`` 5 s). Three clients loop over the scenario:
``GET /health``, ``GET /v1/tracking/subscriptions`` (keyed, metered) and
``POST /v1/tracking/subscriptions`` (a write, with an ``Idempotency-Key`` each). The fault:

- ``firestore_stall``: the emulator's process stopped (SIGSTOP) for ``--stall`` seconds (10),
  then continued;
- ``firestore_restart``: the emulator stopped and started again on its exported data (what
  ``make run`` does), the requests running meanwhile.

For each route: requests, statuses, p50/p99 and the longest request during the fault, and
the recovery: seconds from the fault's end to the route's first 2xx. ``lost``: subscriptions
answered 201 (before or during the fault) that are missing afterwards; it must be 0. The
emulator keeps its data in memory, so a restart keeps what its export held: writes answered
after the export began are counted apart (``created_after_the_export``; production Firestore
has no such window). ``saved_unanswered``: subscriptions stored although their request was
answered with an error (a client retrying without its Idempotency-Key would make a duplicate
of each).

``sustained_load``: ``--load-seconds`` (60) of requests from ``--consumers`` (4) threads, each
its own consumer, cycling over text search of a table, knowledge search, intent and the
topic list (free): statuses, p50/p99 and the longest request, and per operation the requests
that delivered (2xx with results) next to what ``GET /v1/usage`` bills; the two must be equal
(decision 0039), with no 5xx. SendGrid, the LLM provider and the feeds are not measured here
yet (issue 27).

Run: ``.venv/bin/python bench/faults.py [--stall 10] [--after 10]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import emulated, provider_faults  # noqa: E402
from devtools.emulator import Emulator, free_port, latest_export  # noqa: E402

URL = "/v1/tracking/subscriptions"


class Clients:
    """Three client threads looping until stopped, each request noted as
    ``(route, started, ended, status)`` in seconds since ``t0``."""

    def __init__(self, key: str) -> None:
        import functions_framework

        self.app = functions_framework.create_app(target="api", source=str(ROOT / "main.py"))
        self.auth = {"Authorization": f"Bearer {key}"}
        self.t0 = time.monotonic()
        self.log: list[tuple[str, float, float, int]] = []
        self.created: list[tuple[str, float]] = []  # (id, when) of each 201
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(route,), daemon=True)
            for route in ("health", "list", "create")
        ]

    def start(self) -> Clients:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)

    def now(self) -> float:
        return time.monotonic() - self.t0

    def _loop(self, route: str) -> None:
        client = self.app.test_client()
        while not self._stop.is_set():
            started = self.now()
            if route == "health":
                status = client.get("/health").status_code
            elif route == "list":
                status = client.get(URL, headers=self.auth).status_code
            else:
                headers = {**self.auth, "Idempotency-Key": str(uuid.uuid4())}
                answer = client.post(URL, json={"topics": ["fur"]}, headers=headers)
                status = answer.status_code
                if status == 201:
                    self.created.append((answer.get_json()["data"]["id"], self.now()))
            self.log.append((route, started, self.now(), status))
            time.sleep(0.2)


def summary(clients: Clients, fault_start: float, fault_end: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for route in ("health", "list", "create"):
        rows = [r for r in clients.log if r[0] == route]
        during = [r for r in rows if r[2] >= fault_start and r[1] <= fault_end]
        latencies = sorted((r[2] - r[1]) * 1000 for r in during) or [0.0]
        first_ok = min((r[2] for r in rows if r[1] >= fault_end and r[3] < 300), default=None)
        out[route] = {
            "requests_during_fault": len(during),
            "statuses_during_fault": dict(Counter(str(r[3]) for r in during)),
            "p50_ms": round(statistics.median(latencies), 1),
            "p99_ms": round(latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1),
            "longest_ms": round(latencies[-1], 1),
            "statuses_after": dict(Counter(str(r[3]) for r in rows if r[1] > fault_end)),
            "recovery_s": None if first_ok is None else round(first_ok - fault_end, 2),
        }
    return out


def stored_subscriptions(owner: str) -> Counter[str]:
    from common.adapters.firestore import SUBSCRIPTIONS, get_db, where_eq

    query = get_db().collection(SUBSCRIPTIONS).where(filter=where_eq("user_id", owner))
    return Counter(doc.id for doc in query.select([]).stream())


def scenario(
    name: str, emulator: Emulator, owner: str, key: str, fault: Any, after: float
) -> dict[str, Any]:
    before = stored_subscriptions(owner)
    clients = Clients(key).start()
    time.sleep(3)  # before the fault: every route answers
    started = clients.now()
    durable_until = fault(clients)  # writes answered after this may go with the fault
    ended = clients.now()
    time.sleep(after)
    clients.stop()
    stored = stored_subscriptions(owner)
    created = Counter(sub_id for sub_id, _ in clients.created)
    kept = [sub_id for sub_id, at in clients.created if durable_until is None or at < durable_until]
    out = {
        "fault_s": round(ended - started, 1),
        "routes": summary(clients, started, ended),
        "created": len(created),
        "lost": sum(1 for sub_id in kept if sub_id not in stored),
        "saved_unanswered": sum(1 for i in stored if i not in created and i not in before),
    }
    if durable_until is not None:
        out["created_after_the_export"] = len(created) - len(kept)
        out["of_which_gone_with_the_emulator"] = sum(
            1 for sub_id, at in clients.created if at >= durable_until and sub_id not in stored
        )
    return out


LOAD_CALLS = (
    ("search.query", "POST", "/v1/search/campaigns", {"query": "fur farm", "search_type": "text"}),
    ("knowledge.search", "POST", "/v1/knowledge/search", {"query": "how to plan a safe protest"}),
    ("chat.intent", "POST", "/v1/chat/intent", {"message": "Which laws protect hens in Ohio?"}),
    (None, "GET", "/v1/tracking/topics", None),
)


def sustained_load(seconds: float, consumers: int) -> dict[str, Any]:
    """Each consumer's thread cycles over ``LOAD_CALLS`` for ``seconds``; then each
    consumer's usage is read and compared with what its answers delivered."""
    import functions_framework

    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    import_knowledge([ROOT / "data" / "knowledge"])
    import_records(TABLES["campaigns"], ROOT / "data" / "sample" / "campaigns.jsonl")
    app = functions_framework.create_app(target="api", source=str(ROOT / "main.py"))
    keys = [emulated.api_key(f"load-{n}@example.org") for n in range(consumers)]
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    delivered: list[Counter[str]] = [Counter() for _ in keys]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def consumer(n: int) -> None:
        client = app.test_client()
        auth = {"Authorization": f"Bearer {keys[n]}"}
        i = n
        while time.monotonic() < deadline:
            operation, method, path, body = LOAD_CALLS[i % len(LOAD_CALLS)]
            i += 1
            started = time.perf_counter()
            answer = client.open(path, method=method, json=body, headers=auth)
            elapsed = (time.perf_counter() - started) * 1000
            data = answer.get_json(silent=True) or {}
            with lock:
                latencies.append(elapsed)
                statuses[str(answer.status_code)] += 1
                results = data.get("total", 1)  # searches deliver results; intent an answer
                if operation and 200 <= answer.status_code < 300 and results:
                    delivered[n][operation] += 1

    threads = [threading.Thread(target=consumer, args=(n,)) for n in range(consumers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    billed: list[dict[str, int]] = []
    client = app.test_client()
    for key in keys:
        usage = client.get("/v1/usage", headers={"Authorization": f"Bearer {key}"}).get_json()
        billed.append({line["operation"]: line["requests"] for line in usage["operations"]})
    ordered = sorted(latencies)
    mismatches = {
        f"consumer {n}": {"delivered": dict(delivered[n]), "billed": billed[n]}
        for n in range(consumers)
        if {op: c for op, c in billed[n].items() if c} != dict(delivered[n])
    }
    return {
        "seconds": seconds,
        "consumers": consumers,
        "requests": len(ordered),
        "requests_per_s": round(len(ordered) / seconds, 1),
        "statuses": dict(statuses),
        "p50_ms": round(statistics.median(ordered), 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "longest_ms": round(ordered[-1], 1),
        "delivered_per_operation": dict(sum(delivered, Counter())),
        "billed_per_operation": dict(sum((Counter(b) for b in billed), Counter()) - Counter()),
        "billing_mismatches": mismatches,
    }


def delivery_during_stall(
    emulator: Emulator, stall_s: float, digests: int, stall_after_s: float
) -> dict[str, Any]:
    """A dispatch tick and its deliveries while the emulator stalls: it stops
    ``stall_after_s`` after the tick began (0.2 s: while the tick reads and enqueues; 2 s:
    while the runs research and send), for ``stall_s``. A tick that failed is run again after
    the stall (Cloud Scheduler retries a failed tick once; the next minute's tick would do the
    same). Every due digest must be accepted by SendGrid exactly once."""
    from datetime import UTC, datetime, timedelta

    from functions.tracking import dispatch

    with provider_faults.mail_and_feeds() as sendgrid:
        client = provider_faults.app().test_client()
        owner = provider_faults.subscribe_many(client, digests)
        queue = provider_faults.use_queue()
        ticks: list[str] = []

        def tick() -> None:
            try:
                report = dispatch.dispatch(datetime.now(UTC) + timedelta(seconds=1))
                ticks.append(f"enqueued {report.enqueued}, failed {report.failed}")
            except Exception as exc:
                ticks.append(f"raised {type(exc).__name__}")

        first = threading.Thread(target=tick)
        started = time.monotonic()
        first.start()
        time.sleep(stall_after_s)
        assert emulator.process is not None
        os.kill(emulator.process.pid, signal.SIGSTOP)
        time.sleep(stall_s)
        os.kill(emulator.process.pid, signal.SIGCONT)
        first.join()
        tick()  # the scheduler's retry, or the next tick: a no-op when the first one finished
        settled = queue.drain(timeout_s=300)
        return {
            "stall_s": stall_s,
            "stall_after_s": stall_after_s,
            "ticks": ticks,
            "settled": settled,
            "seconds_to_settle": round(time.monotonic() - started, 1),
            "task_attempts_that_failed": sum(
                1 for outcomes in queue.outcomes.values() for o in outcomes if o.startswith("error")
            ),
            **provider_faults.delivered(owner, sendgrid),
        }


SCENARIOS = ("stall", "restart", "load", "delivery_stall", "email", "llm", "feeds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help=f"scenarios, comma-separated: {SCENARIOS}"
    )
    parser.add_argument("--digests", type=int, default=100, help="due digests while it stalls")
    parser.add_argument("--stall", type=float, default=10.0, help="seconds the emulator stops")
    parser.add_argument("--after", type=float, default=10.0, help="seconds measured after")
    parser.add_argument("--load-seconds", type=float, default=60.0, help="sustained load")
    parser.add_argument("--consumers", type=int, default=4, help="consumers of the load")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if only - set(SCENARIOS):
        parser.error(f"unknown scenarios: {sorted(only - set(SCENARIOS))}")
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-faults").start()
    emulated.environment(
        emulator, MAX_SUBSCRIPTIONS_PER_CONSUMER="100000", EMBEDDINGS_BACKEND="offline"
    )
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count()}}
    try:
        with redirect_stdout(sys.stderr):  # the service's logs; stdout keeps the results
            key = emulated.api_key("bench-faults@example.org")
            from common.accounts.consumers import get_or_create_by_email

            owner = get_or_create_by_email("bench-faults@example.org")[0]["id"]

            def stall(clients: Clients) -> None:
                assert emulator.process is not None
                os.kill(emulator.process.pid, signal.SIGSTOP)
                time.sleep(args.stall)
                os.kill(emulator.process.pid, signal.SIGCONT)

            def restart(clients: Clients) -> float:
                """The emulator keeps its data in memory: what it holds at the export comes
                back; a write acknowledged after it is gone with the process (production
                Firestore has no such window), so it is counted apart."""
                with tempfile.TemporaryDirectory() as tmp:
                    exported = clients.now()
                    emulator.export(Path(tmp))
                    emulator.stop()
                    emulator.start(import_from=latest_export(Path(tmp)))
                return exported

            if "stall" in only:
                results["firestore_stall"] = scenario(
                    "stall", emulator, owner, key, stall, args.after
                )
            if "restart" in only:
                results["firestore_restart"] = scenario(
                    "restart", emulator, owner, key, restart, args.after
                )
            if "load" in only:
                results["sustained_load"] = sustained_load(args.load_seconds, args.consumers)
            if "delivery_stall" in only:
                for where, after in (("tick", 0.2), ("runs", 2.0)):
                    results[f"stall_during_the_{where}"] = delivery_during_stall(
                        emulator, args.stall, args.digests, after
                    )
            if "email" in only:
                results.update(provider_faults.email_faults())
            if "llm" in only:
                results.update(provider_faults.llm_faults())
            if "feeds" in only:
                results["feeds"] = provider_faults.feed_faults()
        print(json.dumps(results, indent=2))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
