"""Streamed answers as typed events: one pydantic model per event, published in the OpenAPI
document beside the route (``Route.events``), and one way to write them.

NDJSON (research, OSINT): one JSON object per line, its ``type`` first. Server-sent events
(chat, content): ``event: <type>`` and ``data:`` the object without its ``type``. A field left
unset when the event was built is left out of the line (an actor's ``role``), a field set to
None is written as null: a line reads as it did when the groups wrote dicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from common.http.routes import Streamed

NDJSON = "application/x-ndjson"
SSE = "text/event-stream"


class Event(BaseModel):
    """One event of a stream. Subclasses declare ``type: Literal["..."]`` first."""

    model_config = ConfigDict(extra="forbid")

    type: str


class StreamError(Event):
    """The stream ends with this instead of its last events (the request is not billed)."""

    type: Literal["error"] = "error"
    code: str
    detail: str


def _fields(event: Event) -> dict[str, Any]:
    return {"type": event.type, **event.model_dump(mode="json", exclude_unset=True)}


def ndjson_line(event: Event) -> str:
    return json.dumps(_fields(event), ensure_ascii=False) + "\n"


def ndjson(
    events: Iterable[Event],
    stream: Streamed | None = None,
    delivers: tuple[type[Event], ...] = (),
) -> Iterator[str]:
    """The NDJSON lines of ``events``, written as they come; the line of the first event of a
    ``delivers`` kind marks ``stream`` delivered (billed once the server took it; decision
    0039). Closing this closes the events' producer at once (its ``finally``: an audit entry,
    a released place)."""
    iterator = iter(events)
    try:
        for event in iterator:
            if stream is not None and isinstance(event, delivers):
                stream.delivered = True
            yield ndjson_line(event)
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


def sse(event: Event) -> str:
    data = _fields(event)
    name = data.pop("type")
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def schema_note(media_type: str) -> str:
    """How a stream's events are laid out, for the OpenAPI document."""
    if media_type == SSE:
        return "Server-sent events: `event:` is the event's type, `data:` the rest of it."
    return "One JSON object per line, its `type` first."
