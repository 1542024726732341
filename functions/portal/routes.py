"""Developer-portal backend: the signed-in user's API keys. Authenticated by the identity
provider's OIDC ID token (Auth.ID_TOKEN), not by an API key. Free, not metered."""

from __future__ import annotations

from common.http import Auth, Call, Route
from functions.portal import service
from functions.portal.models import (
    KeyCreate,
    KeyEnvelope,
    KeyInfo,
    KeyList,
    KeyPath,
    NewKey,
    NewKeyEnvelope,
)

BASE = "/v1/portal/keys"


def list_keys(call: Call) -> KeyList:
    records = service.list_keys(call.principal.consumer_id)
    return KeyList(data=[KeyInfo.model_validate(r) for r in records], total=len(records))


def create_key(call: Call[KeyCreate]) -> NewKeyEnvelope:
    body = call.body
    record = service.create_key(call.principal.consumer_id, body.name, body.expires_in_days)
    return NewKeyEnvelope(data=NewKey.model_validate(record))


def revoke_key(call: Call[None, None, KeyPath]) -> KeyEnvelope:
    record = service.revoke_key(call.principal.consumer_id, call.path.id)
    return KeyEnvelope(data=KeyInfo.model_validate(record))


ROUTES = (
    Route(
        method="GET",
        path=BASE,
        handler=list_keys,
        operation_id="listPortalKeys",
        summary="List your API keys (masked)",
        tag="Portal",
        auth=Auth.ID_TOKEN,
        response=KeyList,
    ),
    Route(
        method="POST",
        path=BASE,
        handler=create_key,
        operation_id="createPortalKey",
        summary="Create an API key; the key is shown once, in this response",
        tag="Portal",
        auth=Auth.ID_TOKEN,
        body=KeyCreate,
        response=NewKeyEnvelope,
        status=201,
        errors=(409,),
    ),
    Route(
        method="DELETE",
        path=BASE + "/{id}",
        handler=revoke_key,
        operation_id="revokePortalKey",
        summary="Revoke one of your keys",
        tag="Portal",
        auth=Auth.ID_TOKEN,
        path_params=KeyPath,
        response=KeyEnvelope,
    ),
)
