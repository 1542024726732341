"""The inbound webhooks: identity-provider user events and SendGrid's email events. No API key:
the signature is verified on the raw body by the pipeline before anything is parsed."""

from __future__ import annotations

from common.http import Auth, Call, Route
from functions.webhooks import sendgrid, service
from functions.webhooks.models import IdpEvent
from functions.webhooks.sendgrid import SendGridEvents


# The caller of a signed route is what the signature check returns: the Standard Webhooks
# message id (the delivery id), or SendGrid's signed timestamp.
def receive(call: Call[IdpEvent, None, None, str]) -> None:
    service.handle(call.principal, call.body)


def receive_sendgrid(call: Call[SendGridEvents, None, None, str]) -> None:
    sendgrid.handle(call.body.root)


ROUTES = (
    Route(
        method="POST",
        path="/webhooks/idp",
        handler=receive,
        operation_id="receiveIdpWebhook",
        summary="Identity-provider user events (Standard Webhooks signature)",
        tag="Webhooks",
        auth=Auth.WEBHOOK,
        body=IdpEvent,
        status=204,
        errors=(401,),
        description="Signed with Standard Webhooks (webhook-* or svix-* headers). "
        "user.created, user.updated and user.deleted are applied; other types are "
        "acknowledged and ignored, as are signed events the service cannot use (e.g. a user "
        "with no verified primary email address: logged, not retried); a repeated delivery "
        "id has no second effect.",
    ),
    Route(
        method="POST",
        path="/webhooks/sendgrid",
        handler=receive_sendgrid,
        operation_id="receiveSendGridEvents",
        summary="SendGrid Event Webhook (signed): bounces, drops, spam reports and unsubscribes "
        "put the address on the suppression list",
        tag="Webhooks",
        auth=Auth.SENDGRID,
        body=SendGridEvents,
        status=204,
        errors=(401,),
        description="Signed Event Webhook: ECDSA P-256 signature of "
        "X-Twilio-Email-Event-Webhook-Timestamp + body in "
        "X-Twilio-Email-Event-Webhook-Signature. Other event types are acknowledged.",
    ),
)
