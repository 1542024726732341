"""The dispatcher: called on every tick (Cloud Scheduler; locally a ticker and `admin tick`).

It pages through active subscriptions whose ``next_run_at`` is before the tick, enqueues one
run task each (named after the subscription and its due time, so a second enqueue is a no-op),
then advances ``next_run_at`` of the ones the queue accepted: daily by 24 h, weekly by 7 days,
realtime to the tick itself (due again on the next tick). A subscription that fell behind
(paused for a while, or the queue was down) is moved one interval past the tick, never
dispatched once per missed interval.

Enqueue first, advance second: if advancing fails, the next tick enqueues the same run name
again, which is a no-op; if enqueuing fails, ``next_run_at`` stays and the next tick retries.
Memory stays bounded: a page (``DISPATCH_PAGE_SIZE``, at most 500 -- one write batch) of three
fields per subscription, at most five pages at a time (read ahead, being read, two enqueuing,
one advancing: the stages overlap so the queue is kept busy, decision 0036), gRPC's default
window of the query stream, and the report keeps counts only.

Past one instance (decision 0035): above ``DISPATCH_FAN_OUT_ABOVE`` due subscriptions the tick
cuts the due order into slices of ``DISPATCH_SLICE_SIZE`` (half-open cursor ranges, so no
overlap and no gap) and enqueues one ``tracking.dispatch_slice`` task per slice; the task
worker dispatches each range like the tick does (``run_slice``). The inline backend of
``make run`` runs the same slice tasks in process.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from common.adapters.firestore import (
    SUBSCRIPTIONS,
    field_filter,
    get_db,
    stream_documents,
    where_eq,
)
from common.adapters.tasks import Enqueued, Job, Task, enqueue_many
from common.config import get_settings
from functions.tracking.run import run_task
from functions.tracking.service import INTERVALS

logger = logging.getLogger("ars.dispatch")

SLICE_KIND = "tracking.dispatch_slice"
FIELDS = ["user_id", "frequency", "next_run_at"]

Cursor = tuple[datetime, str]  # a position in the due order: (next_run_at, subscription id)


@dataclass
class DispatchReport:
    due: int = 0
    enqueued: int = 0
    duplicates: int = 0
    failed: int = 0
    pages: int = 0
    slices: int = 0  # slice tasks enqueued (a fanned-out tick) or run (a slice task)
    seconds: float = 0.0
    # Where the time went, summed per stage. The stages overlap, so together they add up to
    # more than ``seconds``: the slowest one is what bounds a tick.
    query_s: float = 0.0
    enqueue_s: float = 0.0
    advance_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            name: round(value, 3) if isinstance(value, float) else value
            for name, value in asdict(self).items()
        }


def next_run(due: datetime, frequency: str, tick: datetime) -> datetime:
    """The next due time after a run due at ``due`` was dispatched on ``tick``."""
    interval = INTERVALS.get(frequency, INTERVALS["daily"])
    following = due + interval
    return following if following > tick else tick + interval


def dispatch(tick: datetime | None = None) -> DispatchReport:
    """One tick: up to ``DISPATCH_FAN_OUT_ABOVE`` due subscriptions are dispatched here, more
    are cut into slices of ``DISPATCH_SLICE_SIZE`` that the task queue hands to workers."""
    started = time.perf_counter()
    tick = tick or datetime.now(UTC)
    settings = get_settings()
    report = DispatchReport()
    above = settings.dispatch_fan_out_above
    if above and _more_due_than(tick, above):
        _fan_out(tick, settings.dispatch_slice_size, report)
    else:
        dispatch_range(tick, None, None, report)
    report.seconds = time.perf_counter() - started
    logger.info("dispatched", extra=report.as_dict())
    return report


def _due(tick: datetime) -> Any:
    """Active subscriptions due before ``tick``, in the total order (next_run_at, id)."""
    from google.cloud.firestore import Query

    return (
        get_db()
        .collection(SUBSCRIPTIONS)
        .where(filter=where_eq("active", True))
        .where(filter=field_filter("next_run_at", "<", tick))
        .order_by("next_run_at", direction=Query.ASCENDING)
        .order_by("__name__", direction=Query.ASCENDING)
    )


def _more_due_than(tick: datetime, count: int) -> bool:
    """A count aggregation that stops after ``count + 1`` index entries."""
    answer = _due(tick).limit(count + 1).count().get(timeout=SCAN_TIMEOUT_S)
    return int(answer[0][0].value) > count


# --- one range of the due order, pipelined ----------------------------------------------------


# The range is one query, streamed at the enqueuer's pace, so it outlives FIRESTORE_TIMEOUT_S (a
# per-RPC bound). Each stream gets this deadline; when it passes (or the stream breaks), the
# reader resumes after the last document it read, so a range of any length takes one query per
# minute instead of one per few thousand documents (each query costs the server a scan on the
# emulator: 0.19 ms per subscription in 5,000-document queries at 100,000, 0.03 ms in one).
READ_TIMEOUT_S = 60.0
# The count and each slice boundary scan up to DISPATCH_FAN_OUT_ABOVE / DISPATCH_SLICE_SIZE index
# entries on the server: quick in Firestore, seconds on the emulator with 100,000 documents.
SCAN_TIMEOUT_S = 60.0


def dispatch_range(
    tick: datetime, start: Cursor | None, end: Cursor | None, report: DispatchReport
) -> None:
    """Dispatch the due subscriptions from ``start`` (included) to ``end`` (excluded); None is
    the beginning, or the end, of the due order.

    Four stages overlap, each on its own thread: a reader streams the range (one query,
    resumed where it broke, read as plain protobuf documents) and hands over one page at a
    time; two pages are enqueued at once on the process's enqueue threads, so the threads do
    not idle while a page's last calls finish; the page before them is advanced meanwhile.
    At most five pages are held (one read ahead, one being read, two enqueuing, one
    advancing), so memory does not grow with the range. Reading ahead is safe: the cursor is
    a position in the due order, and an advanced subscription leaves the order (its
    ``next_run_at`` is no longer before the tick) without moving the ones after it."""
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    page_size = get_settings().dispatch_page_size
    query = _due(tick).select(FIELDS)
    if start is not None:
        query = query.start_at(list(start))
    if end is not None:
        query = query.end_before(list(end))
    reader = _PageReader(query, page_size)
    enqueuer = ThreadPoolExecutor(max_workers=2, thread_name_prefix="dispatch-enqueue")
    advancer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dispatch-advance")
    enqueuing: deque[Future[_Page]] = deque()
    advancing: Future[float] | None = None

    def advance_oldest() -> None:
        nonlocal advancing
        enqueued = enqueuing.popleft().result()
        enqueued.count_into(report)
        if advancing is not None:
            report.advance_s += advancing.result()
        advancing = advancer.submit(_advance, enqueued.advances)

    try:
        for page in reader:
            report.pages += 1
            report.due += len(page)
            enqueuing.append(enqueuer.submit(_enqueue_page, page, tick))
            if len(enqueuing) == 2:
                advance_oldest()
        while enqueuing:
            advance_oldest()
        if advancing is not None:
            report.advance_s += advancing.result()
    finally:
        reader.close()
        enqueuer.shutdown(wait=True)
        advancer.shutdown(wait=True)
        report.query_s += reader.seconds


class _Due(NamedTuple):
    """A due subscription as read: its document's name and ``update_time`` (the advance's
    precondition) and the three fields the dispatcher needs."""

    name: str
    read_at: Any  # protobuf Timestamp
    user_id: str
    frequency: str
    due: datetime

    @property
    def id(self) -> str:
        return self.name.rsplit("/", 1)[1]

    @classmethod
    def of(cls, document: Any) -> _Due:
        from google.api_core.datetime_helpers import DatetimeWithNanoseconds

        fields = document.fields
        return cls(
            document.name,
            document.update_time,
            fields["user_id"].string_value,
            fields["frequency"].string_value,
            DatetimeWithNanoseconds.from_timestamp_pb(fields["next_run_at"].timestamp_value),
        )


class _PageReader:
    """Streams ``query`` in a thread and yields pages of ``page_size``; one page waits ahead
    (a bounded hand-over), so the stream follows the caller's pace. A stream that breaks or
    reaches ``READ_TIMEOUT_S`` is resumed after the last document read; one that breaks before
    reading anything, or any other error, is raised to the caller."""

    _END = object()

    def __init__(self, query: Any, page_size: int) -> None:
        import queue
        import threading

        self._query, self._page_size = query, page_size
        self._pages: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self.seconds = 0.0  # time spent reading, not waiting for the caller
        self._thread = threading.Thread(target=self._read, name="dispatch-read", daemon=True)
        self._thread.start()

    def __iter__(self) -> Iterator[list[_Due]]:
        while True:
            item = self._pages.get()
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _hand_over(self, item: Any) -> bool:
        import queue

        while not self._stop.is_set():
            try:
                self._pages.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read(self) -> None:
        from google.api_core.exceptions import DeadlineExceeded, ServiceUnavailable

        page: list[_Due] = []
        last: _Due | None = None  # the last document read: where a resumed stream starts
        try:
            while not self._stop.is_set():
                query = self._query
                if last is not None:
                    query = query.start_after([last.due, last.id])
                began, progress = time.perf_counter(), last
                try:
                    for document in stream_documents(query, READ_TIMEOUT_S):
                        last = _Due.of(document)
                        page.append(last)
                        if len(page) == self._page_size:
                            self.seconds += time.perf_counter() - began
                            if not self._hand_over(page):
                                return
                            page = []
                            began = time.perf_counter()
                except (DeadlineExceeded, ServiceUnavailable):
                    if last is progress:  # not one document since the last (re)start
                        raise
                    continue  # resume after the last document read
                finally:
                    self.seconds += time.perf_counter() - began
                break
            if page and not self._hand_over(page):
                return
        except Exception as exc:  # raised to the caller, in its thread
            self._hand_over(exc)
            return
        self._hand_over(self._END)


@dataclass
class _Page:
    """What enqueuing a page gave: counts for the report, and the advances to write."""

    advances: list[tuple[_Due, datetime]]
    enqueued: int = 0
    duplicates: int = 0
    failed: int = 0
    seconds: float = 0.0

    def count_into(self, report: DispatchReport) -> None:
        report.enqueued += self.enqueued
        report.duplicates += self.duplicates
        report.failed += self.failed
        report.enqueue_s += self.seconds


def _enqueue_page(page: list[_Due], tick: datetime) -> _Page:
    began = time.perf_counter()
    outcomes = enqueue_many([run_task(due.id, due.user_id, due.due) for due in page])
    result = _Page([])
    for due, outcome in zip(page, outcomes, strict=True):
        if outcome is Enqueued.FAILED:
            result.failed += 1
            continue
        result.enqueued += outcome is Enqueued.CREATED
        result.duplicates += outcome is Enqueued.EXISTS
        result.advances.append((due, next_run(due.due, due.frequency, tick)))
    result.seconds = time.perf_counter() - began
    return result


def _advance(advances: list[tuple[_Due, datetime]]) -> float:
    """One batch for the page, each update conditional on the subscription being unchanged
    since it was read. If one changed meanwhile (a PATCH of its frequency, a pause, a delete:
    the batch fails), the others are advanced one by one and the changed ones are left for the
    next tick to read again -- their run name is the same, so nothing is enqueued twice.
    Returns the seconds it took."""
    from google.api_core.exceptions import FailedPrecondition, NotFound

    began = time.perf_counter()
    if not advances:
        return 0.0
    writes = [_advance_write(due, when) for due, when in advances]
    try:
        _commit(writes)
    except (NotFound, FailedPrecondition):
        for one in writes:
            try:
                _commit([one])
            except (NotFound, FailedPrecondition):
                continue
    return time.perf_counter() - began


def _commit(writes: list[Any]) -> None:
    batch = get_db().batch()
    batch._add_write_pbs(writes)
    batch.commit()


def _advance_write(due: _Due, when: datetime) -> Any:
    """The write ``update({"next_run_at": when}, option=last_update_time(read_at))`` makes,
    built as a plain protobuf: the library's path (field paths, proto-plus wrappers) costs
    0.23 ms of CPU per subscription, this one 0.004 ms (measured, decisions 0035 and 0036). It
    uses the batch's ``_add_write_pbs``, a private method of the pinned client; the conditional
    advance tests in tests/emulator/test_delivery.py and test_dispatch_slices.py fail if it
    breaks."""
    from google.cloud.firestore_v1.types import write

    message = write.Write.pb()()
    message.update.name = due.name
    message.update.fields["next_run_at"].timestamp_value.FromDatetime(when)
    message.update_mask.field_paths.append("next_run_at")
    message.current_document.update_time.CopyFrom(due.read_at)
    return message


# --- fan-out ------------------------------------------------------------------------------------


def plan_slices(tick: datetime, size: int) -> Iterator[tuple[Cursor | None, Cursor | None]]:
    """Cut the due order into half-open ranges of ``size`` subscriptions (the last may hold
    fewer): each starts exactly where the previous one ends, the first at the beginning and
    the last at the end, so together they hold every due subscription once. One query per
    slice returns one document: the first of the next slice, found by skipping ``size`` index
    entries on the server."""
    query = _due(tick).select(["next_run_at"]).offset(size).limit(1)
    start: Cursor | None = None
    while True:
        query_from = query.start_at(list(start)) if start is not None else query
        found = list(query_from.stream(timeout=SCAN_TIMEOUT_S))
        end: Cursor | None = (found[0].get("next_run_at"), found[0].id) if found else None
        yield start, end
        if end is None:
            return
        start = end


def slice_task(tick: datetime, index: int, start: Cursor | None, end: Cursor | None) -> Task:
    """Named after the tick and its index, so enqueuing the same slice twice is a no-op. A
    hashed prefix spreads the names, as Cloud Tasks asks of named tasks."""
    stamp = f"{int(tick.timestamp() * 1_000_000)}-{index}"
    prefix = hashlib.sha256(stamp.encode()).hexdigest()[:8]
    return Task(
        f"slice-{prefix}-{stamp}",
        SLICE_KIND,
        {"tick": _instant(tick), "start": _cursor_out(start), "end": _cursor_out(end)},
    )


SLICE_BATCH = 16  # slice tasks enqueued together while the plan goes on


def _fan_out(tick: datetime, size: int, report: DispatchReport) -> None:
    pending: list[Task] = []

    def flush() -> None:
        began = time.perf_counter()
        outcomes = enqueue_many(pending)
        report.enqueue_s += time.perf_counter() - began
        report.slices += sum(outcome is not Enqueued.FAILED for outcome in outcomes)
        report.failed += sum(outcome is Enqueued.FAILED for outcome in outcomes)
        pending.clear()

    began = time.perf_counter()
    for index, (start, end) in enumerate(plan_slices(tick, size)):
        report.query_s += time.perf_counter() - began
        pending.append(slice_task(tick, index, start, end))
        if len(pending) >= SLICE_BATCH:
            flush()
        began = time.perf_counter()
    if pending:
        flush()
    # A slice the queue refused is not lost: its subscriptions stay due for the next tick.


def _checked_instant(text: str) -> str:
    _parse_instant(text)  # a ValueError here is a ValidationError of the payload
    return text


Instant = Annotated[str, StringConstraints(max_length=64), AfterValidator(_checked_instant)]


class _CursorIn(BaseModel):
    at: Instant
    id: str = Field(min_length=1, max_length=128, pattern=r"^[^/]+$")


class SlicePayload(BaseModel):
    tick: Instant
    start: _CursorIn | None
    end: _CursorIn | None


def run_slice(task: Task) -> str:
    """The task worker's job for a slice: dispatch its range. A retried slice finds only what
    an earlier attempt did not advance, and run names make any second enqueue a no-op."""
    payload = SlicePayload.model_validate(task.payload)  # ValidationError: the worker drops it
    tick = _parse_instant(payload.tick)
    report = DispatchReport(slices=1)
    started = time.perf_counter()
    dispatch_range(tick, _cursor_in(payload.start), _cursor_in(payload.end), report)
    report.seconds = time.perf_counter() - started
    logger.info("slice dispatched", extra={"taskId": task.task_id, **report.as_dict()})
    return "dispatched"


def _instant(value: datetime) -> str:
    """RFC 3339 with every digit Firestore keeps (nanoseconds), so a cursor is exact."""
    rfc3339 = getattr(value, "rfc3339", None)
    if rfc3339 is not None:
        return str(rfc3339())
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_instant(text: str) -> datetime:
    from google.api_core.datetime_helpers import DatetimeWithNanoseconds

    return DatetimeWithNanoseconds.from_rfc3339(text)


def _cursor_out(cursor: Cursor | None) -> dict[str, str] | None:
    return None if cursor is None else {"at": _instant(cursor[0]), "id": cursor[1]}


def _cursor_in(cursor: _CursorIn | None) -> Cursor | None:
    return None if cursor is None else (_parse_instant(cursor.at), cursor.id)


JOB = Job(SLICE_KIND, run_slice)
