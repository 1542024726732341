"""A loopback fake of an OpenAI-compatible Chat Completions API, for tests.

Each request to ``POST /v1/chat/completions`` takes the next scripted behaviour from a queue
and is recorded (JSON body and headers) for assertions::

    with FakeOpenAIServer() as server:
        server.script(status(429, headers={"Retry-After": "0"}), reply('{"ok": true}'))
        provider = OpenAICompatibleProvider(server.base_url, "m", ...)
        ...
        assert len(server.requests) == 2

When the queue is empty, ``server.default`` answers (418 unless set), so a test that makes an
unexpected request fails on its request count instead of hanging.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackFake, LoopbackServer


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any  # the decoded JSON body, or None when it was not JSON

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body["messages"]


class Behaviour:
    """What the fake does with one request."""

    def respond(self, handler: _Handler) -> None:
        raise NotImplementedError


@dataclass
class _Json(Behaviour):
    body: Any
    code: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    def respond(self, handler: _Handler) -> None:
        handler.send_body(
            self.code, json.dumps(self.body).encode(), "application/json", self.headers
        )


@dataclass
class _Raw(Behaviour):
    body: bytes
    code: int = 200
    content_type: str = "application/json"

    def respond(self, handler: _Handler) -> None:
        handler.send_body(self.code, self.body, self.content_type, {})


@dataclass
class _Sleep(Behaviour):
    seconds: float
    then: Behaviour | None

    def respond(self, handler: _Handler) -> None:
        if handler.server.stopping.wait(self.seconds):
            return
        if self.then is not None:
            self.then.respond(handler)


@dataclass
class _Stream(Behaviour):
    pieces: list[str]
    done: bool = True
    cut_after: int | None = None
    hold: threading.Event | None = None

    def respond(self, handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.send_event(_chunk({"role": "assistant", "content": ""}))
        handler.wfile.write(b": keep-alive comment\n\n")
        for index, piece in enumerate(self.pieces):
            if self.cut_after is not None and index >= self.cut_after:
                return  # the connection closes mid-answer
            handler.send_event(_chunk({"content": piece}))
            if index == 0 and self.hold is not None:
                self.hold.wait(5)
        handler.send_event(_chunk({}, finish_reason="stop"))
        if self.done:
            handler.send_event("[DONE]")


def reply(content: str | None, *, finish_reason: str = "stop") -> Behaviour:
    """A 200 chat completion whose ``choices[0].message.content`` is ``content``."""
    return _Json(_completion({"role": "assistant", "content": content}, finish_reason))


def refusal(text: str) -> Behaviour:
    """A 200 chat completion with ``message.refusal`` (structured outputs' refusal)."""
    return _Json(_completion({"role": "assistant", "content": None, "refusal": text}, "stop"))


def status(code: int, body: Any = None, headers: dict[str, str] | None = None) -> Behaviour:
    """An error answer with an OpenAI-style error body (or ``body``)."""
    error = {"error": {"message": f"status {code}", "type": "fake_error", "code": None}}
    return _Json(error if body is None else body, code, headers or {})


def sleep(seconds: float, then: Behaviour | None = None) -> Behaviour:
    """Answer nothing for ``seconds`` (to trigger client timeouts), then ``then`` if given."""
    return _Sleep(seconds, then)


def raw(body: bytes, *, code: int = 200, content_type: str = "application/json") -> Behaviour:
    """Exactly these bytes as the body (malformed JSON, HTML from a proxy...)."""
    return _Raw(body, code, content_type)


def stream(
    pieces: list[str],
    *,
    done: bool = True,
    cut_after: int | None = None,
    hold: threading.Event | None = None,
) -> Behaviour:
    """A server-sent event stream of chunks carrying ``pieces``, then ``data: [DONE]``.

    ``cut_after=n`` closes the connection after n pieces (no finish, no [DONE]); ``hold`` makes
    the server wait for that event after the first piece, to prove the client yields pieces as
    they come instead of buffering the whole answer.
    """
    return _Stream(list(pieces), done, cut_after, hold)


def _completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        if self.path != "/v1/chat/completions":
            self.send_body(404, b'{"error": {"message": "no such path"}}', "application/json", {})
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        behaviour = self.server.fake._next(RecordedRequest("POST", self.path, headers, body))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            behaviour.respond(self)  # the client may have given up (a timeout)

    def send_body(self, code: int, body: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_event(self, data: str) -> None:
        self.wfile.write(f"data: {data}\n\n".encode())
        self.wfile.flush()

    def log_message(self, *_args: Any) -> None:
        pass


class FakeOpenAIServer(LoopbackFake):
    """The fake on ``127.0.0.1:<free port>``, served from a background thread."""

    handler = _Handler

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.default: Behaviour = status(418, {"error": {"message": "no scripted behaviour"}})
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """What LLM_BASE_URL would be: ``http://127.0.0.1:<port>/v1``."""
        return f"{self.origin}/v1"

    def script(self, *behaviours: Behaviour) -> FakeOpenAIServer:
        """Queue behaviours for the next requests, one each, in order."""
        with self._lock:
            self._queue.extend(behaviours)
        return self

    @property
    def pending(self) -> int:
        """Scripted behaviours not used yet."""
        with self._lock:
            return len(self._queue)

    def _next(self, recorded: RecordedRequest) -> Behaviour:
        with self._lock:
            self.requests.append(recorded)
            return self._queue.popleft() if self._queue else self.default


class ReplayServer(FakeOpenAIServer):
    """The fake answering each intent request with a recorded provider answer to the same
    message (``devtools/record_intents.py`` lines): the last user message is the key. A
    recorded failure, or a message never recorded, is a 503."""

    def __init__(self, recorded: list[dict[str, Any]]) -> None:
        from functions.chat.models import ExtractedFields

        super().__init__()
        keys = ExtractedFields.model_fields
        self.answers: dict[str, Behaviour] = {}
        for row in recorded:
            if "error" in row:
                self.answers[row["text"]] = status(503)
                continue
            info = row.get("extractedInfo") or {}
            body = {
                "intent": row["intent"],
                "extractedInfo": {key: info.get(key) for key in keys},
                "confidence": row["confidence"],
            }
            self.answers[row["text"]] = reply(json.dumps(body))

    def _next(self, recorded: RecordedRequest) -> Behaviour:
        with self._lock:
            self.requests.append(recorded)
        message = recorded.messages[-1].get("content") if recorded.body else None
        return self.answers.get(str(message), status(503))


@contextlib.contextmanager
def replayed(recorded: list[dict[str, Any]]) -> Iterator[dict[str, str]]:
    """A ``ReplayServer`` serving ``recorded``, and the settings that point the service's
    provider at it (the recorded model's name)."""
    model = str(recorded[0].get("model", "openai:replayed")).removeprefix("openai:")
    with ReplayServer(recorded) as server:
        yield {
            "LLM_BACKEND": "openai",
            "LLM_BASE_URL": server.base_url,
            "LLM_MODEL": model,
            "LLM_API_KEY": "replayed",
            "LLM_MAX_RETRIES": "0",
        }
