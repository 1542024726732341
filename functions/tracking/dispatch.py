"""The dispatcher: called on every tick (Cloud Scheduler; locally a ticker and `admin tick`).

It pages through active subscriptions whose ``next_run_at`` is before the tick, enqueues one
run task each (named after the subscription and its due time, so a second enqueue is a no-op),
then advances ``next_run_at`` of the ones the queue accepted: daily by 24 h, weekly by 7 days,
realtime to the tick itself (due again on the next tick). A subscription that fell behind
(paused for a while, or the queue was down) is moved one interval past the tick, never
dispatched once per missed interval.

Enqueue first, advance second: if advancing fails, the next tick enqueues the same run name
again, which is a no-op; if enqueuing fails, ``next_run_at`` stays and the next tick retries.
Memory stays bounded: one page (``DISPATCH_PAGE_SIZE``, at most 500 -- one write batch) of
three fields per subscription is held at a time, and the report keeps counts only.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from common.config import get_settings
from common.firestore import SUBSCRIPTIONS, field_filter, get_db, where_eq
from common.tasks import Enqueued, enqueue_many
from functions.tracking.run import run_task
from functions.tracking.service import INTERVALS

logger = logging.getLogger("ars.dispatch")


@dataclass
class DispatchReport:
    due: int = 0
    enqueued: int = 0
    duplicates: int = 0
    failed: int = 0
    pages: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def next_run(due: datetime, frequency: str, tick: datetime) -> datetime:
    """The next due time after a run due at ``due`` was dispatched on ``tick``."""
    interval = INTERVALS.get(frequency, INTERVALS["daily"])
    following = due + interval
    return following if following > tick else tick + interval


def dispatch(tick: datetime | None = None) -> DispatchReport:
    from google.cloud.firestore import Query

    started = time.perf_counter()
    tick = tick or datetime.now(UTC)
    page_size = get_settings().dispatch_page_size
    due = (
        get_db()
        .collection(SUBSCRIPTIONS)
        .where(filter=where_eq("active", True))
        .where(filter=field_filter("next_run_at", "<", tick))
        .order_by("next_run_at", direction=Query.ASCENDING)
        .order_by("__name__", direction=Query.ASCENDING)
        .select(["user_id", "frequency", "next_run_at"])
        .limit(page_size)
    )
    report = DispatchReport()
    last = None
    while True:
        docs = list((due.start_after(last) if last is not None else due).stream())
        if not docs:
            break
        report.pages += 1
        report.due += len(docs)
        _dispatch_page(docs, tick, report)
        last = docs[-1]
        if len(docs) < page_size:
            break
    report.seconds = round(time.perf_counter() - started, 3)
    logger.info("dispatched", extra=report.as_dict())
    return report


def _dispatch_page(docs: list[Any], tick: datetime, report: DispatchReport) -> None:
    fields = [doc.to_dict() for doc in docs]
    tasks = [
        run_task(doc.id, f["user_id"], f["next_run_at"])
        for doc, f in zip(docs, fields, strict=True)
    ]
    outcomes = enqueue_many(tasks)
    advances = []
    for doc, f, outcome in zip(docs, fields, outcomes, strict=True):
        if outcome is Enqueued.FAILED:
            report.failed += 1
            continue
        report.enqueued += outcome is Enqueued.CREATED
        report.duplicates += outcome is Enqueued.EXISTS
        when = next_run(f["next_run_at"], f["frequency"], tick)
        advances.append((doc.reference, doc.update_time, when))
    _advance(advances)


def _advance(advances: list[tuple[Any, Any, datetime]]) -> None:
    """One batch for the page, each update conditional on the subscription being unchanged
    since it was read. If one changed meanwhile (a PATCH of its frequency, a pause, a delete:
    the batch fails), the others are advanced one by one and the changed ones are left for the
    next tick to read again -- their run name is the same, so nothing is enqueued twice."""
    from google.api_core.exceptions import FailedPrecondition, NotFound

    if not advances:
        return
    db = get_db()
    batch = db.batch()
    for ref, read_at, when in advances:
        batch.update(ref, {"next_run_at": when}, option=db.write_option(last_update_time=read_at))
    try:
        batch.commit()
    except (NotFound, FailedPrecondition):
        for ref, read_at, when in advances:
            try:
                ref.update({"next_run_at": when}, option=db.write_option(last_update_time=read_at))
            except (NotFound, FailedPrecondition):
                continue
