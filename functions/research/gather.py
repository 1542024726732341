"""Gathering and ranking news items for topics and keywords.

Shared by the one-shot research endpoint and tracking digests, so both rank the same way, and
both show only what passed the personal-data screen (``screened``). The
sources are the topic catalog's feeds (``common.catalog.topics``) and one news-search feed per
keyword (``NEWS_SEARCH_URL``). Ranking is plain, explainable arithmetic (see ``rank``) rather
than a model: a subscriber can be told why an item was picked (``RankedItem.matched``), and the
same feeds always give the same order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import TYPE_CHECKING
from urllib.parse import quote_plus

from common.adapters.feeds import FeedItem, fetch_all
from common.catalog import topics as topic_catalog
from common.config import get_settings
from common.datafiles import Content, LowerWords, load

if TYPE_CHECKING:
    from common.privacy import Known

KEYWORD_IN_TITLE = 3.0
KEYWORD_IN_SUMMARY = 1.0
TOPIC_IN_TITLE = 2.0
TOPIC_IN_SUMMARY = 0.75
FROM_SOURCE = 1.0
INTEREST_TOKEN = 0.5
INTEREST_CAP = 2.0
RECENCY_MAX = 1.0
INTEREST_MIN_LENGTH = 4


class _StopWords(Content):
    words: LowerWords


@cache
def stop_words() -> frozenset[str]:
    """Words that say nothing about what a subscriber is interested in (data, decision 0020)."""
    return load("research/stop_words.toml", _StopWords).words


@dataclass(frozen=True)
class Source:
    """One feed to read, and why: a topic's catalog feed or a keyword's news search."""

    url: str
    kind: str  # "topic" or "search"
    label: str  # the topic or the keyword


@dataclass(frozen=True)
class RankedItem:
    item: FeedItem
    score: float
    matched: list[str]  # topics, then keywords, in request order


@dataclass
class Gathered:
    items: list[RankedItem]  # best first
    sources: int  # number of sources tried
    failed: list[str]  # one label per failed source (a topic repeats if several feeds failed)

    @property
    def all_failed(self) -> bool:
        """True when there were sources and none of them answered."""
        return self.sources > 0 and len(self.failed) >= self.sources


@dataclass(frozen=True)
class TopicFeeds:
    terms: tuple[str, ...]
    feeds: tuple[str, ...]


def catalog() -> dict[str, TopicFeeds]:
    """Each topic's relevance terms and feeds: the topic catalog's (``common.catalog.topics``),
    whose feeds FEED_CATALOG_PATH may replace."""
    feeds = topic_catalog.feeds()
    return {
        topic_id: TopicFeeds(topic.terms, feeds.get(topic_id, ()))
        for topic_id, topic in topic_catalog.catalog().items()
    }


def sources_for(topics: list[str], keywords: list[str]) -> list[Source]:
    """The feeds to read: each topic's catalog feeds (a feed shared by topics once), then one
    news-search feed per distinct keyword. Topics missing from the catalog have no feeds."""
    known = catalog()
    sources: list[Source] = []
    seen: set[str] = set()
    for topic in topics:
        for url in known[topic].feeds if topic in known else ():
            if url not in seen:
                seen.add(url)
                sources.append(Source(url, "topic", topic))
    template = get_settings().news_search_url
    for keyword in _distinct(keywords):
        url = template.replace("{query}", quote_plus(keyword))
        if url not in seen:
            seen.add(url)
            sources.append(Source(url, "search", keyword))
    return sources


def gather(
    topics: list[str],
    keywords: list[str],
    interests: str | None,
    *,
    limit: int,
    exclude: Callable[[list[str]], set[str]] | None = None,
    known: Known | None = None,
) -> Gathered:
    """Fetch every source, rank, drop duplicates and already-sent items, keep the best
    ``limit``.

    ``exclude`` is called once with the ids of all ranked candidates (not only the first
    ``limit``), so items dropped as already sent are replaced by the next best ones. It is not
    called when there are no candidates. ``known``: what the screen may know (the opt-out
    list, ``common.subjects.optout.screen_known``, read by the door).
    """
    keywords = _distinct(keywords)
    sources = sources_for(topics, keywords)
    results = fetch_all([source.url for source in sources])
    # A feed shared by several requested topics was fetched once but speaks for each of them.
    labels_of_url = _topic_labels_by_url(topics)
    pairs: list[tuple[FeedItem, Source]] = []
    failed: list[str] = []
    for source, result in zip(sources, results, strict=True):
        if result.error is not None:
            failed.append(source.label)
            continue
        extra = [label for label in labels_of_url.get(source.url, []) if label != source.label]
        for item in result.items:
            pairs.append((item, source))
            pairs.extend((item, Source(source.url, "topic", label)) for label in extra)
    candidates = _dedupe(rank(pairs, topics, keywords, interests))
    if exclude is not None and candidates:
        dropped = exclude([ranked.item.id for ranked in candidates]) or set()
        candidates = [ranked for ranked in candidates if ranked.item.id not in dropped]
    return Gathered(screened(candidates, max(0, limit), known), len(sources), failed)


def screened(
    candidates: list[RankedItem], limit: int, known: Known | None = None
) -> list[RankedItem]:
    """The best ``limit`` items after the personal-data screen (``common.privacy``, decision
    0037): a summary loses its sentences that carry personal data about a person; an item
    whose title carries some, or that names a person on the opt-out list anywhere (decision
    0058), is left out, and the next best takes its place."""
    from dataclasses import replace

    from common import privacy
    from common.privacy.screen import opted_out_named

    known = known or privacy.NOBODY
    kept: list[RankedItem] = []
    start = 0
    while len(kept) < limit and start < len(candidates):
        batch = candidates[start : start + limit - len(kept)]
        start += len(batch)
        if known.opted_out:
            batch = [
                ranked
                for ranked in batch
                if not opted_out_named(
                    f"{ranked.item.title}. {ranked.item.summary}", known.opted_out
                )
            ]
        titles = privacy.screen_many([ranked.item.title for ranked in batch], known)
        for ranked, title_verdict in zip(batch, titles, strict=True):
            if title_verdict is not None:
                continue
            summary = privacy.screen_text(ranked.item.summary, known).text
            if summary != ranked.item.summary:
                ranked = replace(ranked, item=replace(ranked.item, summary=summary))
            kept.append(ranked)
    return kept


def rank(
    items: Iterable[tuple[FeedItem, Source]],
    topics: list[str],
    keywords: list[str],
    interests: str | None,
    *,
    now: datetime | None = None,
) -> list[RankedItem]:
    """Score and order items (an item seen in several feeds is scored once, with every source).

    Per keyword: phrase in the title 3.0, in the summary 1.0. Per topic: any of its catalog
    terms in the title 2.0, in the summary 0.75. Per topic or keyword whose feed the item came
    from: 1.0. Each distinct interest word (4+ letters, not a stop word) found: 0.5, at most 2.0
    in all. Recency: up to 1.0, falling linearly to 0 at FEED_MAX_AGE_DAYS.

    An item is kept only when a topic term or keyword phrase appears in its text, or when it
    came from a keyword's search feed (the search engine matched it already). Coming from a
    broad topic feed alone (a newspaper's environment section) only lifts an item that is on
    topic; it does not make an off-topic one relevant.
    """
    settings = get_settings()
    now = now or datetime.now(UTC)
    known = catalog()
    topic_patterns = [
        (topic, _any_phrase(known[topic].terms if topic in known else (topic.replace("-", " "),)))
        for topic in _distinct(topics)
    ]
    keyword_list = _distinct(keywords)
    keyword_patterns = [(keyword, _any_phrase((keyword,))) for keyword in keyword_list]
    interest_patterns = [_any_phrase((token,)) for token in _interest_tokens(interests)]
    max_age_s = settings.feed_max_age_days * 86_400

    merged: dict[str, tuple[FeedItem, set[tuple[str, str]]]] = {}
    for item, source in items:
        entry = merged.setdefault(item.id, (item, set()))
        entry[1].add((source.kind, source.label))

    ranked: list[RankedItem] = []
    for item, origins in merged.values():
        title, summary = item.title, item.summary
        score = 0.0
        matched: list[str] = []
        relevant = False
        from_labels = {label for _kind, label in origins}
        for topic, pattern in topic_patterns:
            hit = False
            if pattern is not None and pattern.search(title):
                score, hit = score + TOPIC_IN_TITLE, True
            if pattern is not None and pattern.search(summary):
                score, hit = score + TOPIC_IN_SUMMARY, True
            if ("topic", topic) in origins:
                score += FROM_SOURCE
            relevant = relevant or hit
            if hit or topic in from_labels:
                matched.append(topic)
        for keyword, pattern in keyword_patterns:
            hit = False
            if pattern is not None and pattern.search(title):
                score, hit = score + KEYWORD_IN_TITLE, True
            if pattern is not None and pattern.search(summary):
                score, hit = score + KEYWORD_IN_SUMMARY, True
            searched = ("search", keyword) in origins
            if searched:
                score += FROM_SOURCE
            relevant = relevant or hit or searched
            if (hit or keyword in from_labels) and keyword not in matched:
                matched.append(keyword)
        if not relevant:
            continue
        found = sum(
            1
            for pattern in interest_patterns
            if pattern is not None and (pattern.search(title) or pattern.search(summary))
        )
        score += min(INTEREST_CAP, INTEREST_TOKEN * found)
        if item.published is not None:
            age_s = max(0.0, (now - item.published).total_seconds())
            score += RECENCY_MAX * max(0.0, 1.0 - age_s / max_age_s)
        ranked.append(RankedItem(item, round(score, 6), matched))

    ranked.sort(
        key=lambda r: (
            -r.score,
            -(r.item.published.timestamp() if r.item.published else float("-inf")),
            r.item.id,
        )
    )
    return ranked


def normalised_title(title: str) -> str:
    """Lower-case words only: the same story syndicated with other punctuation or case."""
    return " ".join(re.findall(r"\w+", title.casefold()))


def _dedupe(ranked: list[RankedItem]) -> list[RankedItem]:
    """Keep the best-ranked copy of each story (same id, or same normalised title)."""
    seen_ids: set[str] = set()
    seen_titles: set[str] = set()
    kept: list[RankedItem] = []
    for entry in ranked:
        title = normalised_title(entry.item.title)
        if entry.item.id in seen_ids or (title and title in seen_titles):
            continue
        seen_ids.add(entry.item.id)
        seen_titles.add(title)
        kept.append(entry)
    return kept


def _topic_labels_by_url(topics: list[str]) -> dict[str, list[str]]:
    known = catalog()
    labels: dict[str, list[str]] = {}
    for topic in _distinct(topics):
        for url in known[topic].feeds if topic in known else ():
            labels.setdefault(url, []).append(topic)
    return labels


def _distinct(values: Iterable[str]) -> list[str]:
    """Stripped, non-empty values, first spelling kept, duplicates (any case) dropped."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        value = (value or "").strip()
        if value and value.casefold() not in seen:
            seen.add(value.casefold())
            out.append(value)
    return out


def _interest_tokens(interests: str | None) -> list[str]:
    tokens = re.findall(r"\w+", (interests or "").casefold())
    stop = stop_words()
    return _distinct(
        token
        for token in tokens
        if len(token) >= INTEREST_MIN_LENGTH and token not in stop and not token.isdigit()
    )


def _singular(word: str) -> str:
    """A crude singular (the pattern adds the plural ending back as optional)."""
    if len(word) >= 5 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=2048)  # keys include user keywords: bounded
def _any_phrase(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One case-insensitive pattern matching any of ``phrases`` as whole words.

    Words of a phrase may be joined by any punctuation ("cage free" finds "cage-free"), and
    the last word matches in the singular or the plural ("battery cages" finds "battery cage").
    """
    alternatives = []
    for phrase in phrases:
        words = re.findall(r"\w+", phrase.casefold())
        if words:
            words[-1] = _singular(words[-1])
            alternatives.append(r"\W*".join(re.escape(word) for word in words))
    if not alternatives:
        return None
    body = "|".join(sorted(set(alternatives), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{body})(?:s|es)?(?!\w)", re.IGNORECASE)
