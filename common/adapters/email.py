"""Sending one email: SendGrid v3 in production, ``.eml`` files in a local outbox otherwise.

Callers must know whether a failed send may be retried, because a retried task must never
deliver a second digest. So failures come in two kinds (``common.errors``): ``EmailNotSent``
(the provider certainly did not accept the message; retrying is safe, unless it is an
``EmailRejected``, refused for good) and ``EmailOutcomeUnknown`` (it may have been accepted;
the caller must reconcile, e.g. by the ``custom_args`` task id, instead of resending blindly).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from common import container
from common.config import get_settings
from common.errors import EmailNotSent, EmailOutcomeUnknown, EmailRejected

if TYPE_CHECKING:
    from email.message import EmailMessage

    from sendgrid import SendGridAPIClient

logger = logging.getLogger("ars.email")


@dataclass(frozen=True)
class Email:
    """One message to one recipient, in both plain text and HTML."""

    to: str
    subject: str
    text: str
    html: str
    headers: dict[str, str] = field(default_factory=dict)  # e.g. List-Unsubscribe
    custom_args: dict[str, str] = field(default_factory=dict)  # SendGrid custom_args
    category: str = ""  # SendGrid category, e.g. "tracking-digest"


def send(email: Email) -> str:
    """Send ``email`` with the configured backend and return the provider's message id
    (SendGrid's ``X-Message-Id``; outbox: the ``.eml`` file name)."""
    settings = get_settings()
    if settings.email_backend == "sendgrid":
        message_id = _send_sendgrid(email)
    else:
        message_id = _send_outbox(email)
    logger.info(
        "email sent",
        extra={
            "emailBackend": settings.email_backend,
            "messageId": message_id,
            "recipient": mask_address(email.to),
            "category": email.category or None,
        },
    )
    return message_id


def mask_address(address: str) -> str:
    """``alice@example.org`` -> ``a***@example.org``: enough to debug, not enough to identify."""
    local, at, domain = address.rpartition("@")
    if not at:
        return "***"
    return f"{local[:1]}***@{domain}"


# --- SendGrid -------------------------------------------------------------------------------


def _client(api_key: str, host: str, timeout_s: float) -> SendGridAPIClient:
    """One client per process and configuration (tests change the host between tests)."""
    return _clients.get()(api_key, host, timeout_s)


def _build_client(api_key: str, host: str, timeout_s: float) -> SendGridAPIClient:
    from sendgrid import SendGridAPIClient

    # python_http_client logs whole request bodies at DEBUG; an email body must never be logged.
    logging.getLogger("python_http_client").setLevel(logging.INFO)
    client = SendGridAPIClient(api_key=api_key, host=host)
    client.client.timeout = timeout_s  # copied into every child client python_http_client builds
    return client


# The clients built so far, by configuration; ``container.reset(CLIENTS)`` forgets them (tests).
CLIENTS = "email.clients"
_clients: container.Entry[Callable[[str, str, float], SendGridAPIClient]] = container.register(
    CLIENTS, lambda: lru_cache(maxsize=4)(_build_client)
)


def _sendgrid_payload(email: Email) -> dict[str, Any]:
    from sendgrid.helpers.mail import Category, CustomArg, From, Header, Mail, To

    settings = get_settings()
    mail = Mail(
        from_email=From(settings.email_from, settings.email_from_name or None),
        to_emails=To(email.to),
        subject=email.subject,
        plain_text_content=email.text,
        html_content=email.html,
    )
    for name, value in email.headers.items():
        mail.add_header(Header(name, value))
    for name, value in email.custom_args.items():
        mail.add_custom_arg(CustomArg(name, value))
    if email.category:
        mail.add_category(Category(email.category))
    return mail.get()


def _send_sendgrid(email: Email) -> str:
    import http.client
    from urllib.error import URLError

    from python_http_client.exceptions import HTTPError

    settings = get_settings()
    if not settings.sendgrid_api_key:
        raise EmailNotSent("SendGrid is not configured (SENDGRID_API_KEY is empty).")
    payload = _sendgrid_payload(email)
    client = _client(settings.sendgrid_api_key, settings.sendgrid_host, settings.sendgrid_timeout_s)
    try:
        response = client.send(payload)
    except HTTPError as exc:
        # SendGrid answered with an error: it did not take the message. The body may echo
        # parts of the request, so only the status is kept.
        raise _refused(exc.status_code) from None
    except URLError as exc:
        # urllib wraps only failures of connecting and writing the request (refused, DNS, TLS,
        # connect timeout). A request not completely written cannot have been accepted.
        raise EmailNotSent(
            f"SendGrid could not be reached ({type(exc.reason).__name__})."
        ) from None
    except (OSError, http.client.HTTPException) as exc:
        # The request went out; the answer timed out or the connection dropped before it
        # was read, so SendGrid may have queued the message.
        raise EmailOutcomeUnknown(
            f"No answer from SendGrid after sending ({type(exc).__name__}); "
            "the message may have been accepted."
        ) from None
    if not 200 <= response.status_code < 300:
        raise _refused(response.status_code)
    message_id = response.headers.get("X-Message-Id") or ""
    if not message_id:
        logger.warning("SendGrid accepted a message without an X-Message-Id header")
    return message_id


def _refused(status: int) -> EmailNotSent:
    detail = f"SendGrid refused the message (HTTP {status})."
    if 400 <= status < 500 and status not in (408, 429):
        return EmailRejected(detail)
    return EmailNotSent(detail)


# --- Outbox ---------------------------------------------------------------------------------


def _build_message(email: Email) -> EmailMessage:
    import json
    from email import policy
    from email.message import EmailMessage
    from email.utils import format_datetime, formataddr, make_msgid

    settings = get_settings()
    # Lines may be up to 998 characters (RFC 5322). At the default 78 a long header such as
    # List-Unsubscribe is folded and, having no space to fold at, RFC 2047-encoded, which mail
    # clients cannot use as the RFC 8058 one-click link.
    msg = EmailMessage(policy=policy.default.clone(max_line_length=998))
    msg["From"] = formataddr((settings.email_from_name, settings.email_from))
    msg["To"] = email.to
    msg["Subject"] = email.subject
    msg["Date"] = format_datetime(_now())
    domain = settings.email_from.rpartition("@")[2] or "localhost"
    msg["Message-ID"] = make_msgid(domain=domain)
    for name, value in email.headers.items():
        msg[name] = value
    # What SendGrid would carry out of band, kept visible for local debugging.
    if email.custom_args:
        msg["X-Custom-Args"] = json.dumps(email.custom_args, sort_keys=True)
    if email.category:
        msg["X-Category"] = email.category
    msg.set_content(email.text)
    msg.add_alternative(email.html, subtype="html")
    return msg


def _send_outbox(email: Email) -> str:
    import os
    import secrets
    import tempfile
    from pathlib import Path

    data = _build_message(email).as_bytes()
    directory = Path(get_settings().outbox_dir)
    name = f"{_now():%Y%m%dT%H%M%S%fZ}-{secrets.token_hex(4)}.eml"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # Write then rename, so a reader of the outbox never sees a half-written file.
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, directory / name)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise EmailNotSent(f"The outbox could not be written ({type(exc).__name__}).") from None
    return name


def _now() -> datetime:
    return datetime.now(UTC)
