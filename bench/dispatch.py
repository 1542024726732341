"""Dispatcher throughput and memory, printed as JSON: N due subscriptions (default 10,000) on
the Firestore emulator, dispatched to a real Cloud Tasks API (gcloud-tasks-emulator, its queue
paused so the tasks stay queued).

Prints: seeding time; the raw enqueue ceiling of the same queue, measured in the same run
before and after the dispatch (the dispatcher's own enqueue call, client and 16 enqueue
threads, with run tasks of the dispatcher's shape, and no Firestore work); the dispatch time,
tasks enqueued per second and the ratio dispatch rate / ceiling (to the mean of the two
ceilings, and to the better one); where the time went per page (query, enqueue, advance: the
stages overlap); the CPU per task of this process and of each emulator; the cost of planning a
fanned-out tick's slices over the same due set; the process's RSS growth during the dispatch
(sampled: the peak, and the peak of each quarter of the dispatch); the check that a second
dispatch on the same tick finds nothing due and that the queue holds exactly one run task per
subscription (the emulator, unlike Cloud Tasks, keeps duplicate names, so a duplicate would
show); and the Python heap peak (tracemalloc) of the next day's tick (the daily and realtime
two thirds), traced apart because tracing slows the dispatcher down.

Before any of it, a tick of ``--warm-up`` other subscriptions (weekly, so they are out of the
way afterwards) brings the Firestore emulator's JVM to its steady state (see ``main``).

Run: ``make venv .venv-tasks-emulator/.installed`` once, then
``.venv/bin/python bench/dispatch.py [--subscriptions N] [--page-size P] [--ceiling-tasks M]
[--warm-up W]``. Figures and what bounds them: decisions 0035 and 0036.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.emulator import Emulator, die_with_parent, free_port, wait_listening  # noqa: E402

PROJECT = "demo-ars-bench"
QUEUE = f"projects/{PROJECT}/locations/local/queues/tracking-research"


def seed(
    count: int,
    now: datetime,
    ids: set[str],
    frequencies: tuple[str, ...] = ("daily", "weekly", "realtime"),
) -> float:
    """Write ``count`` subscriptions due one second apart before ``now``, adding their ids to
    ``ids``."""
    from common.adapters.firestore import SUBSCRIPTIONS, get_db

    started = time.perf_counter()
    db = get_db()
    owner = str(uuid.uuid4())
    for start in range(0, count, 500):
        batch = db.batch()
        for i in range(start, min(start + 500, count)):
            ref = db.collection(SUBSCRIPTIONS).document(str(uuid.uuid4()))
            ids.add(ref.id)
            batch.set(
                ref,
                {
                    "id": ref.id,
                    "user_id": owner,
                    "topics": ["cage-free"],
                    "custom_keywords": [],
                    "frequency": frequencies[i % len(frequencies)],
                    "specific_interests": "x" * 200,  # realistic document size
                    "delivery_email": "bench@example.org",
                    "active": True,
                    "next_run_at": now - timedelta(seconds=i),
                },
            )
        batch.commit(timeout=60)  # a cold emulator under load can exceed FIRESTORE_TIMEOUT_S
    return time.perf_counter() - started


def ceiling(count: int) -> float:
    """Raw enqueues per second on the same queue: the dispatcher's own enqueue call
    (``common.adapters.tasks.enqueue_many``: the same client, message builder and enqueue threads)
    with run tasks of the dispatcher's shape and size, and nothing else: no Firestore read or write.
    Submitted as one batch, so the threads never wait for a page to finish."""
    from common.adapters.tasks import Enqueued, enqueue_many
    from functions.tracking.run import run_task

    owner, due = str(uuid.uuid4()), datetime.now(UTC)
    tasks = [run_task(str(uuid.uuid4()), owner, due) for _ in range(count)]
    started, cpu, others = (
        time.perf_counter(),
        cpu_s(),
        {n: process_cpu_s(p) for n, p in PIDS.items()},
    )
    outcomes = enqueue_many(tasks)
    seconds = time.perf_counter() - started
    if outcomes.count(Enqueued.CREATED) != count:
        sys.exit(f"ceiling: the queue refused {count - outcomes.count(Enqueued.CREATED)} tasks")
    CPU_MS_PER_TASK["ceiling"] = round(1000 * (cpu_s() - cpu) / count, 3)
    for name, pid in PIDS.items():
        CPU_MS_PER_TASK[f"ceiling_{name}"] = round(
            1000 * (process_cpu_s(pid) - others[name]) / count, 3
        )
    return count / seconds


CPU_MS_PER_TASK: dict[str, float] = {}
PIDS: dict[str, int] = {}  # the emulators' processes


def cpu_s() -> float:
    """CPU seconds of this process so far (all threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu_s(pid: int) -> float:
    """CPU seconds of another process (an emulator) so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RssSampler:
    """Resident memory of this process while running, sampled every 20 ms: the peak, and the
    peak of each quarter of the run (flat memory: the later quarters hold no more than the
    first, however many subscriptions the run goes through)."""

    def __init__(self) -> None:
        self.base = self.peak = self._rss()
        self._samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def _rss() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self._samples.append(self._rss())

    def growth_by_quarter_mib(self) -> list[float]:
        samples = self._samples or [self.peak]
        size = -(-len(samples) // 4)
        return [
            round((max(samples[i : i + size]) - self.base) / 2**20, 1)
            for i in range(0, len(samples), size)
        ]

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._samples.append(self._rss())
        self.peak = max(self._samples)


def queued_run_tasks(tasks_port: int, ids: set[str]) -> tuple[int, int]:
    """(run tasks of the subscriptions ``ids`` in the queue, distinct names among them),
    listed in one call (the emulator's listing has no pages, hence a channel without the
    4 MiB message limit). The ceiling's run tasks name other ids and are not counted."""
    import grpc
    from google.cloud import tasks_v2
    from google.cloud.tasks_v2.services.cloud_tasks.transports import CloudTasksGrpcTransport

    channel = grpc.insecure_channel(
        f"127.0.0.1:{tasks_port}", options=[("grpc.max_receive_message_length", -1)]
    )
    client = tasks_v2.CloudTasksClient(transport=CloudTasksGrpcTransport(channel=channel))
    request = tasks_v2.ListTasksRequest(parent=QUEUE, page_size=1000)
    names = [
        name
        for task in client.list_tasks(request=request)
        if (name := task.name.rsplit("/", 1)[1]).startswith("run-") and name[4:40] in ids
    ]
    channel.close()
    return len(names), len(set(names))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--ceiling-tasks", type=int, default=5_000)
    parser.add_argument("--slice-size", type=int, default=5_000)
    parser.add_argument("--warm-up", type=int, default=20_000, help="0: a cold Firestore emulator")
    parser.add_argument("--no-trace", action="store_true", help="skip the traced second tick")
    args = parser.parse_args()

    tasks_bin = ROOT / ".venv-tasks-emulator" / "bin" / "gcloud-tasks-emulator"
    if not tasks_bin.exists():
        sys.exit("gcloud-tasks-emulator missing: make .venv-tasks-emulator/.installed")
    emulator = Emulator("127.0.0.1", free_port(), PROJECT)
    tasks_port = free_port()
    os.environ.update(
        {
            "ENVIRONMENT": "test",
            "GOOGLE_CLOUD_PROJECT": PROJECT,
            "FIRESTORE_EMULATOR_HOST": emulator.address,
            "TASKS_BACKEND": "cloudtasks",
            "TASKS_QUEUE": QUEUE,
            "TASKS_EMULATOR_HOST": f"127.0.0.1:{tasks_port}",
            "TASK_WORKER_URL": "http://127.0.0.1:9",
            "DISPATCH_PAGE_SIZE": str(args.page_size),
            "DISPATCH_FAN_OUT_ABOVE": "0",  # one instance: this measures a slice's cost
            "LOG_LEVEL": "WARNING",
        }
    )
    tasks = subprocess.Popen(
        [str(tasks_bin), "start", "-p", str(tasks_port), "-d", QUEUE],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    emulator.start()
    try:
        if not wait_listening(tasks_port, 30):
            sys.exit("gcloud-tasks-emulator did not start")
        from common.adapters.tasks import _cloud_tasks_client
        from functions.tracking.dispatch import dispatch, plan_slices

        assert emulator.process is not None  # started above
        PIDS.update(tasks_emulator=tasks.pid, firestore_emulator=emulator.process.pid)
        _cloud_tasks_client().pause_queue(name=QUEUE)  # keep the tasks queued, undelivered
        now = datetime.now(UTC)
        if args.warm_up:
            # The Firestore emulator is a JVM: its first tens of thousands of queries and
            # conditional updates cost it 3-4 times the CPU of later ones (measured per
            # subscription: 0.47 ms cold, 0.19 after 10,000, 0.10 at steady state), CPU that
            # the dispatcher's process and the queue then lack on this 2-core machine, and that
            # Firestore itself never takes from them. A tick of other, weekly subscriptions
            # runs first; they are advanced a week, out of the way.
            seed(args.warm_up, now - timedelta(hours=1), set(), ("weekly",))
            dispatch(now - timedelta(minutes=30))
        ids: set[str] = set()
        seeded_s = seed(args.subscriptions, now - timedelta(seconds=1), ids)
        ceiling(200)  # warm the channel
        before = ceiling(args.ceiling_tasks)
        planned = time.perf_counter()
        slices = sum(1 for _ in plan_slices(now, args.slice_size))
        plan_s = time.perf_counter() - planned
        cpu, others = cpu_s(), {n: process_cpu_s(p) for n, p in PIDS.items()}
        with RssSampler() as rss:
            report = dispatch(now)
        done = max(report.enqueued, 1)
        CPU_MS_PER_TASK["dispatch"] = round(1000 * (cpu_s() - cpu) / done, 3)
        for name, pid in PIDS.items():
            CPU_MS_PER_TASK[f"dispatch_{name}"] = round(
                1000 * (process_cpu_s(pid) - others[name]) / done, 3
            )
        after = ceiling(args.ceiling_tasks)
        again = dispatch(now)
        queued, distinct = queued_run_tasks(tasks_port, ids)
        rate = report.enqueued / report.seconds
        mean = (before + after) / 2  # the queue's speed around the dispatch
        traced: dict[str, object] = {}
        if not args.no_trace:
            tracemalloc.start()
            next_day = dispatch(now + timedelta(days=1, seconds=1))
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            traced = {
                "next_day_tick_due": next_day.due,
                "next_day_tick_peak_traced_mib": round(peak / 2**20, 2),
            }
        pages = max(report.pages, 1)
        print(
            json.dumps(
                {
                    "subscriptions_due": args.subscriptions,
                    "warm_up_subscriptions": args.warm_up,
                    "page_size": args.page_size,
                    "seed_s": round(seeded_s, 2),
                    "ceiling_tasks_per_s_before": round(before, 1),
                    "ceiling_tasks_per_s_after": round(after, 1),
                    "dispatch_s": round(report.seconds, 2),
                    "tasks_enqueued": report.enqueued,
                    "tasks_per_s": round(rate, 1),
                    "ratio_to_ceiling": round(rate / mean, 3),
                    "ratio_to_best_ceiling": round(rate / max(before, after), 3),
                    "failed": report.failed,
                    "pages": report.pages,
                    "per_page_ms": {
                        "query": round(1000 * report.query_s / pages, 1),
                        "enqueue": round(1000 * report.enqueue_s / pages, 1),
                        "advance": round(1000 * report.advance_s / pages, 1),
                        "wall": round(1000 * report.seconds / pages, 1),
                    },
                    "cpu_ms_per_task": CPU_MS_PER_TASK,
                    "slice_plan": {
                        "slice_size": args.slice_size,
                        "slices": slices,
                        "seconds": round(plan_s, 2),
                    },
                    "rss_growth_mib_during_dispatch": round((rss.peak - rss.base) / 2**20, 1),
                    "rss_growth_mib_by_quarter_of_dispatch": rss.growth_by_quarter_mib(),
                    "peak_rss_mib_process": round(
                        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
                    ),
                    "second_dispatch_same_tick": {"due": again.due, "enqueued": again.enqueued},
                    "run_tasks_in_queue": queued,
                    "duplicate_run_tasks_in_queue": queued - distinct,
                    **traced,
                },
                indent=2,
            )
        )
    finally:
        tasks.terminate()
        tasks.wait(timeout=10)
        emulator.stop()


if __name__ == "__main__":
    main()
