"""A loopback fake of Vertex AI's text-embedding ``:predict`` endpoint.

It checks the request's shape as Vertex does (instances of ``{content, task_type}``, the
``outputDimensionality`` parameter) and answers ``{"predictions": [{"embeddings": {"values":
[...]}}]}`` with deterministic vectors: a word-hashing embedding, so equal texts get equal
vectors and texts sharing words are close. ``fail_next(status)`` makes the next answers fail.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackFake

PATH = re.compile(
    r"^/v1/projects/([^/]+)/locations/([^/]+)/publishers/google/models/([^/:]+):predict$"
)


def vector(text: str, dimension: int) -> list[float]:
    values = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        values[int.from_bytes(digest[:4], "big") % dimension] += 1.0
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        fake: FakeVertexServer = self.server.fake  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        match = PATH.match(self.path)
        with fake.lock:
            fake.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
            failure = fake.failures.pop(0) if fake.failures else None
        if failure is not None:
            return self._send(failure, {"error": {"code": failure, "message": "injected"}})
        if match is None:
            return self._send(404, {"error": {"code": 404, "message": "not found"}})
        instances = body.get("instances")
        dimension = (body.get("parameters") or {}).get("outputDimensionality", 768)
        if not isinstance(instances, list) or not all(
            isinstance(i, dict)
            and isinstance(i.get("content"), str)
            and i.get("task_type") in ("RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY")
            for i in instances
        ):
            return self._send(400, {"error": {"code": 400, "message": "bad instances"}})
        predictions = [
            {"embeddings": {"values": vector(i["content"], dimension), "statistics": {}}}
            for i in instances
        ]
        return self._send(200, {"predictions": predictions})

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: Any) -> None:
        pass


class FakeVertexServer(LoopbackFake):
    handler = _Handler

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.failures: list[int] = []

    def fail_next(self, status: int, count: int = 1) -> FakeVertexServer:
        with self.lock:
            self.failures += [status] * count
        return self
