"""HTTP routes of the tracking group. Subscription management is free (not metered)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from common.http import Auth, Call, Html, Route
from common.models import Input
from common.templates import render
from common.topics import catalog as topic_catalog
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

BASE = "/v1/tracking/subscriptions"


def list_topics(call: Call) -> TopicCatalog:
    topics = [
        TopicInfo(id=topic_id, name=topic.name, description=topic.description)
        for topic_id, topic in topic_catalog().items()
    ]
    return TopicCatalog(data=topics, total=len(topics))


def list_subscriptions(call: Call) -> SubscriptionList:
    query: ListQuery = call.query
    consumer_id, email = call.principal.consumer_id, call.principal.email
    records, total, next_cursor = service.list_subscriptions(consumer_id, query.limit, query.cursor)
    found = recipients.statuses(consumer_id, email, [r["delivery_email"] for r in records])
    data = [_view(r, found[r["delivery_email"].lower()]) for r in records]
    return SubscriptionList(data=data, total=total, next_cursor=next_cursor)


def create_subscription(call: Call) -> SubscriptionEnvelope:
    body: SubscriptionCreate = call.body
    consumer_id, email = call.principal.consumer_id, call.principal.email
    record = service.create_subscription(consumer_id, email, body.model_dump())
    status = recipients.request_confirmation(consumer_id, email, record["delivery_email"])
    return SubscriptionEnvelope(data=_view(record, status))


def update_subscription(call: Call) -> SubscriptionEnvelope:
    body: SubscriptionPatch = call.body
    consumer_id, email = call.principal.consumer_id, call.principal.email
    changes = body.changes()
    record = service.update_subscription(consumer_id, str(call.path.id), changes)
    address = record["delivery_email"]
    if "delivery_email" in changes or changes.get("active") is True:
        status = recipients.request_confirmation(consumer_id, email, address)
    else:
        status = recipients.status(consumer_id, email, address)
    return SubscriptionEnvelope(data=_view(record, status))


def _view(record: dict, delivery_status: str) -> Subscription:
    return Subscription.model_validate({**record, "delivery_status": delivery_status})


def delete_subscription(call: Call) -> Deleted:
    service.delete_subscription(call.principal.consumer_id, str(call.path.id))
    return Deleted(deleted=True)


class LinkQuery(Input):
    token: str = Field(min_length=1, max_length=512, description="From the email's link.")


def _link_page(check: Callable[[str], object], template: str) -> Callable[[Call], Html]:
    """GET of an email link: checks the token and shows a button that POSTs it (a GET changes
    nothing, so link scanners that prefetch URLs act for nobody)."""

    def show(call: Call) -> Html:
        check(call.query.token)
        return Html(render(template, token=call.query.token))

    return show


def _link_action(act: Callable[[str], object], template: str) -> Callable[[Call], Html]:
    """POST of an email link (the page's button, or a mail client's RFC 8058 one-click)."""

    def perform(call: Call) -> Html:
        act(call.query.token)
        return Html(render(template))

    return perform


pause_page = _link_page(pause.check, "pause_confirm.html.j2")
pause_subscription = _link_action(pause.pause, "pause_done.html.j2")
confirm_page = _link_page(recipients.check_confirm, "confirm_page.html.j2")
confirm_recipient = _link_action(recipients.confirm, "confirm_done.html.j2")
unsubscribe_page = _link_page(recipients.check_unsubscribe, "unsubscribe_page.html.j2")
unsubscribe_address = _link_action(recipients.unsubscribe, "unsubscribe_done.html.j2")


def dispatch_now(call: Call) -> DispatchResult:
    from functions.tracking.dispatch import dispatch

    return DispatchResult(**dispatch().as_dict())


ROUTES = [
    Route("GET", "/v1/tracking/topics", list_topics, "listTrackingTopics",
          "List the topic identifiers a subscription may use", "Tracking",
          response=TopicCatalog),
    Route("GET", BASE, list_subscriptions, "listSubscriptions",
          "List your tracking subscriptions, newest first", "Tracking",
          query=ListQuery, response=SubscriptionList),
    Route("POST", BASE, create_subscription, "createSubscription",
          "Create a tracking subscription (active, first digest at the next tick)", "Tracking",
          body=SubscriptionCreate, response=SubscriptionEnvelope, status=201, errors=(409,)),
    Route("PATCH", BASE + "/{id}", update_subscription, "updateSubscription",
          "Change the supplied fields; active false pauses, true resumes", "Tracking",
          body=SubscriptionPatch, path_params=SubscriptionPath, response=SubscriptionEnvelope,
          errors=(409,)),
    Route("DELETE", BASE + "/{id}", delete_subscription, "deleteSubscription",
          "Delete a subscription and all its results", "Tracking",
          path_params=SubscriptionPath, response=Deleted, errors=(409,)),
    Route("GET", "/v1/tracking/pause", pause_page, "showPauseLink",
          "The page a digest's pause link opens: asks to confirm (changes nothing)", "Tracking",
          auth=Auth.NONE, query=LinkQuery, errors=(410,)),
    Route("POST", "/v1/tracking/pause", pause_subscription, "pauseByLink",
          "One-click pause from a digest email (RFC 8058); each link works once", "Tracking",
          auth=Auth.NONE, query=LinkQuery, errors=(404, 409, 410)),
    Route("GET", "/v1/tracking/confirm", confirm_page, "showConfirmLink",
          "The page a confirmation email's link opens: asks to confirm (changes nothing)",
          "Tracking", auth=Auth.NONE, query=LinkQuery, errors=(404,)),
    Route("POST", "/v1/tracking/confirm", confirm_recipient, "confirmRecipient",
          "The recipient agrees to receive the digests sent to their address", "Tracking",
          auth=Auth.NONE, query=LinkQuery, errors=(404, 409, 410)),
    Route("GET", "/v1/tracking/unsubscribe", unsubscribe_page, "showUnsubscribeLink",
          "The page an email's unsubscribe link opens: asks to confirm (changes nothing)",
          "Tracking", auth=Auth.NONE, query=LinkQuery, errors=(404,)),
    Route("POST", "/v1/tracking/unsubscribe", unsubscribe_address, "unsubscribeAddress",
          "Stop all email from this service to the address (RFC 8058 one-click); no "
          "subscription can override it", "Tracking",
          auth=Auth.NONE, query=LinkQuery, errors=(404, 409)),
]  # fmt: skip

DISPATCH_ROUTES = [
    Route("POST", "/internal/dispatch", dispatch_now, "dispatchTracking",
          "Enqueue a run for every due subscription (Cloud Scheduler only)", "Internal",
          auth=Auth.SCHEDULER, response=DispatchResult),
]  # fmt: skip
