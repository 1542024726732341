"""common.adapters.email: the SendGrid backend against a loopback fake, and the local outbox."""

from __future__ import annotations

import email
import email.policy
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from common import container
from common.adapters import email as mail
from common.adapters.email import Email, send
from common.errors import EmailNotSent, EmailOutcomeUnknown, EmailRejected
from devtools.emulator import free_port
from tests.fakes.sendgrid_server import DEFAULT_KEY, FakeSendGridServer

MESSAGE = Email(
    to="alice@example.org",
    subject="Your daily advocacy research digest: 1 new item",
    text="Plain text body: Harlow Foods pledge.",
    html="<p>HTML body: <a href='https://example.org/a'>Harlow Foods pledge</a></p>",
    headers={
        "List-Unsubscribe": "<https://api.example.org/v1/tracking/pause?token=abc.def>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
    custom_args={"task_id": "task-123", "subscription_id": "sub-9"},
    category="tracking-digest",
)


@pytest.fixture
def server() -> Iterator[FakeSendGridServer]:
    with FakeSendGridServer() as fake:
        yield fake


@pytest.fixture
def sendgrid_env(settings_env, server: FakeSendGridServer) -> Iterator[FakeSendGridServer]:
    container.reset(mail.CLIENTS)
    settings_env(
        EMAIL_BACKEND="sendgrid",
        SENDGRID_API_KEY=DEFAULT_KEY,
        SENDGRID_HOST=server.url,
        SENDGRID_TIMEOUT_S="0.5",
        EMAIL_FROM="digest@advocacy.example",
        EMAIL_FROM_NAME="Advocacy Research",
    )
    yield server
    container.reset(mail.CLIENTS)


def test_sendgrid_success_returns_the_message_id_and_sends_everything(
    sendgrid_env: FakeSendGridServer,
):
    message_id = send(MESSAGE)

    assert message_id == sendgrid_env.message_ids[0]
    assert len(sendgrid_env.messages) == 1
    body = sendgrid_env.messages[0]
    assert body["personalizations"][0]["to"] == [{"email": "alice@example.org"}]
    assert body["from"] == {"email": "digest@advocacy.example", "name": "Advocacy Research"}
    assert body["subject"] == MESSAGE.subject
    assert body["content"] == [
        {"type": "text/plain", "value": MESSAGE.text},
        {"type": "text/html", "value": MESSAGE.html},
    ]
    assert body["headers"] == MESSAGE.headers
    assert body["custom_args"] == MESSAGE.custom_args
    assert body["categories"] == ["tracking-digest"]
    assert sendgrid_env.request_headers[0]["Authorization"] == f"Bearer {DEFAULT_KEY}"


def test_sendgrid_server_error_is_not_sent_and_a_retry_succeeds(
    sendgrid_env: FakeSendGridServer,
):
    sendgrid_env.fail_next(500)

    with pytest.raises(EmailNotSent) as caught:
        send(MESSAGE)
    assert "HTTP 500" in caught.value.detail
    assert caught.value.status == 502
    assert sendgrid_env.messages == []

    assert send(MESSAGE) == sendgrid_env.message_ids[0]
    assert sendgrid_env.requests == 2


def test_sendgrid_rate_limit_is_retryable_and_a_bad_request_is_final(
    sendgrid_env: FakeSendGridServer,
):
    """A 429 (with Retry-After) may succeed later: the task is retried (issue 27). A 400
    cannot: the task ends without sending again."""
    sendgrid_env.fail_next(429, headers={"Retry-After": "2"})
    with pytest.raises(EmailNotSent) as caught:
        send(MESSAGE)
    assert not isinstance(caught.value, EmailRejected)
    assert send(MESSAGE) == sendgrid_env.message_ids[0]

    sendgrid_env.fail_next(400)
    with pytest.raises(EmailRejected):
        send(MESSAGE)
    assert len(sendgrid_env.messages) == 1


def test_sendgrid_bad_request_is_not_sent(sendgrid_env: FakeSendGridServer):
    sendgrid_env.fail_next(400)

    with pytest.raises(EmailNotSent) as caught:
        send(MESSAGE)
    # Only the status: an error body may echo the recipient or the content.
    assert caught.value.detail == "SendGrid refused the message (HTTP 400)."
    assert sendgrid_env.messages == []


def test_sendgrid_wrong_key_is_not_sent(sendgrid_env: FakeSendGridServer, settings_env):
    settings_env(SENDGRID_API_KEY="SG.wrong.key")

    with pytest.raises(EmailNotSent, match="HTTP 401"):
        send(MESSAGE)
    assert sendgrid_env.requests == 1
    assert sendgrid_env.messages == []


def test_sendgrid_timeout_after_sending_is_an_unknown_outcome(
    sendgrid_env: FakeSendGridServer,
):
    sendgrid_env.hang_next(3.0)

    started = time.monotonic()
    with pytest.raises(EmailOutcomeUnknown) as caught:
        send(MESSAGE)
    assert time.monotonic() - started < 2.5  # SENDGRID_TIMEOUT_S=0.5 applied, not the hang
    assert caught.value.status == 502
    assert not isinstance(caught.value, EmailNotSent)
    # The fake did take the message: exactly why the caller must not resend blindly.
    assert len(sendgrid_env.messages) == 1


def test_sendgrid_connection_dropped_after_sending_is_an_unknown_outcome(
    sendgrid_env: FakeSendGridServer,
):
    sendgrid_env.drop_next()

    with pytest.raises(EmailOutcomeUnknown, match="may have been accepted"):
        send(MESSAGE)
    assert len(sendgrid_env.messages) == 1


def test_sendgrid_nothing_listening_is_not_sent(settings_env):
    container.reset(mail.CLIENTS)
    settings_env(
        EMAIL_BACKEND="sendgrid",
        SENDGRID_API_KEY=DEFAULT_KEY,
        SENDGRID_HOST=f"http://127.0.0.1:{free_port()}",
        SENDGRID_TIMEOUT_S="0.5",
    )

    with pytest.raises(EmailNotSent, match="could not be reached"):
        send(MESSAGE)


def test_sendgrid_without_a_key_is_not_sent(settings_env, server: FakeSendGridServer):
    container.reset(mail.CLIENTS)
    settings_env(EMAIL_BACKEND="sendgrid", SENDGRID_API_KEY="", SENDGRID_HOST=server.url)

    with pytest.raises(EmailNotSent, match="SENDGRID_API_KEY"):
        send(MESSAGE)
    assert server.requests == 0


def test_logs_carry_neither_body_nor_full_address_nor_key(
    sendgrid_env: FakeSendGridServer, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)

    send(MESSAGE)

    logged = "\n".join(f"{record.getMessage()} {record.__dict__}" for record in caplog.records)
    assert "a***@example.org" in logged
    assert "alice@example.org" not in logged
    assert "Plain text body" not in logged
    assert "HTML body" not in logged
    assert DEFAULT_KEY not in logged


def test_mask_address():
    assert mail.mask_address("alice@example.org") == "a***@example.org"
    assert mail.mask_address("not-an-address") == "***"


def test_outbox_writes_a_parseable_eml_with_both_parts_and_the_headers(
    settings_env, tmp_path: Path
):
    outbox = tmp_path / "nested" / "outbox"
    settings_env(
        EMAIL_BACKEND="outbox",
        OUTBOX_DIR=str(outbox),
        EMAIL_FROM="digest@advocacy.example",
        EMAIL_FROM_NAME="Advocacy Research",
    )

    name = send(MESSAGE)

    assert name.endswith(".eml")
    assert [path.name for path in outbox.iterdir()] == [name]  # no temp file left behind
    parsed = email.message_from_bytes((outbox / name).read_bytes(), policy=email.policy.default)
    assert parsed["From"] == "Advocacy Research <digest@advocacy.example>"
    assert parsed["To"] == "alice@example.org"
    assert parsed["Subject"] == MESSAGE.subject
    assert parsed["Date"] is not None
    assert parsed["Message-ID"].endswith("@advocacy.example>")
    assert parsed["List-Unsubscribe"] == MESSAGE.headers["List-Unsubscribe"]
    assert parsed["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert parsed["X-Category"] == "tracking-digest"
    assert parsed.get_content_type() == "multipart/alternative"
    parts = list(parsed.iter_parts())
    assert [part.get_content_type() for part in parts] == ["text/plain", "text/html"]
    assert parts[0].get_content().strip() == MESSAGE.text
    assert parts[1].get_content().strip() == MESSAGE.html


def test_outbox_names_are_unique(settings_env, tmp_path: Path):
    settings_env(EMAIL_BACKEND="outbox", OUTBOX_DIR=str(tmp_path))

    names = {send(MESSAGE) for _ in range(5)}

    assert len(names) == 5
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(names)


def test_outbox_that_cannot_be_written_is_not_sent(settings_env, tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    settings_env(EMAIL_BACKEND="outbox", OUTBOX_DIR=str(blocker / "outbox"))

    with pytest.raises(EmailNotSent, match="outbox"):
        send(MESSAGE)


LONG_LINK = "https://api.example.org/v1/tracking/pause?token=" + "eyJzIjoiNjZmZTZk" * 15 + ".sig"
LONG = Email(
    to="alice@example.org",
    subject="Digest",
    text="Text.",
    html="<p>HTML.</p>",
    headers={
        "List-Unsubscribe": f"<{LONG_LINK}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
)


def test_outbox_keeps_a_long_one_click_link_as_one_plain_header_line(settings_env, tmp_path: Path):
    """RFC 8058: mail clients need ``List-Unsubscribe: <https://...>`` as written. At the
    default 78 columns the header came out folded and RFC 2047-encoded (``=?utf-8?q?...``)."""
    settings_env(EMAIL_BACKEND="outbox", OUTBOX_DIR=str(tmp_path))
    assert len(LONG_LINK) > 200

    raw = (tmp_path / send(LONG)).read_bytes()

    lines = raw.split(b"\n")
    header = [line for line in lines if line.lower().startswith(b"list-unsubscribe:")]
    assert header == [f"List-Unsubscribe: <{LONG_LINK}>".encode() + b"\r"] or header == [
        f"List-Unsubscribe: <{LONG_LINK}>".encode()
    ]
    assert b"=?utf-8?" not in raw
    following = lines[lines.index(header[0]) + 1]
    assert not following[:1].isspace()  # not folded onto a continuation line


def test_sendgrid_sends_the_one_click_header_unencoded(sendgrid_env: FakeSendGridServer):
    send(LONG)

    assert sendgrid_env.messages[0]["headers"]["List-Unsubscribe"] == f"<{LONG_LINK}>"
