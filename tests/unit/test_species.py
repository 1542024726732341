"""The animals a text names (``common.language.species``, ``data/text/species.toml``), as the
relevance judge reads them (decision 0067, the fourth training)."""

from __future__ import annotations

from common.language import species
from common.search import relevance


def test_an_animal_is_named_by_its_words_and_its_products_in_any_case() -> None:
    assert species.named("Stocking density for TURKEYS") == {"turkey"}
    assert species.named("cage-free eggs") == {"laying-hen"}
    assert species.named("veal crates and dairy cows") == {"calf", "dairy-cow"}
    assert species.named("sow stalls in the EU") == {"pig"}
    assert species.named("nothing of the kind here") == frozenset()


def test_the_longest_name_wins_and_ordinary_words_are_not_animals() -> None:
    assert species.named("guinea pigs in laboratories") == {"guinea-pig"}
    assert species.named("laying hens and broiler chickens") == {"laying-hen", "broiler"}
    assert species.named("live exports to Turkey") == frozenset()  # the country
    assert species.named("bear in mind the deadline") == frozenset()
    assert species.named("bear bile farms") == {"bear"}


def test_an_animal_lies_within_its_groups() -> None:
    assert species.around("laying-hen") == ("chicken", "poultry", "bird")
    assert species.around("calf") == ("cattle", "mammal")
    assert species.around("fish") == ()


def test_the_judge_reads_a_candidate_about_another_animal_as_elsewhere() -> None:
    """``SPECIES``: broilers for turkeys (elsewhere), a passage naming no animal (unnamed),
    poultry for turkeys (broader), hens for poultry or chickens (held)."""
    turkeys = "EU stocking density for turkeys"
    assert relevance.animals(turkeys, "Broiler chickens: 42 kg per square metre") == [1, 0, 0]
    assert relevance.animals(turkeys, "The directive sets a maximum density") == [0, 1, 0]
    assert relevance.animals(turkeys, "Poultry housing rules") == [0, 0, 1]
    assert relevance.animals("poultry welfare", "Laying hens in enriched cages") == [0, 0, 0]
    assert relevance.animals("stocking density", "Broiler chickens") == [0, 0, 0]
