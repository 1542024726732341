"""HTTP routes of the tracking group. Subscription management is free (not metered)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field

from common.adapters.templates import render
from common.catalog.topics import catalog as topic_catalog
from common.fields import Input
from common.http import Auth, Call, Html, Route, Tool
from functions.tasks.models import DispatchResult
from functions.tracking import pause, recipients, service
from functions.tracking.models import (
    Deleted,
    ListQuery,
    Subscription,
    SubscriptionCreate,
    SubscriptionEnvelope,
    SubscriptionList,
    SubscriptionPatch,
    SubscriptionPath,
    TopicCatalog,
    TopicInfo,
)

if TYPE_CHECKING:
    from common.accounts.internal import InternalCaller

BASE = "/v1/tracking/subscriptions"
CONFIRMATION_LIMIT = (
    "A `delivery_email` that is not yours and not yet confirmed gets one confirmation email; "
    "an account may cause CONFIRMATIONS_PER_DAY of them per UTC day (default 20). Past it: 429 "
    "`confirmation_limit` with `Retry-After` (until midnight UTC), and nothing is saved."
)


def list_topics(call: Call) -> TopicCatalog:
    topics = [
        TopicInfo(id=topic_id, name=topic.name, description=topic.description)
        for topic_id, topic in topic_catalog().items()
    ]
    return TopicCatalog(data=topics, total=len(topics))


def list_subscriptions(call: Call[None, ListQuery]) -> SubscriptionList:
    query = call.query
    consumer_id, email = call.principal.consumer_id, call.principal.email
    records, total, next_cursor = service.list_subscriptions(consumer_id, query.limit, query.cursor)
    found = recipients.statuses(consumer_id, email, [r["delivery_email"] for r in records])
    data = [_view(r, found[r["delivery_email"].lower()]) for r in records]
    return SubscriptionList(data=data, total=total, next_cursor=next_cursor)


def _refuse_opted_out(keywords: list[str] | None) -> None:
    """A keyword naming a person on the opt-out list: 403 ``subject_opted_out`` (0058)."""
    from common.subjects import optout

    if keywords:
        optout.refuse_named(list(keywords), "keywords")


def create_subscription(call: Call[SubscriptionCreate]) -> SubscriptionEnvelope:
    consumer_id, email = call.principal.consumer_id, call.principal.email
    _refuse_opted_out(call.body.custom_keywords)
    # A new recipient's confirmation email is counted before anything is saved (429 past
    # CONFIRMATIONS_PER_DAY), and given back if none is sent.
    place = recipients.take_place(consumer_id, email, call.body.delivery_email or email)
    try:
        record = service.create_subscription(consumer_id, email, call.body.model_dump())
    except BaseException:
        place.release()
        raise
    address = record["delivery_email"]
    status = recipients.request_confirmation(consumer_id, email, address, place=place)
    return SubscriptionEnvelope(data=_view(record, status))


def update_subscription(
    call: Call[SubscriptionPatch, None, SubscriptionPath],
) -> SubscriptionEnvelope:
    consumer_id, email = call.principal.consumer_id, call.principal.email
    changes = call.body.changes()
    _refuse_opted_out(call.body.custom_keywords)
    place = None
    if changes.get("delivery_email"):  # a new recipient: counted before anything is saved
        place = recipients.take_place(consumer_id, email, str(changes["delivery_email"]))
    try:
        record = service.update_subscription(consumer_id, str(call.path.id), changes)
    except BaseException:
        if place is not None:
            place.release()
        raise
    address = record["delivery_email"]
    if "delivery_email" in changes or changes.get("active") is True:
        status = recipients.request_confirmation(consumer_id, email, address, place=place)
    else:
        status = recipients.status(consumer_id, email, address)
    return SubscriptionEnvelope(data=_view(record, status))


def _view(record: dict[str, Any], delivery_status: str) -> Subscription:
    return Subscription.model_validate({**record, "delivery_status": delivery_status})


def delete_subscription(call: Call[None, None, SubscriptionPath]) -> Deleted:
    service.delete_subscription(call.principal.consumer_id, str(call.path.id))
    return Deleted(deleted=True)


class LinkQuery(Input):
    token: str = Field(min_length=1, max_length=512, description="From the email's link.")


# An email link's page or action: public (the token is the credential), no caller.
LinkCall = Call[None, LinkQuery, None, None]


def _link_page(check: Callable[[str], object], template: str) -> Callable[[LinkCall], Html]:
    """GET of an email link: checks the token and shows a button that POSTs it (a GET changes
    nothing, so link scanners that prefetch URLs act for nobody)."""

    def show(call: LinkCall) -> Html:
        check(call.query.token)
        return Html(render(template, token=call.query.token))

    return show


def _link_action(act: Callable[[str], object], template: str) -> Callable[[LinkCall], Html]:
    """POST of an email link (the page's button, or a mail client's RFC 8058 one-click)."""

    def perform(call: LinkCall) -> Html:
        act(call.query.token)
        return Html(render(template))

    return perform


pause_page = _link_page(pause.check, "pause_confirm.html.j2")
pause_subscription = _link_action(pause.pause, "pause_done.html.j2")
confirm_page = _link_page(recipients.check_confirm, "confirm_page.html.j2")
confirm_recipient = _link_action(recipients.confirm, "confirm_done.html.j2")
unsubscribe_page = _link_page(recipients.check_unsubscribe, "unsubscribe_page.html.j2")
unsubscribe_address = _link_action(recipients.unsubscribe, "unsubscribe_done.html.j2")


def dispatch_now(call: Call[None, None, None, InternalCaller]) -> DispatchResult:
    from functions.tracking.dispatch import dispatch

    return DispatchResult(**dispatch().as_dict())


ROUTES = (
    Route(
        method="GET",
        path="/v1/tracking/topics",
        handler=list_topics,
        operation_id="listTrackingTopics",
        summary="List the topic identifiers a subscription may use",
        tag="Tracking",
        response=TopicCatalog,
    ),
    Route(
        method="GET",
        path=BASE,
        handler=list_subscriptions,
        operation_id="listSubscriptions",
        tools=(Tool("list_tracking_subscriptions", read_only=True, idempotent=True),),
        summary="List your tracking subscriptions, newest first",
        tag="Tracking",
        query=ListQuery,
        response=SubscriptionList,
    ),
    Route(
        method="POST",
        path=BASE,
        handler=create_subscription,
        operation_id="createSubscription",
        tools=(Tool("create_tracking_subscription"),),
        summary="Create a tracking subscription (active, first digest at the next tick)",
        tag="Tracking",
        body=SubscriptionCreate,
        response=SubscriptionEnvelope,
        status=201,
        errors=(403, 409, 429, 503),
        description=CONFIRMATION_LIMIT,
    ),
    Route(
        method="PATCH",
        path=BASE + "/{id}",
        handler=update_subscription,
        operation_id="updateSubscription",
        tools=(
            Tool(
                "pause_tracking_subscription",
                idempotent=True,
                fixed={"active": False},
                body_fields=(),
            ),
            Tool(
                "resume_tracking_subscription",
                idempotent=True,
                fixed={"active": True},
                body_fields=(),
            ),
        ),
        summary="Change the supplied fields; active false pauses, true resumes",
        tag="Tracking",
        body=SubscriptionPatch,
        path_params=SubscriptionPath,
        response=SubscriptionEnvelope,
        errors=(403, 409, 429),
        description=CONFIRMATION_LIMIT,
    ),
    Route(
        method="DELETE",
        path=BASE + "/{id}",
        handler=delete_subscription,
        operation_id="deleteSubscription",
        summary="Delete a subscription and all its results",
        tag="Tracking",
        path_params=SubscriptionPath,
        response=Deleted,
        errors=(503,),
    ),
    Route(
        method="GET",
        path="/v1/tracking/pause",
        handler=pause_page,
        operation_id="showPauseLink",
        summary="The page a digest's pause link opens: asks to confirm (changes nothing)",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(410,),
    ),
    Route(
        method="POST",
        path="/v1/tracking/pause",
        handler=pause_subscription,
        operation_id="pauseByLink",
        summary="One-click pause from a digest email (RFC 8058); each link works once",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(404, 410, 503),  # 503: a change that met others until its deadline (0064)
    ),
    Route(
        method="GET",
        path="/v1/tracking/confirm",
        handler=confirm_page,
        operation_id="showConfirmLink",
        summary="The page a confirmation email's link opens: asks to confirm (changes nothing)",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(404,),
    ),
    Route(
        method="POST",
        path="/v1/tracking/confirm",
        handler=confirm_recipient,
        operation_id="confirmRecipient",
        summary="The recipient agrees to receive the digests sent to their address",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(404, 410, 503),  # 503: a change that met others until its deadline (0064)
    ),
    Route(
        method="GET",
        path="/v1/tracking/unsubscribe",
        handler=unsubscribe_page,
        operation_id="showUnsubscribeLink",
        summary="The page an email's unsubscribe link opens: asks to confirm (changes nothing)",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(404,),
    ),
    Route(
        method="POST",
        path="/v1/tracking/unsubscribe",
        handler=unsubscribe_address,
        operation_id="unsubscribeAddress",
        summary="Stop all email from this service to the address (RFC 8058 one-click); no "
        "subscription can override it",
        tag="Tracking",
        auth=Auth.NONE,
        query=LinkQuery,
        errors=(404,),
    ),
)

DISPATCH_ROUTES = (
    Route(
        method="POST",
        path="/internal/dispatch",
        handler=dispatch_now,
        operation_id="dispatchTracking",
        summary="Enqueue a run for every due subscription (Cloud Scheduler only)",
        tag="Internal",
        auth=Auth.SCHEDULER,
        response=DispatchResult,
    ),
)
