"""Authentication of internal callers: Cloud Scheduler (the dispatcher) and Cloud Tasks (the
task worker).

In production (``INTERNAL_AUTH=oidc``) the caller must present a Google-signed OIDC ID token
(``Authorization: Bearer``) whose audience is the called function's base URL and whose
``email`` is ``TASKS_SERVICE_ACCOUNT`` (verified email; for the dispatcher,
``SCHEDULER_SERVICE_ACCOUNT`` when set). The platform checks the same token
before the function runs (``roles/run.invoker``, internal ingress); this is the second lock.
In local runs and tests (``INTERNAL_AUTH=secret``) the bearer is ``INTERNAL_SECRET``,
compared in constant time. Nothing else gets through: every failure is the same 401.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from common.config import get_settings
from common.errors import InvalidToken, NotInternal


@dataclass(frozen=True)
class InternalCaller:
    identity: str  # the service account, or "local"
    consumer_id: None = None  # the pipeline logs consumer ids; an internal call has none


def verify(token: str, caller: str) -> InternalCaller:
    """``caller`` is ``scheduler`` (tracking_dispatch) or ``task_queue`` (task_worker): a token
    is accepted only for the audience of the function it was made for."""
    settings = get_settings()
    if not token:
        raise NotInternal()
    if settings.internal_auth == "secret":
        if hmac.compare_digest(token.encode(), settings.internal_secret.encode()):
            return InternalCaller("local")
        raise NotInternal()
    from common.accounts.oidc import verify_token

    try:
        claims = verify_token(
            token,
            jwks_url=settings.internal_oidc_jwks_url,
            audience=settings.task_worker_url
            if caller == "task_queue"
            else settings.tracking_dispatch_url,
            issuer=settings.internal_oidc_issuer,
        )
    except InvalidToken:
        raise NotInternal() from None
    email = claims.get("email")
    expected = settings.tasks_service_account
    if caller == "scheduler":  # its own account where Terraform gives it one (decision 0033)
        expected = settings.scheduler_service_account or expected
    if claims.get("email_verified") is not True or email != expected:
        raise NotInternal()
    return InternalCaller(email)
