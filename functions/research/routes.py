"""HTTP routes of the research group."""

from __future__ import annotations

from common.http import Call, Route, Streamed, Tool
from common.http.streams import NDJSON, ndjson
from functions.research.models import RESEARCH_EVENTS, ResearchItem, ResearchRequest


def research_topics(call: Call[ResearchRequest]) -> Streamed:
    from common.subjects import keywords, optout
    from functions.research.service import research_events

    # Before a byte is sent (decision 0058): a keyword naming an opted-out person is 403; one
    # naming a person takes a place in her day (429 past it) and is audited. Not billed.
    optout.refuse_named(call.body.customKeywords or [], "keywords")
    keywords.admit(
        call.body.customKeywords or [],
        consumer_id=call.principal.consumer_id,
        request_id=call.request_id,
        door="research",
        channel="api",
    )
    stream = Streamed([], NDJSON)

    def failed() -> None:
        stream.failed = True

    stream.chunks = ndjson(research_events(call.body, failed), stream, delivers=(ResearchItem,))
    return stream


ROUTES = (
    Route(
        method="POST",
        path="/v1/research/topics",
        handler=research_topics,
        operation_id="researchTopics",
        tools=(Tool("research_news", read_only=True, open_world=True, repeated=("item",)),),
        summary="Research topics and keywords in the news now, streamed as NDJSON",
        tag="Research",
        body=ResearchRequest,
        stream=NDJSON,
        events=RESEARCH_EVENTS,
        price="research.topics",
        errors=(403, 429),
        description="application/x-ndjson, one event per line: begin, item (best first), "
        "summary, end; or error when no news source answered (not billed).\n\n"
        "The summary event says what the items show: `text` (a paragraph of at most about "
        "600 characters: the themes, who is involved, what changed; then the sources that "
        "did not answer, if any), `items` (how many), `failedSources` (one label per failed "
        "source), `themes` ([{label, name, items, itemIds}]: the topics and keywords matched, "
        "most items first, at most 5), `who` ([{name, kind, role?, items, itemIds}], kind "
        "company|organisation|government|person|group; a person only with a public role; at "
        "most 5), `changes` ([{kind, text, itemId, link}]: the headlines of items reporting a "
        "vote, ban, pledge, ruling, launch, reversal and so on, best first, at most 4), "
        "`itemIds` (the items the paragraph draws on) and `engine` (offline, or "
        "provider:<name> when a language model wrote the paragraph from the items).\n\n"
        "A keyword that names a person on the opt-out list is 403 `subject_opted_out`; one that "
        "names a person takes a place in that person's daily limit (429 `subject_rate_limited` "
        "past it) and is written to your audit log. Items naming an opted-out person are left "
        "out. Not billed when refused (decision 0058).",
        capacity="streams",
        warm="common.privacy:warm",
    ),
)
