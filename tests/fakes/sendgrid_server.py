"""A loopback fake of SendGrid's ``POST /v3/mail/send``, for tests.

It checks ``Authorization: Bearer <key>`` (401 otherwise) and the minimal shape of the body
(400 otherwise), records each accepted message in ``.messages`` and answers 202 with an
``X-Message-Id`` header, as SendGrid does::

    with FakeSendGridServer(api_key="SG.test") as server:
        server.fail_next(500)             # the next request gets a 500, the one after a 202
        server.fail_next(429, headers={"Retry-After": "2"})  # a rate limit, with its headers
        server.hang_next(2.0)             # accept, then answer only after 2 s (client timeout)
        server.drop_next()                # accept, then close the connection without answering
        server.outage(5.0, status=503)    # for 5 s every request gets a 503 (or: hang_s=2.0)
        ... SENDGRID_HOST=server.url ...
        assert server.messages[0]["subject"] == "..."

``.requests`` counts every request to ``/v3/mail/send``, accepted or not.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackFake, LoopbackServer

DEFAULT_KEY = "SG.fake-key.for-tests"


@dataclass
class _Plan:
    """What to do with one request: fail with ``status``, or accept and then hang or drop."""

    status: int | None = None
    headers: dict[str, str] | None = None  # sent with ``status``
    hang_s: float = 0.0
    drop: bool = False


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackServer

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length) if length else b""
        if self.path != "/v3/mail/send":
            self._errors(404, "not found", None)
            return
        fake._count()
        if self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            self._errors(401, "The provided authorization grant is invalid.", None)
            return
        plan = fake._take_plan()
        if plan.status is not None:
            self._errors(plan.status, f"scripted failure {plan.status}", None, plan.headers)
            return
        try:
            body = json.loads(raw_body)
        except ValueError:
            self._errors(400, "Bad Request", None)
            return
        problem = _shape_error(body)
        if problem is not None:
            self._errors(400, problem[1], problem[0])
            return
        message_id = secrets.token_urlsafe(16)
        fake._accept(body, message_id, dict(self.headers.items()))
        if plan.drop:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)  # the client sees the connection drop
            return
        if plan.hang_s and self.server.stopping.wait(plan.hang_s):
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send(202, b"", {"X-Message-Id": message_id})

    def _errors(
        self, status: int, message: str, field: str | None, headers: dict[str, str] | None = None
    ) -> None:
        body = json.dumps({"errors": [{"message": message, "field": field, "help": None}]})
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send(
                status, body.encode(), {"Content-Type": "application/json", **(headers or {})}
            )

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


def _shape_error(body: Any) -> tuple[str, str] | None:
    """(field, message) of the first missing required part of a v3 mail/send body."""
    if not isinstance(body, dict):
        return "", "The request body must be a JSON object."
    try:
        to = body["personalizations"][0]["to"][0]["email"]
    except (KeyError, IndexError, TypeError):
        to = None
    if not isinstance(to, str) or "@" not in to:
        return "personalizations.0.to.0.email", "Does not contain a valid address."
    sender = body.get("from")
    if not isinstance(sender, dict) or "@" not in str(sender.get("email", "")):
        return "from.email", "The from email does not contain a valid address."
    if not isinstance(body.get("subject"), str) or not body["subject"]:
        return "subject", "The subject is required."
    content = body.get("content")
    if not isinstance(content, list) or not content:
        return "content", "Unless a valid template_id is provided, content is required."
    for part in content:
        if not (isinstance(part, dict) and part.get("type") and isinstance(part.get("value"), str)):
            return "content", "Each content part needs a type and a value."
    return None


class FakeSendGridServer(LoopbackFake):
    """The fake on ``127.0.0.1:<free port>``, served from a background thread."""

    handler = _Handler

    def __init__(self, api_key: str = DEFAULT_KEY) -> None:
        self.api_key = api_key
        self.messages: list[dict[str, Any]] = []  # accepted bodies, parsed JSON
        self.message_ids: list[str] = []  # the X-Message-Id given to each accepted message
        self.request_headers: list[dict[str, str]] = []
        self.requests = 0
        self._plans: deque[_Plan] = deque()
        self._outage: tuple[float, _Plan] | None = None  # (until, what each request gets)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """What SENDGRID_HOST would be: ``http://127.0.0.1:<port>``."""
        return self.origin

    def fail_next(
        self, status: int, count: int = 1, headers: dict[str, str] | None = None
    ) -> FakeSendGridServer:
        """Answer the next ``count`` requests with ``status`` and ``headers`` (nothing
        accepted)."""
        with self._lock:
            self._plans.extend(_Plan(status=status, headers=headers) for _ in range(count))
        return self

    def hang_next(self, seconds: float) -> FakeSendGridServer:
        """Accept the next message, then wait ``seconds`` before answering 202."""
        with self._lock:
            self._plans.append(_Plan(hang_s=seconds))
        return self

    def outage(
        self,
        seconds: float,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        hang_s: float = 0.0,
    ) -> FakeSendGridServer:
        """For the next ``seconds``, every request not scripted otherwise gets ``status`` (and
        ``headers``), or, with ``hang_s``, is accepted and answered only after ``hang_s``."""
        plan = _Plan(status=status, headers=headers, hang_s=hang_s)
        with self._lock:
            self._outage = (time.monotonic() + seconds, plan)
        return self

    def drop_next(self) -> FakeSendGridServer:
        """Accept the next message, then close the connection without answering."""
        with self._lock:
            self._plans.append(_Plan(drop=True))
        return self

    def _count(self) -> None:
        with self._lock:
            self.requests += 1

    def _take_plan(self) -> _Plan:
        with self._lock:
            if self._plans:
                return self._plans.popleft()
            if self._outage is not None and time.monotonic() < self._outage[0]:
                return self._outage[1]
            return _Plan()

    def _accept(self, body: dict[str, Any], message_id: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.messages.append(body)
            self.message_ids.append(message_id)
            self.request_headers.append(headers)
