"""Developer-portal backend: the signed-in user's API keys. Authenticated by the identity
provider's OIDC ID token (Auth.ID_TOKEN), not by an API key. Free, not metered."""

from __future__ import annotations

from common.http import Auth, Call, Route, Static
from functions.portal import page, service
from functions.portal.models import (
    FileName,
    KeyCreate,
    KeyEnvelope,
    KeyInfo,
    KeyList,
    KeyPath,
    KeyRotate,
    NewKey,
    NewKeyEnvelope,
    PortalConfig,
    PortalUsage,
    PortalUsageQuery,
    RotatedKey,
    VendorFile,
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


def rotate_key(call: Call[KeyRotate, None, KeyPath]) -> RotatedKey:
    new, old = service.rotate_key(call.principal.consumer_id, call.path.id, call.body.grace_hours)
    return RotatedKey(data=NewKey.model_validate(new), previous=KeyInfo.model_validate(old))


def get_usage(call: Call[None, PortalUsageQuery]) -> PortalUsage:
    return PortalUsage.model_validate(service.usage(call.principal.consumer_id, call.query.month))


def _static(response_headers: dict[str, str], folder: str, name: str) -> Static:
    body, mimetype = page.static_file(folder, name)
    response_headers.update(page.headers(folder))
    return Static(body, mimetype)


def portal_index(call: Call[None, None, None, None]) -> Static:
    return _static(call.response_headers, "portal", "index.html")


def portal_file(call: Call[None, None, FileName, None]) -> Static:
    return _static(call.response_headers, "portal", call.path.name)


def vendor_file(call: Call[None, None, VendorFile, None]) -> Static:
    return _static(call.response_headers, f"vendor/{call.path.package}", call.path.name)


def portal_config(call: Call[None, None, None, None]) -> PortalConfig:
    call.response_headers["Cache-Control"] = "no-cache"
    return PortalConfig(**page.config())


# The page itself (decision 0030): public, undocumented in /openapi.json, served by the
# portal entry point beside the key API, on the same origin.
PAGE_ROUTES = (
    Route(
        method="GET",
        path="/portal/",
        handler=portal_index,
        operation_id="portalPage",
        summary="The developer portal (HTML)",
        tag="Portal",
        auth=Auth.NONE,
        documented=False,
    ),
    Route(
        method="GET",
        path="/portal/config.json",
        handler=portal_config,
        operation_id="portalConfig",
        summary="The portal page's sign-in settings",
        tag="Portal",
        auth=Auth.NONE,
        response=PortalConfig,
        documented=False,
    ),
    Route(
        method="GET",
        path="/portal/{name}",
        handler=portal_file,
        operation_id="portalFile",
        summary="A file of the portal page",
        tag="Portal",
        auth=Auth.NONE,
        path_params=FileName,
        documented=False,
    ),
    Route(
        method="GET",
        path="/portal/vendor/{package}/{name}",
        handler=vendor_file,
        operation_id="portalVendorFile",
        summary="A vendored front-end library file of the portal page",
        tag="Portal",
        auth=Auth.NONE,
        path_params=VendorFile,
        documented=False,
    ),
)

ROUTES = (
    *PAGE_ROUTES,
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
        errors=(409, 503),
        secret_fields=("data.key",),  # a replay shows the key's record, never the key
        description="With an Idempotency-Key, a retry creates no second key: it answers with "
        "the same key's record, without the key itself (shown only once).",
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
    Route(
        method="POST",
        path=BASE + "/{id}/rotate",
        handler=rotate_key,
        operation_id="rotatePortalKey",
        summary="Issue a successor of one of your keys; the old one expires after a grace period",
        tag="Portal",
        auth=Auth.ID_TOKEN,
        body=KeyRotate,
        path_params=KeyPath,
        response=RotatedKey,
        errors=(409, 503),
        secret_fields=("data.key",),
        description="With an Idempotency-Key, a retry issues no second successor: it answers "
        "with the same records, without the new key itself (shown only once).",
    ),
    Route(
        method="GET",
        path="/v1/portal/usage",
        handler=get_usage,
        operation_id="getPortalUsage",
        summary="Your requests and cost per operation and per day for a month",
        tag="Portal",
        auth=Auth.ID_TOKEN,
        query=PortalUsageQuery,
        response=PortalUsage,
    ),
)
