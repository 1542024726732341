"""The topic catalog (data/topics.toml, common.catalog.topics; decision 0019): one file holds each
topic's name, description, ranking terms, chat mentions and feeds; it is checked when loaded, never
read at import, and FEED_CATALOG_PATH replaces only its feeds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from common import container
from common.catalog import topics
from common.datafiles import DATA, ContentError, read
from common.offline.entities import topics_in

ROOT = Path(__file__).resolve().parents[2]

DESIGNED = [
    "factory-farming",
    "legislation",
    "wildlife",
    "cage-free",
    "ag-gag",
    "animal-testing",
    "fur",
    "aquaculture",
    "fishing",
    "live-export",
    "slaughter",
    "dairy",
    "plant-based",
    "cultivated-meat",
    "companion-animals",
    "marine-mammals",
    "zoos-aquariums",
    "wildlife-trade",
    "zoonotic-disease",
    "corporate-campaigns",
]  # fmt: skip (DESIGN.md §3, in the order the API lists them)

GOOD = """
[topic.fur]
name = "Fur"
description = "Fur farming, trade and bans."
terms = ["fur", "fur farming", "mink", "fur trade"]
mentions = ["fur", "mink"]
feeds = ["https://example.org/fur.xml"]
"""


@pytest.fixture(autouse=True)
def _fresh_feeds():
    container.reset(topics.FEED_CATALOGS)
    yield
    container.reset(topics.FEED_CATALOGS)


def test_the_catalog_has_the_designed_topics_in_order():
    assert list(topics.ids()) == DESIGNED
    assert topics.name_of("cage-free") == "Cage-free"
    assert topics.catalog()["ag-gag"].description == (
        "Laws restricting undercover investigations on farms."
    )


def test_the_catalog_file_is_what_the_loader_checks():
    catalog = read(DATA / "topics.toml", topics.Catalog)
    assert list(catalog.topic) == DESIGNED
    for topic_id, topic in catalog.topic.items():
        assert 4 <= len(topic.terms) <= 10, topic_id
        assert 1 <= len(topic.feeds) <= 3, topic_id
        assert all(url.startswith("https://") for url in topic.feeds), topic_id


def test_an_unknown_id_names_itself():
    assert topics.name_of("whaling") == "whaling"
    assert not topics.is_topic("whaling")


def test_a_good_topic_file_loads(tmp_path):
    path = tmp_path / "topics.toml"
    path.write_text(GOOD)
    assert read(path, topics.Catalog).topic["fur"].mentions == ("fur", "mink")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            ('"mink", "fur trade"]', '"Mink", "fur trade"]'),
            "topic.fur.terms[2]: must be written in lower case",
        ),
        (
            ('"mink", "fur trade"]', '"fur", "fur trade"]'),
            "topic.fur.terms: lists the same entry twice",
        ),
        (("https://example.org", "http://example.org"), "topic.fur.feeds[0]"),
        (('name = "Fur"', 'name = "Fur"\nsynonyms = ["pelt"]'), "topic.fur.synonyms: Extra"),
        (('mentions = ["fur", "mink"]\n', ""), "topic.fur.mentions: Field required"),
        (("[topic.fur]", "[topic.Fur]"), "topic.Fur.[key]: String should match pattern"),
    ],
)
def test_a_bad_edit_names_the_topic_and_the_field(tmp_path, change, named):
    path = tmp_path / "topics.toml"
    path.write_text(GOOD.replace(*change))
    with pytest.raises(ContentError) as caught:
        read(path, topics.Catalog)
    assert named in str(caught.value)


def test_nothing_is_read_at_import():
    """Importing the models that publish the topic enum reads no file: the catalog is read when
    a request (or a schema) first needs it."""
    code = (
        "import functions.tracking.models, functions.research.models, common.offline.memory\n"
        "from common.catalog import topics\n"
        "assert topics.catalog.cache_info().currsize == 0\n"
        "import functions.tracking.models as m\n"
        "schema = m.SubscriptionCreate.model_json_schema()\n"
        "assert schema['properties']['topics']['items']['enum'][0] == 'factory-farming'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_feed_catalog_path_replaces_the_feeds_only(tmp_path, settings_env):
    path = tmp_path / "feeds.json"
    path.write_text(json.dumps({"topics": {"fur": {"feeds": ["http://127.0.0.1:9/fur.xml"]}}}))
    assert topics.feeds()["fur"] == topics.catalog()["fur"].feeds  # unset: the catalog's own

    settings_env(FEED_CATALOG_PATH=str(path))

    assert topics.feeds() == {"fur": ("http://127.0.0.1:9/fur.xml",)}  # the others: none
    assert topics.catalog()["fur"].terms[0] == "fur"  # terms and names stay the catalog's


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"topics": {"whaling": {"feeds": []}}}, "topics not in the catalog: ['whaling']"),
        ({"topics": {"fur": {"terms": ["fur"], "feeds": []}}}, "topics.fur.terms: Extra inputs"),
        ({"topics": {"fur": {"feeds": ["ftp://x/y"]}}}, "topics.fur.feeds.0: String should"),
        ("not json", "is not valid JSON"),
    ],
)
def test_a_bad_feed_catalog_names_the_file_and_the_problem(tmp_path, settings_env, document, named):
    path = tmp_path / "feeds.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    settings_env(FEED_CATALOG_PATH=str(path))

    with pytest.raises(ContentError) as caught:
        topics.feeds()
    assert str(path) in str(caught.value)
    assert named in str(caught.value)


def test_chat_messages_point_at_topics_by_their_mentions_and_their_id():
    assert topics_in("We fight fur farms, and whales kept in captivity.") == [
        "fur",
        "marine-mammals",
        "zoos-aquariums",
    ]
    assert topics_in("Anything new on ag gag bills?") == ["legislation", "ag-gag"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a mention of four letters or fewer is a whole word, with a plural's "s"
        ("Sign our petition today.", []),
        ("Further reading for Peter.", []),
        ("A billion hens on the lawn.", []),
        ("Our pets and the new laws.", ["legislation", "companion-animals"]),
        # a topic's `unless` phrases do not point at it
        ("Hot dogs and bacon.", []),
        ("Hot dogs, and dogs in shelters.", ["companion-animals"]),
    ],
)
def test_short_mentions_are_whole_words_and_unless_phrases_are_not_mentions(text, found):
    """Decision 0092: "pet" had found "petition", "fur" "further", "dogs" "hot dogs"."""
    assert topics_in(text) == found
