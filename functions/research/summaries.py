"""Short summaries of gathered news items: the provider when configured, else extractive.

One provider call summarises a whole digest (not one call per item). If the provider fails or
leaves an item out, that item gets the extractive summary: the first sentences of its own text
(already screened, ``gather.screened``), so a summary never says more than the source did. The
provider's summaries pass the personal-data screen too (``common.privacy``, decision 0037).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from common.adapters.llm import ChatProvider, provider_or_offline
from common.adapters.prompts import prompt
from common.language import clip
from common.language.sentences import split
from common.privacy import screen_text

if TYPE_CHECKING:
    from common.adapters.feeds import FeedItem

logger = logging.getLogger("ars.research")
MAX_CHARS = 320


class _ItemSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    summary: str = Field(max_length=600)


class _Summaries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summaries: list[_ItemSummary]


def extractive(item: FeedItem) -> str:
    """The first one or two sentences of the item's text (its title when it has none)."""
    picked = split(item.summary)[:2] if item.summary else []
    text = " ".join(picked) or item.title
    return clip(text, MAX_CHARS)


def summarise_items(items: Sequence[FeedItem], context: str = "") -> dict[str, str]:
    """item id -> summary, for every item: the provider's, screened (decision 0037), where it
    wrote one; the extractive one otherwise, and for all of them when it fails."""
    summaries = {item.id: extractive(item) for item in items}
    if not items:
        return summaries
    data = [{"id": i.id, "title": i.title, "text": i.summary[:1000]} for i in items]

    def ask(provider: ChatProvider) -> dict[str, str]:
        answer = provider.complete_json(
            [
                {"role": "system", "content": prompt("research_summaries.v1")},
                {"role": "user", "content": json.dumps({"context": context, "items": data})},
            ],
            _Summaries,
            schema_name="item_summaries",
            max_tokens=120 * len(items),
        )
        written = dict(summaries)
        for entry in answer.summaries:
            text = screen_text(entry.summary.strip()).text.strip()  # decision 0037
            if entry.id in written and text:
                written[entry.id] = text[:MAX_CHARS]
        return written

    return provider_or_offline(ask, lambda: summaries, on_failure="offline", what="item summaries")[
        0
    ]
