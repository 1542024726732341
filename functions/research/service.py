"""One-shot topic research, streamed as NDJSON events. No Flask here.

Events, one JSON object per line: ``begin`` (what is searched, how many sources), one ``item``
per ranked news item (best first), ``summary`` (what the items show: a paragraph, the themes,
who is involved, what changed, and the sources that failed; ``functions.research.overview``,
decision 0027), ``end``; or ``error`` instead of the rest when no source answered at all (the
request is then not billed). A single failing source only shows up in
``summary.failedSources``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from common.http.streams import Event, StreamError
from common.logging import get_logger
from functions.research.models import (
    ResearchBegin,
    ResearchEnd,
    ResearchItem,
    ResearchRequest,
    ResearchSummary,
)

logger = get_logger("ars.research")


def research_events(request: ResearchRequest, on_failure: Any) -> Iterator[Event]:
    """The events (``RESEARCH_EVENTS``); ``on_failure()`` is called before an ``error``."""
    from functions.research.gather import gather, sources_for
    from functions.research.overview import OverviewItem, failed_note, write
    from functions.research.summaries import summarise_items

    sources = sources_for(request.topics, request.customKeywords)
    yield ResearchBegin(
        topics=request.topics, keywords=request.customKeywords, sources=len(sources)
    )
    from common.subjects import optout

    gathered = gather(
        request.topics,
        request.customKeywords,
        request.specificInterests,
        limit=request.limit,
        known=optout.screen_known(),
    )
    if gathered.all_failed:
        on_failure()
        yield StreamError(
            code="backend_unavailable", detail="No news source answered. Retry shortly."
        )
        return
    summaries = summarise_items(
        [ranked.item for ranked in gathered.items], request.specificInterests or ""
    )
    for rank, ranked in enumerate(gathered.items, start=1):
        yield ResearchItem(
            rank=rank,
            **{**ranked.item.as_dict(), "summary": summaries[ranked.item.id]},
            score=round(ranked.score, 3),
            matched=ranked.matched,
        )
    # The overview reads the items only: the caller's specificInterests steer the ranking.
    overview = write([OverviewItem.of(ranked) for ranked in gathered.items], fresh="recent")
    note = failed_note(gathered.failed)
    yield ResearchSummary(
        text=f"{overview.text} {note}" if note else overview.text,
        items=len(gathered.items),
        failedSources=gathered.failed,
        **overview.event_fields(),
    )
    yield ResearchEnd(items=len(gathered.items))
