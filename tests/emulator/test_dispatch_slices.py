"""A fanned-out dispatcher tick on the real emulator: the slices hold every due subscription
exactly once (no overlap, no gap, ties of ``next_run_at`` included), a retried slice enqueues
nothing new, and the inline backend runs the slice tasks in process (decision 0035)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from common import container
from common.adapters.firestore import SUBSCRIPTIONS, get_db
from common.adapters.tasks import INLINE, Enqueued, InlineQueue, Task
from functions.tracking.dispatch import (
    SLICE_KIND,
    DispatchReport,
    dispatch,
    dispatch_range,
    plan_slices,
    run_slice,
    slice_task,
)
from registry import run_task as execute

pytestmark = pytest.mark.emulator


class Collect:
    """Stands in for the queue: records what the dispatcher enqueues; remembers names like
    Cloud Tasks does (a second enqueue of a name is EXISTS)."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self.names: set[str] = set()

    def __call__(self, tasks: list[Task]) -> list[Enqueued]:
        outcomes = []
        for task in tasks:
            self.tasks.append(task)
            outcomes.append(Enqueued.EXISTS if task.task_id in self.names else Enqueued.CREATED)
            self.names.add(task.task_id)
        return outcomes

    def subscriptions(self) -> list[str]:
        return [t.payload["subscriptionId"] for t in self.tasks if t.kind == "tracking.run"]


def seed(now: datetime, due: int, not_due: int = 3, paused: int = 2) -> set[str]:
    """``due`` due subscriptions, a third of them sharing one ``next_run_at`` (as realtime ones
    do after a tick), plus some due later and some paused. Returns the due ids."""
    db = get_db()
    batch = db.batch()
    due_ids = set()
    shared = now - timedelta(minutes=1)
    for i in range(due + not_due + paused):
        sub_id = str(uuid.uuid4())
        if i < due:
            when, active = (shared if i % 3 == 0 else now - timedelta(seconds=10 + i)), True
            due_ids.add(sub_id)
        elif i < due + not_due:
            when, active = now + timedelta(hours=1), True
        else:
            when, active = now - timedelta(hours=1), False
        batch.set(
            db.collection(SUBSCRIPTIONS).document(sub_id),
            {
                "user_id": str(uuid.uuid4()),
                "frequency": ("realtime", "daily", "weekly")[i % 3],
                "active": active,
                "next_run_at": when,
            },
        )
        if (i + 1) % 500 == 0:  # a batch holds at most 500 writes
            batch.commit()
            batch = db.batch()
    batch.commit()
    return due_ids


def test_slices_hold_every_due_subscription_once_in_any_order(db, monkeypatch, settings_env):
    settings_env(DISPATCH_PAGE_SIZE="2")  # several pages per slice
    now = datetime.now(UTC)
    due = seed(now, 23)
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)

    slices = list(plan_slices(now, 5))
    assert len(slices) == 5
    assert slices[0][0] is None
    assert slices[-1][1] is None
    assert all(a[1] == b[0] for a, b in pairwise(slices))  # each starts where the last ends

    sizes = []
    for start, end in reversed(slices):  # each slice stands alone: order does not matter
        before = len(queue.tasks)
        dispatch_range(now, start, end, DispatchReport())
        sizes.append(len(queue.tasks) - before)

    assert sorted(sizes) == [3, 5, 5, 5, 5]
    assert len(queue.subscriptions()) == 23  # no overlap...
    assert set(queue.subscriptions()) == due  # ...and no gap
    assert dispatch(now).due == 0  # every one was advanced


def test_a_retried_slice_enqueues_nothing_new(db, monkeypatch):
    now = datetime.now(UTC)
    due = seed(now, 9)
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)
    (start, end), *_ = plan_slices(now, 6)
    task = slice_task(now, 0, start, end)

    # The first attempt enqueues its runs, then dies before advancing them.
    def die(advances):
        raise RuntimeError("instance stopped")

    monkeypatch.setattr("functions.tracking.dispatch._advance", die)
    with pytest.raises(RuntimeError):
        run_slice(task)
    first = [t.task_id for t in queue.tasks]
    assert len(first) == 6
    monkeypatch.undo()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)

    # Cloud Tasks retries the slice: the same runs, by name, so the queue adds nothing.
    assert execute(task) == "dispatched"
    assert [t.task_id for t in queue.tasks[6:]] == first
    assert queue.names == set(first)

    # A third delivery finds its range already advanced.
    assert execute(task) == "dispatched"
    assert len(queue.tasks) == 12
    assert set(queue.subscriptions()) < due
    assert dispatch(now).due == 3  # the other slice's, untouched


def test_a_slice_payload_that_does_not_validate_is_dropped(db):
    bad = [
        {"tick": "yesterday", "start": None, "end": None},
        {"tick": "2026-01-01T00:00:00Z", "start": {"at": "x", "id": "a"}, "end": None},
        {"tick": "2026-01-01T00:00:00Z", "start": None, "end": {"at": "2026-01-01", "id": "a/b"}},
    ]
    for payload in bad:
        assert execute(Task("slice-x", SLICE_KIND, payload)) == "invalid_payload"


def test_a_big_tick_fans_out_and_the_inline_backend_runs_the_slices(db, monkeypatch, settings_env):
    settings_env(TASKS_BACKEND="inline", DISPATCH_FAN_OUT_ABOVE="10", DISPATCH_SLICE_SIZE="4")
    now = datetime.now(UTC)
    due = seed(now, 14)
    runs: list[Task] = []

    def runner(task: Task) -> None:  # slices run for real; runs are only recorded
        if task.kind == SLICE_KIND:
            execute(task)
        else:
            runs.append(task)

    with container.override(INLINE, InlineQueue(runner, 1000, 1)) as queue:
        report = dispatch(now)

        assert (report.slices, report.due, report.failed) == (4, 0, 0)  # ceil(14 / 4) slices
        assert queue.drain(30)
        assert sorted(t.payload["subscriptionId"] for t in runs) == sorted(due)
        assert dispatch(now).due == 0


def test_a_tick_at_the_threshold_is_dispatched_in_place(db, monkeypatch, settings_env):
    settings_env(DISPATCH_FAN_OUT_ABOVE="10", DISPATCH_SLICE_SIZE="4")
    now = datetime.now(UTC)
    seed(now, 10)
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)

    report = dispatch(now)

    assert (report.slices, report.due, report.enqueued) == (0, 10, 10)
    assert {t.kind for t in queue.tasks} == {"tracking.run"}


class BreakingStream:
    """Stands in for ``stream_documents``: the first ``breaks`` streams fail with ``error``
    after ``after`` documents, as a dropped connection or a stream's deadline would; later
    ones are the real stream. Records how many documents each stream gave."""

    def __init__(self, error: Exception, after: int, breaks: int = 1) -> None:
        from common.adapters.firestore import stream_documents

        self.real, self.error, self.after, self.breaks = stream_documents, error, after, breaks
        self.given: list[int] = []

    def __call__(self, query, timeout):
        self.given.append(0)
        for document in self.real(query, timeout):
            if len(self.given) <= self.breaks and self.given[-1] == self.after:
                raise self.error
            self.given[-1] += 1
            yield document
        if len(self.given) <= self.breaks and self.given[-1] == self.after:
            raise self.error


@pytest.mark.parametrize("error", ["ServiceUnavailable", "DeadlineExceeded"])
def test_a_stream_that_breaks_is_resumed_after_the_last_document_read(
    db, monkeypatch, settings_env, error
):
    from google.api_core import exceptions

    settings_env(DISPATCH_PAGE_SIZE="3")
    now = datetime.now(UTC)
    due = seed(now, 20)
    queue = Collect()
    stream = BreakingStream(getattr(exceptions, error)("stream broke"), after=7, breaks=2)
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)
    monkeypatch.setattr("functions.tracking.dispatch.stream_documents", stream)

    report = dispatch(now)

    assert stream.given == [7, 7, 6]  # each stream resumed after the last document read
    assert (report.due, report.enqueued, report.failed) == (20, 20, 0)
    assert sorted(queue.subscriptions()) == sorted(due)  # once each: nothing read twice
    assert dispatch(now).due == 0


def test_a_stream_that_breaks_before_reading_anything_fails_the_tick(db, monkeypatch):
    from google.api_core.exceptions import ServiceUnavailable

    now = datetime.now(UTC)
    due = seed(now, 5)
    queue = Collect()
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)
    monkeypatch.setattr(
        "functions.tracking.dispatch.stream_documents",
        BreakingStream(ServiceUnavailable("down"), after=0, breaks=99),
    )

    with pytest.raises(ServiceUnavailable):
        dispatch(now)

    assert queue.tasks == []
    from common.adapters.firestore import stream_documents

    monkeypatch.setattr("functions.tracking.dispatch.stream_documents", stream_documents)
    assert dispatch(now).due == len(due)  # nothing was advanced: the next tick finds them all


def test_a_stream_past_its_deadline_is_resumed_on_the_real_channel(db, monkeypatch, settings_env):
    """The real gRPC stream, not a stand-in: the server is held back by flow control while the
    enqueuer is slow, the stream's deadline passes mid-range, and the reader resumes."""
    import time

    from common.adapters.firestore import stream_documents

    settings_env(DISPATCH_PAGE_SIZE="100")
    now = datetime.now(UTC)
    due = seed(now, 1500)
    streams: list[int] = []

    def counted(query, timeout):
        streams.append(0)
        for document in stream_documents(query, timeout):
            streams[-1] += 1
            yield document

    class SlowQueue(Collect):
        def __call__(self, tasks):
            # Two pages are enqueued at once and the server runs at most its window (a few
            # pages) ahead, so by the deadline (1 s) about 800-1,100 of 1,500 have been read.
            time.sleep(0.4)
            return super().__call__(tasks)

    queue = SlowQueue()
    monkeypatch.setattr("functions.tracking.dispatch.READ_TIMEOUT_S", 1.0)
    monkeypatch.setattr("functions.tracking.dispatch.stream_documents", counted)
    monkeypatch.setattr("functions.tracking.dispatch.enqueue_many", queue)

    report = dispatch(now)

    assert len(streams) > 1, "the deadline never cut a stream: nothing was resumed"
    assert sum(streams) == 1500  # every document read once, across the streams
    assert (report.due, report.enqueued, report.failed) == (1500, 1500, 0)
    assert sorted(queue.subscriptions()) == sorted(due)
    assert dispatch(now).due == 0
