"""HTTP routes of the tracking group. Subscription management is free (not metered)."""

from __future__ import annotations

from common.http import Call, Route
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
]  # fmt: skip
