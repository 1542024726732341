"""Dispatcher throughput and memory, printed as JSON: N due subscriptions (default 10,000) on
the Firestore emulator, dispatched to a real Cloud Tasks API (gcloud-tasks-emulator, its queue
paused so the tasks stay queued).

Prints: seeding time; dispatch time; tasks enqueued per second; pages; the dispatcher's peak
Python memory (tracemalloc, during the dispatch only) and the process's peak RSS; and the check
that a second dispatch on the same tick finds nothing due.

Run: ``make venv .venv-tasks-emulator/.installed`` once, then
``.venv/bin/python bench/dispatch.py [--subscriptions N] [--page-size P]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
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


def seed(count: int, now: datetime) -> float:
    from common.firestore import SUBSCRIPTIONS, get_db

    started = time.perf_counter()
    db = get_db()
    owner = str(uuid.uuid4())
    frequencies = ("daily", "weekly", "realtime")
    for start in range(0, count, 500):
        batch = db.batch()
        for i in range(start, min(start + 500, count)):
            ref = db.collection(SUBSCRIPTIONS).document(str(uuid.uuid4()))
            batch.set(
                ref,
                {
                    "id": ref.id,
                    "user_id": owner,
                    "topics": ["cage-free"],
                    "custom_keywords": [],
                    "frequency": frequencies[i % 3],
                    "specific_interests": "x" * 200,  # realistic document size
                    "delivery_email": "bench@example.org",
                    "active": True,
                    "next_run_at": now - timedelta(seconds=i),
                },
            )
        batch.commit()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--page-size", type=int, default=500)
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
        from common.tasks import _cloud_tasks_client
        from functions.tracking.dispatch import dispatch

        _cloud_tasks_client().pause_queue(name=QUEUE)  # keep the tasks queued, undelivered
        now = datetime.now(UTC)
        seeded_s = seed(args.subscriptions, now - timedelta(seconds=1))
        tracemalloc.start()
        report = dispatch(now)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        again = dispatch(now)
        print(
            json.dumps(
                {
                    "subscriptions_due": args.subscriptions,
                    "page_size": args.page_size,
                    "seed_s": round(seeded_s, 2),
                    "dispatch_s": report.seconds,
                    "tasks_enqueued": report.enqueued,
                    "tasks_per_s": round(report.enqueued / report.seconds, 1),
                    "failed": report.failed,
                    "pages": report.pages,
                    "peak_traced_mib_during_dispatch": round(peak / 2**20, 2),
                    "peak_rss_mib_process": round(
                        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
                    ),
                    "second_dispatch_same_tick_due": again.due,
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
