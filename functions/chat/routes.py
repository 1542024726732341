"""HTTP routes of the chat group. Each answer names the engine that produced it in the
``X-Chat-Engine`` header (``offline`` or ``openai:<model>``)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Iterator, Sequence

from common.http import Call, Route, Streamed, Tool
from common.http.streams import SSE, sse
from common.language.message import annotate
from functions.chat import service
from functions.chat.models import (
    CHAT_EVENTS,
    ChatDelta,
    ChatDone,
    ChatError,
    ChatMessage,
    Citation,
    ExtractMemoryRequest,
    ExtractMemoryResponse,
    IntentRequest,
    IntentResponse,
    Memory,
    MemoryDeleted,
    MemoryView,
    MessageRequest,
    MessageResponse,
    Source,
    SummarizeRequest,
    SummarizeResponse,
)

ENGINE_HEADER = "X-Chat-Engine"


def available_operations(routes: Sequence[Route]) -> frozenset[str]:
    """The "METHOD /path" of every operation of the API (``Call.api_routes``)."""
    return frozenset(f"{route.method} {route.path}" for route in routes)


def _turns(messages: Iterable[ChatMessage]) -> list[dict[str, str]]:
    return [m.model_dump() for m in messages]


def message(call: Call[MessageRequest]) -> MessageResponse | Streamed:
    consumer_id, body = call.principal.consumer_id, call.body
    history, available = _turns(body.history), available_operations(call.api_routes())
    streamed = "text/event-stream" in call.headers.get("Accept", "")
    # the message annotated once, where it enters: every reader shares it (decision 0073)
    said = annotate(body.message)
    reply = service.respond(consumer_id, said, history, available, stream=streamed)
    call.billed = reply.helped  # a reply that did no work for the caller is not billed
    sources = [Source(title=title, url=url) for title, url in reply.sources]
    if streamed:
        first = next(reply.pieces, "")  # a provider failing before any text is a plain 502
        call.response_headers[ENGINE_HEADER] = reply.engine
        stream = Streamed([], SSE)
        chunks = itertools.chain([first], reply.pieces)
        stream.chunks = _sse(chunks, reply, sources, stream)
        return stream
    call.response_headers[ENGINE_HEADER] = reply.engine
    text = "".join(reply.pieces)
    call.billed = reply.helped and bool(text.strip())  # a reply the screen emptied is free
    return MessageResponse(
        response=text, intent=reply.intent, sources=sources, citations=_citations(reply, text)
    )


def _citations(reply: service.Reply, text: str) -> list[Citation]:
    return [Citation(text=c.text, url=c.url, title=c.title) for c in reply.cited(text)]


def _sse(
    pieces: Iterator[str], reply: service.Reply, sources: list[Source], stream: Streamed
) -> Iterator[str]:
    """Server-sent events: ``delta`` events with text, then ``done`` with the intent, the
    whole reply, its sources and citations; ``error`` (a problem object) if the provider fails
    mid-way, and then the request is not billed."""
    from common.errors import AppError

    sent: list[str] = []
    try:
        for piece in pieces:
            if piece:
                sent.append(piece)
                yield sse(ChatDelta(text=piece))
    except AppError as exc:
        stream.failed = True
        yield sse(ChatError(code=exc.code, status=exc.status, detail=exc.detail))
        return
    text = "".join(sent)
    # The last chunk of the whole reply delivers (billed if it did its work, decision 0039),
    # once written (0066); a reply the personal-data screen emptied delivers nothing.
    stream.delivered = bool(text.strip())
    done = ChatDone(
        intent=reply.intent, response=text, sources=sources, citations=_citations(reply, text)
    )
    yield sse(done)


def intent(call: Call[IntentRequest]) -> IntentResponse:
    said = annotate(call.body.message)  # detection and billing read one annotation (0073)
    detected, info, confidence, engine = service.detect_intent(said)
    call.response_headers[ENGINE_HEADER] = engine
    call.billed = service.intent_found(detected, info, said)  # decision 0068
    return IntentResponse(intent=detected, extractedInfo=info, confidence=round(confidence, 4))


def summarize(call: Call[SummarizeRequest]) -> SummarizeResponse:
    from common.offline.summarize import nothing

    summary, engine = service.summarize(_turns(call.body.messages))
    call.response_headers[ENGINE_HEADER] = engine
    # No goal, decision, fact or open question found: answered, not billed (decision 0068).
    call.billed = summary != nothing()
    return SummarizeResponse(summary=summary)


def extract_memory(call: Call[ExtractMemoryRequest]) -> ExtractMemoryResponse:
    body = call.body
    conversation_id = body.conversationId or str(uuid.uuid4())
    memory, engine = service.extract_memory(
        call.principal.consumer_id, _turns(body.messages), conversation_id
    )
    call.response_headers[ENGINE_HEADER] = engine
    call.billed = any(memory.values())  # no field remembered: not billed (decision 0068)
    return ExtractMemoryResponse(memory=Memory(**memory), conversationId=conversation_id)


def get_memory(call: Call) -> MemoryView:
    memory, conversations = service.get_memory(call.principal.consumer_id)
    return MemoryView(memory=Memory(**memory), conversations=conversations)


def delete_memory(call: Call) -> MemoryDeleted:
    conversations = service.delete_memory(call.principal.consumer_id)
    return MemoryDeleted(deleted=True, conversations=conversations)


ROUTES = (
    Route(
        method="POST",
        path="/v1/chat/message",
        handler=message,
        operation_id="chatMessage",
        summary="Message the advocacy assistant (JSON, or server-sent events with "
        "Accept: text/event-stream)",
        tag="Chat",
        body=MessageRequest,
        stream=SSE,
        events=CHAT_EVENTS,
        response=MessageResponse,
        price="chat.message",
        warm="functions.chat.service:warm",
    ),
    Route(
        method="POST",
        path="/v1/chat/intent",
        handler=intent,
        operation_id="chatIntent",
        tools=(Tool("classify_intent", read_only=True, idempotent=True),),
        summary="Detect the intent of a message and extract its entities",
        tag="Chat",
        body=IntentRequest,
        response=IntentResponse,
        price="chat.intent",
        warm="functions.chat.service:warm",
    ),
    Route(
        method="POST",
        path="/v1/chat/summarize",
        handler=summarize,
        operation_id="chatSummarize",
        tools=(Tool("summarize_text", read_only=True, idempotent=True),),
        summary="Compress older conversation history into a summary",
        tag="Chat",
        body=SummarizeRequest,
        response=SummarizeResponse,
        price="chat.summarize",
        warm="functions.chat.service:warm",
    ),
    Route(
        method="POST",
        path="/v1/chat/extract-memory",
        handler=extract_memory,
        operation_id="chatExtractMemory",
        summary="Extract and remember non-personal facts from a finished conversation",
        tag="Chat",
        body=ExtractMemoryRequest,
        response=ExtractMemoryResponse,
        price="chat.extract_memory",
        warm="functions.chat.service:warm",
    ),
    Route(
        method="GET",
        path="/v1/chat/memory",
        handler=get_memory,
        operation_id="getChatMemory",
        summary="What the assistant remembers about you",
        tag="Chat",
        response=MemoryView,
    ),
    Route(
        method="DELETE",
        path="/v1/chat/memory",
        handler=delete_memory,
        operation_id="deleteChatMemory",
        summary="Erase everything the assistant remembers about you",
        tag="Chat",
        response=MemoryDeleted,
    ),
)
