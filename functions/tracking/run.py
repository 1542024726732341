"""One research run of a tracking subscription: gather, drop what was sent, rank, summarise,
send the digest once, record the results.

A run is the task ``run-<subscription id>-<due time>``: the dispatcher names it, so a second
enqueue of the same run is a no-op and the task record makes a second delivery one too. A run
of a deleted or paused subscription (or of a consumer no longer active) ends as ``skipped``
and is not metered. Every run that did the research is metered to the owner, whether or not
it found something new; a run with nothing new sends nothing, but is recorded.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel, Field

from common.accounts.consumers import get_consumer
from common.adapters.firestore import RESULTS, SUBSCRIPTIONS, get_db
from common.adapters.tasks import Job, Task
from common.config import get_settings
from common.errors import BackendUnavailable
from functions.tasks import records
from functions.tasks.email_once import email_state, recover, send_once
from functions.tracking import recipients

logger = logging.getLogger("ars.tracking")

KIND = "tracking.run"
OPERATION = "tracking.research_run"


def run_id(subscription_id: str, due: datetime) -> str:
    return f"run-{subscription_id}-{int(due.timestamp())}"


def run_task(subscription_id: str, owner_id: str, due: datetime) -> Task:
    return Task(
        run_id(subscription_id, due),
        KIND,
        {"subscriptionId": subscription_id, "ownerId": owner_id, "due": due.isoformat()},
    )


class RunPayload(BaseModel):
    subscriptionId: UUID
    ownerId: str = Field(min_length=1, max_length=128)
    due: str = Field(max_length=64)


def run_subscription(task: Task) -> str:
    payload = RunPayload.model_validate(task.payload)  # ValidationError: the worker drops it
    sub_id, owner_id = str(payload.subscriptionId), payload.ownerId
    record = records.claim(
        task.task_id,
        {"kind": KIND, "owner_id": owner_id, "subscription_id": sub_id, "due": payload.due},
    )
    if record is None:
        return "duplicate"
    run = _Run(task.task_id, sub_id, owner_id)
    if record["email"]["state"] == "sending":
        return recover(task.task_id, record, run.finish_sent)
    subscription = run.subscription()
    if subscription is None:
        return run.skip("deleted")
    if not subscription.get("active"):
        return run.skip("paused")
    consumer = get_consumer(owner_id)
    if consumer is None or consumer.get("status") != "active":
        return run.skip("owner_inactive")
    run.owner_email = consumer.get("email") or ""
    address = subscription.get("delivery_email") or ""
    state = recipients.status(owner_id, run.owner_email, address)
    if state == recipients.SUPPRESSED:
        return run.skip("suppressed")
    if state == recipients.PENDING:
        # Asks only an address never asked (e.g. the first request could not be queued).
        recipients.request_confirmation(owner_id, run.owner_email, address, unless_asked=True)
        return run.skip("unconfirmed")
    return run.research(record, subscription)


class _Run:
    def __init__(self, task_id: str, sub_id: str, owner_id: str) -> None:
        self.task_id = task_id
        self.owner_id = owner_id
        self.owner_email = ""
        self.address = ""  # the address the digest is built for, checked again as it is sent
        self.sub_ref = get_db().collection(SUBSCRIPTIONS).document(sub_id)

    def subscription(self) -> dict[str, Any] | None:
        snapshot = self.sub_ref.get()
        record = snapshot.to_dict() if snapshot.exists else None
        return record if record and record.get("user_id") == self.owner_id else None

    def skip(self, reason: str) -> str:
        records.finish(self.task_id, status="skipped", result={"reason": reason, "sent": False})
        return f"skipped_{reason}"

    def research(self, record: dict[str, Any], subscription: dict[str, Any]) -> str:
        from common.subjects import optout
        from functions.research.gather import gather
        from functions.research.overview import OverviewItem
        from functions.research.overview import write as write_overview
        from functions.research.summaries import summarise_items

        # A keyword naming a person who opted out since the subscription was made is not
        # searched, and the digest no longer names it (decision 0058).
        subscription = {
            **subscription,
            "custom_keywords": optout.without_named(subscription.get("custom_keywords") or []),
        }
        gathered = gather(
            subscription.get("topics") or [],
            subscription.get("custom_keywords") or [],
            subscription.get("specific_interests"),
            limit=get_settings().digest_max_items,
            exclude=self.already_sent,
            known=optout.screen_known(),
        )
        if gathered.all_failed:
            raise BackendUnavailable("Every news source failed; the run will be retried.")
        base = {"sources": gathered.sources, "failedSources": gathered.failed}
        if not gathered.items:
            records.finish(  # nothing sent, nothing billed (decision 0039): noted as such
                self.task_id,
                status="succeeded",
                result={**base, "items": 0, "sent": False},
                unbilled=(self.owner_id, OPERATION),
            )
            return "nothing_new"
        summaries = summarise_items([ranked.item for ranked in gathered.items])
        items = [
            {**ranked.item.as_dict(), "summary": summaries[ranked.item.id], "score": ranked.score}
            for ranked in gathered.items
        ]
        # "What's new" says what the items show; the subscriber's specific_interests steered
        # the ranking only and never reach it (decision 0027).
        overview = write_overview([OverviewItem.of(r) for r in gathered.items], fresh="new")
        pending = {**base, "items": items}
        return send_once(
            self.task_id,
            record,
            self.digest(subscription, items, overview.text),
            pending,
            self.finish_sent,
            guard=self.still_wanted,
        )

    def still_wanted(self, transaction: Any) -> str | None:
        """Checked as the send begins: a subscription paused or deleted, its address changed,
        or the address suppressed or no longer confirmed, during the research gets no digest
        (the run ends skipped, not metered). The address checked is the one the digest goes
        to: a digest is never sent to an address its owner has just replaced."""
        snapshot = self.sub_ref.get(transaction=transaction)
        if not snapshot.exists:
            return "deleted"
        subscription = snapshot.to_dict() or {}
        if not subscription.get("active"):
            return "paused"
        current = subscription.get("delivery_email") or ""
        if current.strip().lower() != self.address.strip().lower():
            return "address_changed"
        return recipients.blocked(self.owner_id, self.owner_email, self.address)

    def already_sent(self, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        results = self.sub_ref.collection(RESULTS)
        refs = [results.document(item_id) for item_id in ids]
        return {snap.id for snap in get_db().get_all(refs) if snap.exists}

    def digest(
        self, subscription: dict[str, Any], items: list[dict[str, Any]], overview: str = ""
    ) -> Any:
        from common.adapters.email import Email
        from functions.tracking.digest import DigestItem, list_unsubscribe_headers, render_digest
        from functions.tracking.pause_token import make_token, pause_url

        if not get_settings().public_base_url:
            raise BackendUnavailable("PUBLIC_BASE_URL is not set: a digest needs its pause link.")
        link = pause_url(make_token(subscription["id"], self.task_id))
        address = self.address = subscription["delivery_email"]
        subject, text, html = render_digest(
            subscription,
            [
                DigestItem(
                    title=item["title"],
                    link=item["link"],
                    source=item["source"],
                    published=_datetime(item.get("published")),
                    summary=item["summary"],
                )
                for item in items
            ],
            link,
            unsubscribe_link=recipients.unsubscribe_link(address),
            own_address=recipients.is_own(address, self.owner_email),
            overview=overview,
        )
        return Email(
            to=address,
            subject=subject,
            text=text,
            html=html,
            headers=list_unsubscribe_headers(link),
            custom_args={"task_id": self.task_id},
            category="tracking-digest",
        )

    def finish_sent(self, pending: dict[str, Any], message_id: str | None, assumed: bool) -> None:
        now = datetime.now(UTC)
        items = pending.get("items") or []

        def keep_results(transaction: Any) -> None:
            if not self.sub_ref.get(transaction=transaction).exists:
                return  # deleted while the run was sending: nothing of it is kept
            for item in items:
                result = {**item, "sent_at": now, "task_id": self.task_id}
                transaction.set(self.sub_ref.collection(RESULTS).document(item["id"]), result)
            transaction.update(self.sub_ref, {"last_sent_at": now})

        records.finish(
            self.task_id,
            status="succeeded",
            result={
                "sources": pending.get("sources"),
                "failedSources": pending.get("failedSources", []),
                "items": len(items),
                "sent": True,
            },
            email=email_state(message_id, assumed),
            meter=(self.owner_id, OPERATION),
            apply=keep_results,
        )


def _datetime(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


JOB = Job(KIND, run_subscription)
