"""The inbound identity-provider webhook. No API key: the signature is verified on the raw
body by the pipeline (Auth.WEBHOOK) before anything is parsed."""

from __future__ import annotations

from common.http import Auth, Call, Route
from functions.webhooks import service
from functions.webhooks.models import IdpEvent


def receive(call: Call) -> None:
    service.handle(call.principal, call.body)


ROUTES = [
    Route("POST", "/webhooks/idp", receive, "receiveIdpWebhook",
          "Identity-provider user events (Standard Webhooks signature)", "Webhooks",
          auth=Auth.WEBHOOK, body=IdpEvent, status=204, errors=(401,),
          description="Signed with Standard Webhooks (webhook-* or svix-* headers). "
          "user.created, user.updated and user.deleted are applied; other types are "
          "acknowledged and ignored; a repeated delivery id has no second effect."),
]  # fmt: skip
