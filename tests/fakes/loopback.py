"""What every loopback fake shares: a threaded HTTP server on ``127.0.0.1:<free port>``, served
from a daemon thread, with a ``stopping`` event that wakes handlers which sleep or hang."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # handlers that sleep must not hold up shutdown()

    def __init__(self, fake: Any, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.fake = fake
        self.stopping = threading.Event()


class LoopbackFake:
    """Base of a fake: ``start()``/``shutdown()`` or ``with Fake() as fake:``."""

    handler: type[BaseHTTPRequestHandler]
    _server: LoopbackServer | None = None

    @property
    def origin(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> Self:
        self._server = LoopbackServer(self, self.handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def shutdown(self) -> None:
        if self._server is not None:
            self._server.stopping.set()
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.shutdown()
