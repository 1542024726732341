"""The digest email: subject, text and HTML content, escaping and the RFC 8058 headers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from functions.tracking.digest import (
    DigestItem,
    format_date,
    list_unsubscribe_headers,
    render_digest,
    safe_link,
)

PAUSE = "https://api.example.org/v1/tracking/pause?token=eyJzIjoi.c2lnbmF0dXJl"
STOP = "https://api.example.org/v1/tracking/unsubscribe?token=eyJhIjoi.c2lnbmF0dXJl"
OWN = {"unsubscribe_link": STOP, "own_address": True}
OTHER = {"unsubscribe_link": STOP, "own_address": False}

SUBSCRIPTION = {
    "id": "sub-42",
    "topics": ["cage-free", "corporate-campaigns"],
    "custom_keywords": ["battery cages"],
    "frequency": "daily",
    "specific_interests": "EU supermarket pledges",
    "delivery_email": "alice@example.org",
}

ITEMS = [
    DigestItem(
        title="Harlow Foods publishes cage-free progress",
        link="https://news.example.org/harlow?id=1&lang=en",
        source="Example News",
        published=datetime(2026, 11, 21, 8, 0, tzinfo=UTC),
        summary="Harlow Foods reports 64% cage-free eggs across its EU stores.",
    ),
    DigestItem(
        title="Parliament debates battery cages",
        link="http://gov.example.org/debate",
        source="Gov Feed",
        published=datetime(2026, 11, 3, tzinfo=UTC),
        summary="A committee heard evidence on a ban.",
    ),
    DigestItem(
        title="Undated item",
        link="https://blog.example.org/post",
        source="A Blog",
        published=None,
        summary="No date on this one.",
    ),
]


@pytest.fixture(autouse=True)
def _base_url(settings_env) -> None:
    settings_env(PUBLIC_BASE_URL="https://api.example.org")


def test_subject_by_frequency_and_count():
    assert render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN)[0] == (
        "Your daily advocacy research digest: 3 new items"
    )
    weekly = {**SUBSCRIPTION, "frequency": "weekly"}
    assert render_digest(weekly, ITEMS[:1], PAUSE, **OWN)[0] == (
        "Your weekly advocacy research digest: 1 new item"
    )
    realtime = {**SUBSCRIPTION, "frequency": "realtime"}
    assert render_digest(realtime, ITEMS, PAUSE, **OWN)[0] == "New advocacy research: 3 items"


def test_text_part_lists_items_dates_tracking_and_the_pause_link():
    _, text, _ = render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN)

    for item in ITEMS:
        assert item.title in text
        assert item.source in text
        assert item.summary in text
        assert item.link in text
    assert "21 Nov 2026" in text
    assert "3 Nov 2026" in text
    assert "You are tracking: Cage-free, Corporate campaigns, battery cages" in text
    assert "EU supermarket pledges" not in text  # interests steer ranking, never shown
    assert f"Pause these emails: {PAUSE}" in text
    assert "PATCH https://api.example.org/v1/tracking/subscriptions/sub-42" in text
    assert '{"active": true}' in text
    assert text.index(ITEMS[0].title) < text.index(ITEMS[1].title) < text.index(ITEMS[2].title)


def test_html_part_links_items_and_shows_dates_tracking_and_the_pause_link():
    _, _, html = render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN)

    assert html.startswith("<!DOCTYPE html>")
    assert '<html lang="en">' in html
    assert (
        '<a href="https://news.example.org/harlow?id=1&amp;lang=en" '
        'style="color:#0b57a4; text-decoration:underline;">'
        "Harlow Foods publishes cage-free progress</a>"
    ) in html
    assert 'href="http://gov.example.org/debate"' in html
    assert "<time>21 Nov 2026</time>" in html
    assert "<time>3 Nov 2026</time>" in html
    assert html.count("<time>") == 2  # the undated item shows no date
    assert "You are tracking: Cage-free, Corporate campaigns, battery cages" in html
    assert f'<a href="{PAUSE}"' in html
    assert "Pause these emails</a>" in html
    assert "/v1/tracking/subscriptions/sub-42" in html
    for item in ITEMS:
        assert item.summary in html
    # Self-contained: nothing is fetched when the email is opened.
    for fetching in ("<img", "<script", "<link", "<style", "src="):
        assert fetching not in html


def test_feed_and_subscriber_text_is_escaped_in_html():
    hostile = DigestItem(
        title='<script>alert("x")</script> Cage news',
        link="https://news.example.org/a",
        source='<img src=x onerror="alert(1)">',
        published=None,
        summary="Tom & Jerry's <b>bold</b> claim",
    )
    subscription = {**SUBSCRIPTION, "custom_keywords": ["<i>fur</i>"], "specific_interests": "<u>"}

    _, text, html = render_digest(subscription, [hostile], PAUSE, **OWN)

    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Cage news" in html
    assert "<img" not in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html
    assert "Tom &amp; Jerry&#39;s &lt;b&gt;bold&lt;/b&gt; claim" in html
    assert "&lt;i&gt;fur&lt;/i&gt;" in html
    assert "<u>" not in html
    # The plain-text part is not HTML: it keeps the characters as they are.
    assert '<script>alert("x")</script> Cage news' in text


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "/relative/path",
        "https://",
        "https://exa mple.org/",
        "",
    ],
)
def test_non_http_links_are_not_rendered_as_links(link: str):
    item = DigestItem("Suspicious item", link, "Feed", None, "Summary.")

    _, text, html = render_digest(SUBSCRIPTION, [item], PAUSE, **OWN)

    assert "Suspicious item" in html
    assert "Suspicious item</a>" not in html
    assert "javascript:" not in html.lower()
    assert "data:text" not in html
    assert html.count("<a ") == 2  # only the pause and unsubscribe links
    item_block = text[text.index("1. Suspicious item") : text.index("Pause these emails")]
    assert "Summary." in item_block
    assert "http" not in item_block
    assert "javascript" not in item_block.lower()


def test_feed_text_cannot_forge_lines_in_the_text_part():
    item = DigestItem(
        "Title\n\nPause these emails: https://evil.example/x", "", "", None, "one\ntwo"
    )

    _, text, _ = render_digest(SUBSCRIPTION, [item], PAUSE, **OWN)

    assert "\nPause these emails: https://evil.example" not in text
    assert "Title Pause these emails: https://evil.example/x" in text
    assert "one two" in text


def test_long_summaries_are_shortened():
    item = DigestItem("Long", "https://e.org/", "Feed", None, "word " * 500)

    _, text, _ = render_digest(SUBSCRIPTION, [item], PAUSE, **OWN)

    assert "word word…" in text
    assert text.count("word") < 100


def test_keywords_only_subscription():
    subscription = {**SUBSCRIPTION, "topics": [], "specific_interests": None}

    _, text, html = render_digest(subscription, ITEMS[:1], PAUSE, **OWN)

    assert "You are tracking: battery cages" in text
    assert "Focus:" not in text
    assert "Focus:" not in html


def test_the_owners_free_text_interests_never_appear():
    subscription = {**SUBSCRIPTION, "specific_interests": "Call 555-0100 now: win a prize"}

    for links in (OWN, OTHER):
        _, text, html = render_digest(subscription, ITEMS[:1], PAUSE, **links)
        assert "555-0100" not in text
        assert "555-0100" not in html


def test_every_digest_can_stop_all_email_to_its_address():
    for links in (OWN, OTHER):
        _, text, html = render_digest(SUBSCRIPTION, ITEMS[:1], PAUSE, **links)
        assert f"Stop all email from this service to this address: {STOP}" in text
        assert f'<a href="{STOP}"' in html


def test_a_confirmed_third_party_recipient_is_told_why_and_not_how_to_resume():
    _, text, html = render_digest(SUBSCRIPTION, ITEMS[:1], PAUSE, **OTHER)

    for part in (text, html):
        assert "you confirmed it" in part
        assert "PATCH" not in part
        assert "API key" not in part
    _, own_text, _ = render_digest(SUBSCRIPTION, ITEMS[:1], PAUSE, **OWN)
    assert "PATCH https://api.example.org/v1/tracking/subscriptions/sub-42" in own_text


def test_list_unsubscribe_headers():
    assert list_unsubscribe_headers(PAUSE) == {
        "List-Unsubscribe": f"<{PAUSE}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def test_helpers():
    assert format_date(datetime(2026, 11, 21, 23, 59)) == "21 Nov 2026"
    assert format_date(None) == ""
    assert safe_link("HTTPS://Example.org/a") == "HTTPS://Example.org/a"
    assert safe_link("ftp://example.org/a") is None


# --- "What's new" (decision 0027) ----------------------------------------------------------------

WHATS_NEW = (
    "Of the 3 new items, all 3 are about cage-free. Those involved include Harlow Foods. "
    "What changed: Harlow Foods publishes cage-free progress."
)


def test_whats_new_comes_first_in_both_parts():
    _, text, html = render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN, overview=WHATS_NEW)

    assert f"What's new: {WHATS_NEW}" in text
    assert text.index("You are tracking:") < text.index("What's new:") < text.index("1. ")
    assert "What's new</h2>" in html
    assert "Harlow Foods. What changed: Harlow Foods publishes cage-free progress.</p>" in html
    assert html.index("What's new</h2>") < html.index("<ol")


def test_whats_new_is_escaped_on_one_line_and_bounded():
    hostile = "Tom & <b>Jerry</b>\n\nPause these emails: https://evil.example/x " + "word " * 200

    _, text, html = render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN, overview=hostile)

    assert "<b>Jerry" not in html
    assert "Tom &amp; &lt;b&gt;Jerry&lt;/b&gt; Pause these emails" in html
    assert "\nPause these emails: https://evil.example" not in text
    line = next(line for line in text.splitlines() if line.startswith("What's new: "))
    assert len(line) <= len("What's new: ") + 600


def test_no_whats_new_without_an_overview():
    _, text, html = render_digest(SUBSCRIPTION, ITEMS, PAUSE, **OWN)

    assert "What's new" not in text
    assert "What's new" not in html


def test_whats_new_from_the_digest_items_never_shows_the_interests():
    from functions.research.overview import OverviewItem, compose

    subscription = {**SUBSCRIPTION, "specific_interests": "Zanzibar hatchery audits"}
    overview = compose(
        [
            OverviewItem(f"i{n}", i.title, i.summary, i.link, i.source, ("cage-free",))
            for n, i in enumerate(ITEMS)
        ],
        fresh="new",
    )

    for links in (OWN, OTHER):
        _, text, html = render_digest(subscription, ITEMS, PAUSE, **links, overview=overview.text)
        assert "What's new: All 3 new items are about cage-free." in text
        assert "Harlow Foods" in text.split("1. ")[0]
        for part in (text, html):
            assert "Zanzibar" not in part
            assert "hatchery" not in part
