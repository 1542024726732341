"""HTTP routes of the research group."""

from __future__ import annotations

from common.http import Call, Route, Streamed
from functions.research.models import ResearchRequest

NDJSON = "application/x-ndjson"


def research_topics(call: Call[ResearchRequest]) -> Streamed:
    from functions.research.service import research_events

    stream = Streamed([], NDJSON)

    def failed() -> None:
        stream.failed = True

    stream.chunks = research_events(call.body, failed)
    return stream


ROUTES = (
    Route(
        method="POST",
        path="/v1/research/topics",
        handler=research_topics,
        operation_id="researchTopics",
        summary="Research topics and keywords in the news now, streamed as NDJSON",
        tag="Research",
        body=ResearchRequest,
        price="research.topics",
        description="application/x-ndjson, one event per line: begin, item (best first), "
        "summary, end; or error when no news source answered (not billed).",
    ),
)
