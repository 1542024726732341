"""Structured JSON logs for Cloud Logging: one object per line on stdout.

Each line carries ``severity``, ``message``, the request's correlation id and consumer id and,
when Google's trace header is present, the trace. Never log a raw key, token, secret or body.

No URL's query string reaches a log line: a news-search feed URL carries a subscriber's
keywords (``?q=...``) and a pause link its token. The HTTP client libraries' request logs
(httpx at INFO, httpcore at DEBUG) are silenced, and every line is scrubbed of what follows
the ``?`` of an ``http(s)://`` URL, whoever logged it (decision 0016).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

correlation_id_var: ContextVar[str | None] = ContextVar("correlation_id", default=None)
consumer_id_var: ContextVar[str | None] = ContextVar("consumer_id", default=None)
trace_var: ContextVar[str | None] = ContextVar("trace", default=None)

_SEVERITY = {"WARNING": "WARNING", "CRITICAL": "CRITICAL", "ERROR": "ERROR"}
_RESERVED = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}
# The query (and fragment) of an absolute http(s) URL, up to whatever ends the URL. Applied to
# the JSON line, so a JSON escape is part of the URL (\u00e9, \/) or ends it (\", \n).
_URL_CHAR = r"""(?:[^\s"'<>?#\\]|\\u[0-9a-fA-F]{4}|\\[/\\])"""
_URL_QUERY = re.compile(rf"(\bhttps?://{_URL_CHAR}*)[?#](?:{_URL_CHAR}|[?#])*", re.IGNORECASE)
REDACTED = "?[redacted]"
# Libraries whose INFO/DEBUG lines name whole request URLs (httpx: "HTTP Request: GET <url>").
QUIET_LOGGERS = ("urllib3", "google", "grpc", "httpx", "httpcore")


def redact_urls(text: str) -> str:
    """``text`` with the query string and fragment of every http(s) URL replaced."""
    return _URL_QUERY.sub(lambda m: m.group(1) + REDACTED, text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": _SEVERITY.get(record.levelname, record.levelname),
            "message": record.getMessage(),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "logger": record.name,
        }
        if (cid := correlation_id_var.get()) is not None:
            entry["correlationId"] = cid
        if (consumer := consumer_id_var.get()) is not None:
            entry["consumerId"] = consumer
        if (trace := trace_var.get()) is not None:
            entry["logging.googleapis.com/trace"] = trace
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["stack_trace"] = self.formatException(record.exc_info)
        return redact_urls(json.dumps(entry, default=str))


class _StdoutHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stdout`` is at the time (captured output in tests)."""

    @property
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


_configured = False


def configure(level: str = "INFO") -> None:
    """Install the JSON handler on the root logger once per process."""
    global _configured
    if _configured:
        return
    handler = _StdoutHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    quiet_libraries()
    _configured = True


def quiet_libraries() -> None:
    """Only warnings from the client libraries (also called where an HTTP client is built, in
    case a process logs before ``configure``)."""
    for noisy in QUIET_LOGGERS:
        logging.getLogger(noisy).setLevel(logging.WARNING)


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(name)
