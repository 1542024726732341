"""common.logging: the JSON lines never carry a URL's query string (decision 0016)."""

from __future__ import annotations

import json
import logging

import pytest

from common.logging import JsonFormatter, redact_urls


def line(message: str, *args: object, **extra: object) -> dict:
    record = logging.LogRecord("ars.test", logging.WARNING, __file__, 1, message, args, None)
    record.__dict__.update(extra)
    return json.loads(JsonFormatter().format(record))  # still one valid JSON object


def test_query_strings_are_cut_from_the_message_and_every_field():
    entry = line(
        "feed %s failed",
        "https://news.google.com/rss/search?q=battery+cages&hl=en",
        url="http://127.0.0.1:8080/v1/tracking/pause?token=abc.def",
        nested={"requestUrl": "https://news.example.org/feed?q=fur#top"},
    )

    assert entry["message"] == "feed https://news.google.com/rss/search?[redacted] failed"
    assert entry["url"] == "http://127.0.0.1:8080/v1/tracking/pause?[redacted]"
    assert entry["nested"] == {"requestUrl": "https://news.example.org/feed?[redacted]"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'GET https://x.org/s?q=a "HTTP/1.1 200 OK"',
            'GET https://x.org/s?[redacted] "HTTP/1.1 200 OK"',
        ),
        ("https://x.org/café/?q=véal&x=1 then", "https://x.org/café/?[redacted] then"),
        ("<https://x.org/?q=a>, more", "<https://x.org/?[redacted]>, more"),
        ("url='https://x.org/?q=a'", "url='https://x.org/?[redacted]'"),
        ("https://x.org/?q=a\nnext line", "https://x.org/?[redacted]\nnext line"),
        ("no URL here?q=a; https://x.org/path.", "no URL here?q=a; https://x.org/path."),
    ],
)
def test_the_url_ends_where_text_or_a_json_escape_ends_it(text, expected):
    assert line("%s", text)["message"] == expected
    assert redact_urls(text) == expected
