"""functions.research.gather: the catalog, sources, ranking, dedupe and exclusion."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from common import container
from common.adapters import feeds
from common.adapters.feeds import FeedItem
from common.catalog import topics
from devtools.feedserver import search_template, write_catalog
from functions.research.gather import Source, gather, rank, sources_for
from functions.research.gather import catalog as gather_catalog
from tests.fakes.feed_server import FakeFeedServer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def server():
    fake = FakeFeedServer()
    yield fake
    fake.shutdown()


@pytest.fixture(autouse=True)
def _clean(settings_env):
    settings_env()
    container.reset(feeds.CACHE)
    yield
    container.reset(feeds.CACHE)


@pytest.fixture
def local_feeds(server, settings_env, tmp_path):
    """The catalog and the news search pointed at the fixture server."""
    catalog = write_catalog(server.url, tmp_path / "catalog.json")
    settings_env(FEED_CATALOG_PATH=str(catalog), NEWS_SEARCH_URL=search_template(server.url))
    return server


def _item(key: str, title: str, summary: str = "", hours_old: float = 24) -> FeedItem:
    return FeedItem(
        id=key,
        title=title,
        link=f"https://news.example.org/{key}",
        source="Crafted",
        published=NOW - timedelta(hours=hours_old),
        summary=summary,
    )


TOPIC_FEED = Source("https://feeds.example.org/cage-free.xml", "topic", "cage-free")
SEARCH_FEED = Source("https://search.example.org/?q=battery+cages", "search", "battery cages")


# --- the catalog ---------------------------------------------------------------------------


def test_write_catalog_points_every_topic_of_the_catalog_at_the_server(tmp_path, settings_env):
    path = write_catalog("http://127.0.0.1:9", tmp_path / "c.json")
    settings_env(FEED_CATALOG_PATH=str(path))

    assert list(topics.feeds()) == list(topics.ids())
    for topic, urls in topics.feeds().items():
        assert urls == (f"http://127.0.0.1:9/feeds/{topic}.xml",)
    # the terms stay the catalog's
    assert gather_catalog()["cage-free"].terms == topics.catalog()["cage-free"].terms


# --- sources -------------------------------------------------------------------------------


def test_sources_url_encode_keywords(settings_env):
    settings_env(NEWS_SEARCH_URL="https://search.example.org/rss?q={query}&hl=en")

    sources = sources_for([], ["cage free eggs & hens", "Battery cages"])

    assert sources == [
        Source(
            "https://search.example.org/rss?q=cage+free+eggs+%26+hens&hl=en",
            "search",
            "cage free eggs & hens",
        ),
        Source("https://search.example.org/rss?q=Battery+cages&hl=en", "search", "Battery cages"),
    ]


def test_sources_deduplicate_feeds_and_keywords():
    sources = sources_for(["wildlife", "wildlife-trade", "cage-free"], ["fur", " FUR ", ""])

    urls = [s.url for s in sources]
    assert len(urls) == len(set(urls))
    mongabay = [s for s in sources if s.url == "https://news.mongabay.com/feed/"]
    assert mongabay == [Source("https://news.mongabay.com/feed/", "topic", "wildlife")]
    assert [s.label for s in sources if s.kind == "search"] == ["fur"]
    assert {s.label for s in sources if s.kind == "topic"} == {
        "wildlife",
        "wildlife-trade",
        "cage-free",
    }


# --- ranking -------------------------------------------------------------------------------


def test_keyword_in_title_outranks_a_topic_only_item():
    topic_only = _item("a", "Laying hens moved to new barns", hours_old=1)
    keyword = _item("b", "Retailer still sells eggs from battery cages", hours_old=100)

    ranked = rank(
        [(topic_only, TOPIC_FEED), (keyword, TOPIC_FEED)],
        ["cage-free"],
        ["battery cages"],
        None,
        now=NOW,
    )

    assert [r.item.id for r in ranked] == ["b", "a"]
    assert ranked[0].matched == ["cage-free", "battery cages"]
    assert ranked[1].matched == ["cage-free"]


def test_scores_follow_the_documented_weights():
    item = _item("a", "Battery cages banned", "The battery cage ban covers laying hens.", 0)

    [ranked] = rank([(item, SEARCH_FEED)], ["cage-free"], ["battery cages"], None, now=NOW)

    # keyword title 3 + summary 1 + its search feed 1; topic title 2 + summary 0.75; recency 1
    assert ranked.score == pytest.approx(3 + 1 + 1 + 2 + 0.75 + 1)


def test_interest_words_lift_an_item():
    plain = _item("a", "Cage-free pledge progress", "Companies report on progress.")
    lifted = _item("b", "Cage-free pledge progress", "Supermarket chains report on progress.")

    ranked = rank(
        [(plain, TOPIC_FEED), (lifted, TOPIC_FEED)],
        ["cage-free"],
        [],
        "I am interested in EU supermarket pledges",
        now=NOW,
    )

    assert [r.item.id for r in ranked] == ["b", "a"]
    # both have "pledge" (from "pledges"); only b has "supermarket": one more 0.5
    assert ranked[0].score - ranked[1].score == pytest.approx(0.5)


def test_interest_bonus_is_capped():
    words = "alpha bravo charlie delta echoes foxtrot golfer hotel"
    item = _item("a", f"Cage-free {words}")

    [with_interests] = rank([(item, TOPIC_FEED)], ["cage-free"], [], words, now=NOW)
    [without] = rank([(item, TOPIC_FEED)], ["cage-free"], [], None, now=NOW)

    assert with_interests.score - without.score == pytest.approx(2.0)


def test_unrelated_items_are_dropped():
    unrelated = _item("a", "Heatwave closes schools", "Temperatures hit 40C across the region.")
    related = _item("b", "Heatwave hits laying hens in barns")
    from_search = _item("c", "Opinion: the week in farming")

    ranked = rank(
        [(unrelated, TOPIC_FEED), (related, TOPIC_FEED), (from_search, SEARCH_FEED)],
        ["cage-free"],
        ["battery cages"],
        "heatwave temperatures",
        now=NOW,
    )

    # the topic feed alone does not make an item relevant; the keyword's search feed does
    assert sorted(r.item.id for r in ranked) == ["b", "c"]


def test_phrases_match_whole_words_case_insensitively():
    hits = [
        _item("a", "EGG prices rise"),
        _item("b", "Cage free farms grow"),
        _item("c", "Battery-cage ban"),
    ]
    misses = [_item("d", "Eggplant harvest"), _item("e", "Nutmeg shortage")]

    ranked = rank([(i, TOPIC_FEED) for i in hits + misses], ["cage-free"], [], None, now=NOW)

    assert sorted(r.item.id for r in ranked) == ["a", "b", "c"]


def test_ties_are_ordered_by_date_then_id(settings_env):
    settings_env(FEED_MAX_AGE_DAYS="30")  # older items all get no recency bonus: equal scores
    items = [
        _item("c", "Cage-free update", hours_old=50 * 24),
        _item("b", "Cage-free update", hours_old=50 * 24),
        _item("a", "Cage-free update", hours_old=40 * 24),
        FeedItem("0", "Cage-free update", "https://news.example.org/0", "s", None, ""),
    ]

    ranked = rank([(i, TOPIC_FEED) for i in items], ["cage-free"], [], None, now=NOW)
    again = rank([(i, TOPIC_FEED) for i in reversed(items)], ["cage-free"], [], None, now=NOW)

    assert len({r.score for r in ranked}) == 1
    assert [r.item.id for r in ranked] == ["a", "b", "c", "0"]
    assert [r.item.id for r in again] == ["a", "b", "c", "0"]


def test_recency_decays_over_the_max_age(settings_env):
    settings_env(FEED_MAX_AGE_DAYS="10")
    fresh, middle, old = (
        _item(k, "Cage-free", hours_old=h) for k, h in [("f", 0), ("m", 120), ("o", 300)]
    )

    scores = {
        r.item.id: r.score
        for r in rank(
            [(i, TOPIC_FEED) for i in (fresh, middle, old)], ["cage-free"], [], None, now=NOW
        )
    }

    assert scores["f"] - scores["o"] == pytest.approx(1.0)
    assert scores["m"] - scores["o"] == pytest.approx(0.5)


# --- gather against the fixture server ----------------------------------------------------


def test_gather_ranks_fixture_feeds(local_feeds):
    gathered = gather(
        ["cage-free", "fur"], ["battery cage"], "Harlow Foods supermarket deadline", limit=4
    )

    assert gathered.sources == 3
    assert gathered.failed == []
    assert not gathered.all_failed
    assert len(gathered.items) == 4
    # the fixture item naming the keyword and the interests comes first (the news search for
    # the keyword finds it too; it is gathered once)
    top = gathered.items[0]
    assert top.item.title == "Harlow Foods misses its 2025 cage-free egg deadline"
    assert top.matched == ["cage-free", "battery cage"]
    titles = [r.item.title for r in gathered.items]
    assert len(titles) == len(set(titles))
    scores = [r.score for r in gathered.items]
    assert scores == sorted(scores, reverse=True)
    paths = [path for path, _ in local_feeds.requests]
    assert "/search?q=battery+cage" in paths


def test_gather_reports_failed_sources_and_keeps_the_others(server, settings_env, tmp_path):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(
        json.dumps(
            {
                "topics": {
                    "cage-free": {
                        "feeds": [f"{server.url}/error.xml", f"{server.url}/feeds/cage-free.xml"]
                    },
                    "fur": {"feeds": [f"{server.url}/broken.xml"]},
                }
            }
        )
    )
    settings_env(FEED_CATALOG_PATH=str(catalog), NEWS_SEARCH_URL=search_template(server.url))

    gathered = gather(["cage-free", "fur"], [], None, limit=10)
    assert gathered.sources == 3
    assert gathered.failed == ["cage-free", "fur"]
    assert len(gathered.items) == 3
    assert not gathered.all_failed

    nothing = gather(["fur"], [], None, limit=10)
    assert nothing.all_failed
    assert nothing.items == []
    assert nothing.failed == ["fur"]


def test_gather_drops_duplicates_by_id_and_normalised_title(settings_env, tmp_path):
    base = {"topic": "cage-free", "summary": "Laying hens.", "age_hours": 5}
    items = [
        {
            **base,
            "guid": "g1",
            "title": "Harlow Foods misses cage-free deadline",
            "link": "https://news.example.org/1",
        },
        {
            **base,
            "guid": "g2",
            "title": "HARLOW FOODS misses cage-free deadline!",
            "link": "https://news.example.org/2",
            "age_hours": 1,
        },
        {
            **base,
            "guid": "g3",
            "title": "Another cage-free story",
            "link": "https://news.example.org/3",
        },
    ]
    with FakeFeedServer(items=items) as fake:
        catalog = write_catalog(fake.url, tmp_path / "catalog.json")
        document = json.loads(catalog.read_text())
        # the same items once more, as Atom (same ids), in the same topic
        document["topics"]["cage-free"]["feeds"].append(f"{fake.url}/atom/cage-free.xml")
        catalog.write_text(json.dumps(document))
        settings_env(FEED_CATALOG_PATH=str(catalog))

        gathered = gather(["cage-free"], [], None, limit=10)

    assert gathered.sources == 2
    titles = [r.item.title for r in gathered.items]
    # g2 is newer, so it is the copy kept; the Atom copies share the RSS ids
    assert titles == ["HARLOW FOODS misses cage-free deadline!", "Another cage-free story"]
    assert len({r.item.id for r in gathered.items}) == 2


def test_exclude_is_called_once_and_drops_ids(local_feeds):
    full = [r.item.id for r in gather(["cage-free", "fur"], [], None, limit=10).items]
    calls: list[list[str]] = []

    def already_sent(ids: list[str]) -> set[str]:
        calls.append(ids)
        return {full[0], "not-a-candidate"}

    gathered = gather(["cage-free", "fur"], [], None, limit=3, exclude=already_sent)

    assert len(full) == 6
    assert calls == [full]  # once, with every candidate, not only the first `limit`
    assert [r.item.id for r in gathered.items] == full[1:4]


def test_limit_bounds_the_result(local_feeds):
    assert len(gather(["wildlife", "fishing", "dairy"], [], None, limit=2).items) == 2
    assert gather(["wildlife"], [], None, limit=0).items == []
