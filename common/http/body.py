"""Reading a request's body: the declared size (413), the content type (415), the body read
within BODY_READ_TIMEOUT_S (408), and what is done with a body nobody read (decision 0015).
"""

from __future__ import annotations

import contextlib
import io
import re
import socket
import threading
import time

from flask import Request

from common.config import get_settings
from common.errors import InvalidRequest, PayloadTooLarge, RequestTimeout, UnsupportedMediaType

_BODY_READ = "ars.body_read"  # WSGI environ key: the request's body was read to its end
# An unread body this small, already received, is read and dropped so that the connection can
# serve the next request; a body still arriving after DRAIN_TIMEOUT_S closes it (decision 0015).
DRAIN_MAX_BYTES = 65_536
DRAIN_TIMEOUT_S = 0.25


def read_body(request: Request) -> bytes:
    """The whole JSON body of a request, received within BODY_READ_TIMEOUT_S (else 408).

    Behind gunicorn (functions-framework) a timer shuts the socket's read side at the deadline:
    a body that stalls or trickles then reads as ended, and this worker thread is free again."""
    settings = get_settings()
    limit, timeout = settings.max_body_bytes, settings.body_read_timeout_s
    check_declared_length(request)
    _check_content_type(request)
    sock = request.environ.get("gunicorn.socket")
    timer = threading.Timer(timeout, _stop_reading, (sock,))
    timer.daemon = True
    started = time.monotonic()
    if sock is not None:
        timer.start()
    try:
        raw: bytes | None = request.stream.read(limit + 1)
    except Exception:  # a socket error, a malformed chunked body, a client that went away
        raw = None
    finally:
        timer.cancel()
    in_time = time.monotonic() - started < timeout
    if raw is not None and len(raw) > limit:
        raise PayloadTooLarge(f"The request body must be at most {limit} bytes.")
    if raw is None or (request.content_length is not None and len(raw) < request.content_length):
        if not in_time:
            raise RequestTimeout(f"The request body did not arrive within {timeout:g} s.")
        raise InvalidRequest("The request body ended before it was complete.")
    if in_time:  # else the timer may have shut the socket: the connection is not reused
        request.environ[_BODY_READ] = True
    return raw


def check_declared_length(request: Request) -> None:
    """413 at once, on any route, for a declared Content-Length over the limit."""
    limit = get_settings().max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"The request body must be at most {limit} bytes.")


def _check_content_type(request: Request) -> None:
    """415 for a body declared as something other than JSON (decision 0015): JSON is
    ``application/json`` (any parameters, e.g. charset) or ``application/*+json``; a request
    that declares no type at all is read as JSON."""
    mimetype = request.mimetype  # lower case, without parameters
    if mimetype and mimetype != "application/json" and not _JSON_SUFFIX.fullmatch(mimetype):
        raise UnsupportedMediaType(
            f"Send the body as JSON with 'Content-Type: application/json', not {mimetype[:100]!r}."
        )


_JSON_SUFFIX = re.compile(r"application/[^/;]+\+json")


def body_unread(request: Request) -> bool:
    declared = bool(request.content_length) or "Transfer-Encoding" in request.headers
    return declared and not request.environ.get(_BODY_READ)


def abandon_body(request: Request) -> None:
    """Nothing waits long for a declared body that was not read to its end (not needed,
    refused, or not received in time).

    A small body that has already arrived (the usual case: a 401 or 415 for a request sent
    whole) is read within DRAIN_TIMEOUT_S, so the connection stays usable: gunicorn would
    otherwise answer with "Connection: keep-alive" and then close, and a client that reuses
    the connection at once finds it closed. Otherwise functions-framework (which reads the
    whole body after every answer) and gunicorn (which drains an unread body before reading
    the next request) must not wait: the stream is replaced by an empty one and the socket's
    read side is shut, so both return at once and gunicorn closes the connection once the
    answer is sent."""
    sock = request.environ.get("gunicorn.socket")
    length = request.content_length
    if sock is not None and length is not None and length <= DRAIN_MAX_BYTES:
        timer = threading.Timer(DRAIN_TIMEOUT_S, _stop_reading, (sock,))
        timer.daemon = True
        started = time.monotonic()
        timer.start()
        try:
            drained = len(request.stream.read(length))
        except Exception:  # a socket error or a client that went away: closed below
            drained = -1
        finally:
            timer.cancel()
        if drained == length and time.monotonic() - started < DRAIN_TIMEOUT_S:
            request.environ[_BODY_READ] = True
            return
    request.stream = io.BytesIO()
    _stop_reading(sock)


def _stop_reading(sock: socket.socket | None) -> None:
    """Shut the connection's read side: a blocked read, or any later one, returns at once."""
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RD)
