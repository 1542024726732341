"""Whether the client of a request is still connected: what "written to the client" needs
beyond the server's word (decision 0066).

TCP takes a write after the client has hung up without an error (the client's machine answers
it with a reset), so a server that comes back for the next chunk has not shown that the client
got the last one. A connection the client has closed has its end (FIN) or its reset waiting on
the server's socket, which a peek sees without reading a byte or waiting.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping
from typing import Any

# Where the WSGI servers put the client's connection (gunicorn, as functions-framework serves
# in production and in `make run`; werkzeug's development server).
SOCKET_KEYS = ("gunicorn.socket", "werkzeug.socket")
_PEEK = socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)


def probe(environ: Mapping[str, Any]) -> Callable[[], bool]:
    """A check of whether this request's client is still connected; always True where the
    server does not give the connection (the in-process test client)."""
    for key in SOCKET_KEYS:
        sock = environ.get(key)
        if isinstance(sock, socket.socket):
            return lambda: is_open(sock)
    return lambda: True


def is_open(sock: socket.socket) -> bool:
    """False once the client closed its end or reset the connection; True while it is open
    and when it cannot be told (no non-blocking peek here, a TLS socket)."""
    if not hasattr(socket, "MSG_DONTWAIT"):
        return True
    try:
        peeked = sock.recv(1, _PEEK)
    except (BlockingIOError, InterruptedError):
        return True  # nothing waiting: open
    except ValueError:
        return True  # a TLS socket takes no flags
    except OSError:
        return False  # reset by the client
    return bool(peeked)  # b"": the client closed its end
