"""HTTP routes of the content group: drafts grounded in the knowledge base. The engine that
wrote a draft is named in the ``X-Content-Engine`` header (``offline`` or ``openai:<model>``)."""

from __future__ import annotations

from collections.abc import Iterator

from common.http import Call, Route, Streamed, Tool
from common.http.streams import SSE, sse
from functions.content import compose, service
from functions.content.models import (
    CONTENT_EVENTS,
    Citation,
    ContentDelta,
    ContentDone,
    ContentRequest,
    ContentResponse,
    ContentSources,
    Post,
    Source,
)

ENGINE_HEADER = "X-Content-Engine"
STREAM_DESCRIPTION = (
    "Facts come only from the knowledge base's passages and every document used is listed in "
    "`sources`; a topic the knowledge base does not cover is 422 `topic_not_covered`, and one "
    "whose sentences are all too long for the platform 422 `draft_does_not_fit` (neither "
    "billed). Every post is within the platform's limit (`characterLimit`; X 280 per post and "
    "per thread item, Instagram 2,200, LinkedIn 3,000). With `Accept: text/event-stream` the "
    "answer is server-sent events: `sources` (the documents), `delta` events with the text, "
    "then `done` with the whole response object; the draft is checked before the first event."
)


def response_of(generated: service.Generated) -> ContentResponse:
    platform = generated.spec.platform
    return ContentResponse(
        content=generated.content,
        contentType=generated.spec.content_type,  # type: ignore[arg-type]
        platform=platform,  # type: ignore[arg-type]
        characterCount=compose.count(generated.content, platform),
        characterLimit=generated.limit,
        posts=[Post(text=p, characterCount=compose.count(p, platform)) for p in generated.posts],
        hashtags=generated.hashtags,
        sources=[Source(title=t, url=u) for t, u in generated.sources],
        citations=[Citation(text=c.text, url=c.url, title=c.title) for c in generated.citations],
    )


def generate(call: Call[ContentRequest]) -> ContentResponse | Streamed:
    generated = service.generate(service.spec_of(call.body))
    call.response_headers[ENGINE_HEADER] = generated.engine
    answer = response_of(generated)
    if "text/event-stream" in call.headers.get("Accept", ""):
        stream = Streamed([], SSE)
        stream.chunks = _events(answer, stream)
        return stream
    return answer


def _events(answer: ContentResponse, stream: Streamed) -> Iterator[str]:
    yield sse(ContentSources(sources=answer.sources))
    words = answer.content.split(" ")
    for i in range(0, len(words), 8):
        piece = " ".join(words[i : i + 8]) + (" " if i + 8 < len(words) else "")
        stream.delivered = True  # the draft's first words (decision 0039)
        yield sse(ContentDelta(text=piece))
    yield sse(ContentDone(**answer.model_dump()))


ROUTES = (
    Route(
        method="POST",
        path="/v1/content/generate",
        handler=generate,
        operation_id="generateContent",
        tools=(Tool("generate_content", read_only=True),),
        summary="Draft campaign content from the knowledge base, within platform limits (JSON, "
        "or server-sent events with Accept: text/event-stream)",
        tag="Content",
        body=ContentRequest,
        stream=SSE,
        events=CONTENT_EVENTS,
        response=ContentResponse,
        price="content.generate",
        errors=(422,),
        description=STREAM_DESCRIPTION,
        warm="functions.content.service:warm",
    ),
)
