"""One-shot topic research, streamed as NDJSON events. No Flask here.

Events, one JSON object per line: ``begin`` (what is searched, how many sources), one ``item``
per ranked news item (best first), ``summary`` (what the items show: a paragraph, the themes,
who is involved, what changed, and the sources that failed; ``functions.research.overview``,
decision 0027), ``end``; or ``error`` instead of the rest when no source answered at all (the
request is then not billed). A single failing source only shows up in
``summary.failedSources``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from common.logging import get_logger
from functions.research.models import ResearchRequest

logger = get_logger("ars.research")


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, default=str) + "\n"


def research_events(request: ResearchRequest, on_failure: Any) -> Iterator[str]:
    """The NDJSON lines; ``on_failure()`` is called before an ``error`` event."""
    from functions.research.gather import gather, sources_for
    from functions.research.overview import OverviewItem, failed_note, write
    from functions.research.summaries import summarise_items

    sources = sources_for(request.topics, request.customKeywords)
    yield _line(
        {
            "type": "begin",
            "topics": request.topics,
            "keywords": request.customKeywords,
            "sources": len(sources),
        }
    )
    gathered = gather(
        request.topics, request.customKeywords, request.specificInterests, limit=request.limit
    )
    if gathered.all_failed:
        on_failure()
        yield _line(
            {
                "type": "error",
                "code": "backend_unavailable",
                "detail": "No news source answered. Retry shortly.",
            }
        )
        return
    summaries = summarise_items(
        [ranked.item for ranked in gathered.items], request.specificInterests or ""
    )
    for rank, ranked in enumerate(gathered.items, start=1):
        yield _line(
            {
                "type": "item",
                "rank": rank,
                **ranked.item.as_dict(),
                "summary": summaries[ranked.item.id],
                "score": round(ranked.score, 3),
                "matched": ranked.matched,
            }
        )
    # The overview reads the items only: the caller's specificInterests steer the ranking.
    overview = write([OverviewItem.of(ranked) for ranked in gathered.items], fresh="recent")
    note = failed_note(gathered.failed)
    yield _line(
        {
            "type": "summary",
            "text": f"{overview.text} {note}" if note else overview.text,
            "items": len(gathered.items),
            "failedSources": gathered.failed,
            **overview.event_fields(),
        }
    )
    yield _line({"type": "end", "items": len(gathered.items)})
