"""The places a text names (``common.language.places``, ``data/text/places.toml``), as the
relevance judge reads them (decision 0067)."""

from __future__ import annotations

import pytest

from common.datafiles import ContentError, read
from common.language import places
from common.search import relevance


def test_a_place_is_named_by_its_name_adjective_or_abbreviation_in_any_case() -> None:
    assert places.named("Canadian code of practice for pigs") == {"ca"}
    assert places.named("new york fur sales ban") == {"us-ny"}
    assert places.named("a march in manchester") == {"manchester"}
    assert places.named("the U.S. and the UK") == {"us", "uk"}
    assert places.named("São Paulo and Zürich") == {"sao-paulo", "zurich"}
    assert places.named("nothing here") == frozenset()


def test_the_longest_name_wins_and_ordinary_words_count_only_as_written() -> None:
    assert places.named("New York City") == {"new-york-city"}
    assert places.named("EU rules on turkey stocking density") == {"eu"}
    assert places.named("live exports to Turkey") == {"turkey-country"}
    assert places.named("the us and uk") == frozenset()  # abbreviations only in capitals


def test_a_place_lies_within_the_places_that_contain_it() -> None:
    assert places.around("manchester") == ("england", "uk", "europe")
    assert places.around("us-ia") == ("us", "north-america")
    assert places.around("europe") == ()


def test_the_judge_reads_a_records_country_by_name() -> None:
    """A record's ``country`` is a code ("BR"); the judge reads it by name, so "cage-free
    campaigns in Brazil" is not answered by one in Chile."""
    from functions.search.tables import TABLES

    assert places.called("BR") == "Brazil"
    assert places.called("GB") == places.called("UK") == "United Kingdom"
    assert places.called("XX") is None
    assert places.called(" gb ") == "United Kingdom"  # any case, spaces aside
    assert places.called("us") == "United States"
    record = {"title": "Cage-free", "country": "CL"}
    text = TABLES["campaigns"].judged_text(record)
    assert text.splitlines() == ["Cage-free", "Chile"]
    assert TABLES["campaigns"].text_of(record) == "CL"  # the index keeps the code
    assert relevance.placed("cage-free campaigns in Brazil", text) == [1.0, 0.0, 0.0]


def test_the_judge_reads_a_candidate_about_another_place_as_elsewhere() -> None:
    """``PLACES``: the EU's rules for Canada's code (elsewhere), a passage naming no place
    (unnamed), England for a march in Manchester (broader), Iowa for US law (held)."""
    assert relevance.placed("Canada sow stalls", "EU rules on sow stalls") == [1.0, 0.0, 0.0]
    assert relevance.placed("Canada sow stalls", "Sow stalls are crates") == [0.0, 1.0, 0.0]
    assert relevance.placed("march in Manchester", "Protest law in England") == [0.0, 0.0, 1.0]
    assert relevance.placed("US ag-gag laws", "Iowa Code 717A.3A") == [0.0, 0.0, 0.0]
    assert relevance.placed("sow stalls", "EU rules") == [0.0, 0.0, 0.0]


def test_the_file_is_a_tree_of_unique_places(tmp_path) -> None:
    """A repeated key, a ``within`` naming no place, a cycle and an ``exact`` name of no place
    are each a ContentError naming the file."""
    bad = {
        "repeated": 'place = [{key = "a", names = ["A"]}, {key = "a", names = ["B"]}]',
        "within": 'place = [{key = "a", names = ["A"], within = "b"}]',
        "cycle": 'place = [{key = "a", names = ["A"], within = "b"}, '
        '{key = "b", names = ["B"], within = "a"}]',
        "exact": 'place = [{key = "a", names = ["A"]}]\nexact = ["B"]',
    }
    for name, body in bad.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(body if "exact" in body else body + "\nexact = []\n", "utf-8")
        with pytest.raises(ContentError, match=name):
            read(path, places.Places)
