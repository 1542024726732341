"""HTTP routes of the tracking group. Subscription management is free (not metered)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from common.http import Auth, Call, Html, Route
from functions.tasks.models import DispatchResult
from functions.tracking import service
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
from functions.tracking.topics import TOPICS

BASE = "/v1/tracking/subscriptions"


def list_topics(call: Call) -> TopicCatalog:
    topics = [TopicInfo(id=k, name=name, description=d) for k, (name, d) in TOPICS.items()]
    return TopicCatalog(data=topics, total=len(topics))


def list_subscriptions(call: Call) -> SubscriptionList:
    query: ListQuery = call.query
    records, total, next_cursor = service.list_subscriptions(
        call.principal.consumer_id, query.limit, query.cursor
    )
    data = [Subscription.model_validate(r) for r in records]
    return SubscriptionList(data=data, total=total, next_cursor=next_cursor)


def create_subscription(call: Call) -> SubscriptionEnvelope:
    body: SubscriptionCreate = call.body
    record = service.create_subscription(
        call.principal.consumer_id, call.principal.email, body.model_dump()
    )
    return SubscriptionEnvelope(data=Subscription.model_validate(record))


def update_subscription(call: Call) -> SubscriptionEnvelope:
    body: SubscriptionPatch = call.body
    record = service.update_subscription(
        call.principal.consumer_id, str(call.path.id), body.changes()
    )
    return SubscriptionEnvelope(data=Subscription.model_validate(record))


def delete_subscription(call: Call) -> Deleted:
    service.delete_subscription(call.principal.consumer_id, str(call.path.id))
    return Deleted(deleted=True)


class PauseQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=512, description="From the digest's pause link.")


def pause_page(call: Call) -> Html:
    from common.templates import render
    from functions.tracking import pause

    pause.check(call.query.token)
    return Html(render("pause_confirm.html.j2", token=call.query.token))


def pause_subscription(call: Call) -> Html:
    from common.templates import render
    from functions.tracking import pause

    pause.pause(call.query.token)
    return Html(render("pause_done.html.j2"))


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
          auth=Auth.NONE, query=PauseQuery, errors=(410,)),
    Route("POST", "/v1/tracking/pause", pause_subscription, "pauseByLink",
          "One-click pause from a digest email (RFC 8058); each link works once", "Tracking",
          auth=Auth.NONE, query=PauseQuery, errors=(404, 409, 410)),
]  # fmt: skip

DISPATCH_ROUTES = [
    Route("POST", "/internal/dispatch", dispatch_now, "dispatchTracking",
          "Enqueue a run for every due subscription (Cloud Scheduler only)", "Internal",
          auth=Auth.SCHEDULER, response=DispatchResult),
]  # fmt: skip
