"""Jurisdictions as data (data/legal/jurisdictions.toml, decision 0026): names, codes and
cities map to the knowledge tags of notes about a place's law, general to specific, and the
documents whose scope is narrower than their tags are never quoted for the wrong place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from common.datafiles import DATA, ContentError, read
from functions.legal import jurisdictions
from functions.legal.jurisdictions import (
    Jurisdictions,
    mentioned_in,
    named_in_sentence,
    tags_for,
)

KNOWLEDGE = DATA / "knowledge"
GB = ("jurisdiction-gb",)
IOWA = ("jurisdiction-us-ia", "jurisdiction-us")
PROTEST_LAW_URL = "https://www.legislation.gov.uk/ukpga/1986/64"


def front_matter(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    block = text.split("---", 2)[1]
    return {
        k.strip(): v.strip() for k, v in (line.split(":", 1) for line in block.strip().splitlines())
    }


def corpus() -> dict[str, dict[str, str]]:
    return {p.stem: front_matter(p) for p in KNOWLEDGE.glob("*.md") if p.name != "README.md"}


@pytest.mark.parametrize(
    ("text", "key", "name", "tags"),
    [
        ("England", "england", "England", GB),
        ("england", "england", "England", GB),
        ("England and Wales", "england-and-wales", "England and Wales", GB),
        ("Wales", "wales", "Wales", GB),
        ("London", "england", "England", GB),
        ("London, UK", "england", "England", GB),
        ("UK", "uk", "the United Kingdom", GB),
        ("United Kingdom", "uk", "the United Kingdom", GB),
        ("Great Britain", "uk", "the United Kingdom", GB),
        ("Iowa", "us-ia", "Iowa", IOWA),
        ("IA", "us-ia", "Iowa", IOWA),
        ("ia", "us-ia", "Iowa", IOWA),
        ("US-IA", "us-ia", "Iowa", IOWA),
        ("Des Moines, IA", "us-ia", "Iowa", IOWA),
        ("California", "us-ca", "California", ("jurisdiction-us-ca", "jurisdiction-us")),
        ("CA", "us-ca", "California", ("jurisdiction-us-ca", "jurisdiction-us")),
        ("United States", "us", "the United States", ("jurisdiction-us",)),
        ("US", "us", "the United States", ("jurisdiction-us",)),
        ("USA", "us", "the United States", ("jurisdiction-us",)),
        ("Texas", "us-tx", "Texas", ("jurisdiction-us",)),
        ("Portland, OR", "us-or", "Oregon", ("jurisdiction-us",)),
        ("EU", "eu", "the European Union", ("jurisdiction-eu",)),
        ("European Union", "eu", "the European Union", ("jurisdiction-eu",)),
        ("Germany", "eu-de", "Germany", ("jurisdiction-eu",)),
        ("Ireland", "eu-ie", "Ireland", ("jurisdiction-eu",)),
    ],
)
def test_names_codes_and_cities_map_to_tags_own_first(text, key, name, tags):
    match = tags_for(text)
    assert match is not None
    assert (match.key, match.name, match.tags) == (key, name, tags)


def test_a_place_inherits_the_tags_of_the_places_containing_it():
    iowa = tags_for("Iowa")
    assert iowa is not None
    assert iowa.chain == ("us-ia", "us")
    assert iowa.tags.index("jurisdiction-us-ia") < iowa.tags.index("jurisdiction-us")
    england = tags_for("England")
    assert england is not None
    assert england.chain == ("england", "england-and-wales", "uk")


@pytest.mark.parametrize("text", ["Narnia", "Kenya", "", "   ", None, "Atlantis, Narnia"])
def test_unknown_places_are_not_recognised(text):
    assert tags_for(text) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Northern Ireland", "northern-ireland"),  # not Ireland
        ("New South Wales", "au-nsw"),  # not Wales
        ("British Columbia", "ca-bc"),  # not the United Kingdom
        ("New England", "us-new-england"),  # not England
        ("New York", "us-ny"),  # not York
        ("Washington, D.C.", "us-dc"),
    ],
)
def test_the_longest_name_wins(text, key):
    match = tags_for(text)
    assert match is not None
    assert match.key == key


def test_places_known_only_to_avoid_mistakes_have_no_notes():
    for text in ("Ontario", "New South Wales", "Queensland, Australia", "Canada"):
        match = tags_for(text)
        assert match is not None
        assert match.tags == ()


def test_a_city_yields_to_a_name_it_is_not_inside():
    alabama = tags_for("Birmingham, Alabama")
    ontario = tags_for("London, Ontario")
    assert alabama is not None
    assert alabama.key == "us-al"
    assert ontario is not None
    assert (ontario.key, ontario.tags) == ("ca-on", ())


def test_two_places_give_the_smallest_place_containing_both_else_the_first():
    both = tags_for("Iowa and California")
    assert both is not None
    assert (both.key, both.named) == ("us", "Iowa and California")
    apart = tags_for("UK and US")
    assert apart is not None
    assert apart.key == "uk"


def test_scotland_and_northern_ireland_are_not_england_and_wales():
    scotland, ni, england = tags_for("Scotland"), tags_for("Northern Ireland"), tags_for("England")
    assert scotland is not None
    assert ni is not None
    assert england is not None
    # The United Kingdom's tag applies, but never gb-protest-law, which covers England and Wales.
    assert scotland.tags == ni.tags == GB
    assert not scotland.admits(PROTEST_LAW_URL)
    assert not ni.admits(PROTEST_LAW_URL)
    assert england.admits(PROTEST_LAW_URL)
    assert tags_for("Wales").admits(PROTEST_LAW_URL)
    assert tags_for("UK").admits(PROTEST_LAW_URL)  # within it
    assert scotland.admits("https://www.legislation.gov.uk/ukpga/2000/33")  # UK-wide notes
    assert scotland.note is not None
    assert "England and Wales" in scotland.note
    assert england.note is None


def test_free_text_finds_names_and_cities_but_not_codes_or_pronouns():
    london = mentioned_in("We're planning a march through central London next month")
    iowa = mentioned_in("We have hidden-camera footage from an Iowa pig farm; can we publish it?")
    assert london is not None
    assert (london.key, london.named) == ("england", "London")
    assert iowa is not None
    assert iowa.key == "us-ia"
    assert mentioned_in("Tell us what we can do for hens") is None  # "us" is not the US
    assert mentioned_in("WE ARE IN A HURRY, OR NOT") is None  # IN and OR are codes only
    assert mentioned_in(None) is None
    uk = mentioned_in("Our UK members will march")
    assert uk is not None
    assert uk.key == "uk"


def test_sentences_are_about_the_places_they_name_not_their_cities():
    assert named_in_sentence(
        "In Animal Legal Defense Fund v. Wasden, 878 F.3d 1184 (9th Cir. 2018), the Ninth "
        "Circuit struck down Idaho's bans."
    ) == ["us-id"]
    assert named_in_sentence("In England and Wales, the Defamation Act 2013 applies.") == [
        "england-and-wales"
    ]
    assert named_in_sentence("A review at the London School of Economics found it.") == []
    assert named_in_sentence("Relying on United States v. Alvarez, 567 U.S. 709") == ["us"]


# -- the data agrees with the knowledge corpus -------------------------------------------------


def test_every_jurisdiction_tag_of_the_corpus_is_mapped_and_every_mapped_tag_exists():
    used = {
        tag.strip()
        for meta in corpus().values()
        for tag in meta["tags"].split(",")
        if tag.strip().startswith("jurisdiction-")
    }
    mapped = {tag for j in jurisdictions.data().jurisdiction for tag in j.tags}
    assert used == mapped


def test_declared_scopes_match_their_documents():
    documents = corpus()
    assert jurisdictions.data().source
    for source in jurisdictions.data().source:
        meta = documents[source.id]
        assert meta["url"] == source.url, source.id
        tags = {t.strip() for t in meta["tags"].split(",")}
        scope_tags = {
            t for k in jurisdictions.chain(source.scope) for t in jurisdictions.jurisdiction(k).tags
        }
        assert tags & scope_tags, f"{source.id}: no tag of its scope"


def test_documents_about_england_and_wales_only_declare_it():
    """A document whose title says it covers England and Wales must declare that scope, so that
    it is never quoted as the law of Scotland or Northern Ireland."""
    declared = {s.id for s in jurisdictions.data().source}
    for doc_id, meta in corpus().items():
        if re.search(r"England and Wales", meta["title"]):
            assert doc_id in declared, doc_id


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "jurisdictions.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_name_for_two_places_is_refused(tmp_path):
    path = write(
        tmp_path,
        '[[jurisdiction]]\nkey = "a"\nname = "A"\nnames = ["Georgia"]\n'
        '[[jurisdiction]]\nkey = "b"\nname = "B"\nnames = ["georgia"]\n',
    )
    with pytest.raises(ContentError, match="'georgia' names both 'a' and 'b'"):
        read(path, Jurisdictions)


def test_unknown_containers_and_cycles_are_refused(tmp_path):
    unknown = write(tmp_path, '[[jurisdiction]]\nkey = "a"\nname = "A"\nwithin = "zz"\n')
    with pytest.raises(ContentError, match="'a' is within 'zz', which is not a jurisdiction"):
        read(unknown, Jurisdictions)
    cycle = write(
        tmp_path,
        '[[jurisdiction]]\nkey = "a"\nname = "A"\nwithin = "b"\n'
        '[[jurisdiction]]\nkey = "b"\nname = "B"\nwithin = "a"\n',
    )
    with pytest.raises(ContentError, match="within itself"):
        read(cycle, Jurisdictions)


def test_a_tag_must_be_a_jurisdiction_tag(tmp_path):
    path = write(tmp_path, '[[jurisdiction]]\nkey = "a"\nname = "A"\ntags = ["legal"]\n')
    with pytest.raises(ContentError, match=r"jurisdiction\[0\] \(key 'a'\)\.tags\[0\]"):
        read(path, Jurisdictions)
