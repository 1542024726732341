"""The gazetteer of companies (issue 29): names found however they are written, as the
message writes them, the longest first; ambiguous names only with evidence; names from the
caller's tables beside the curated list."""

from __future__ import annotations

import pytest

from common.language.gazetteer import curated, find, fold, index_of


def named(text: str, known=None) -> str | None:
    found = find(text, known)
    return found.name if found else None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Review Kroger's sow-stall phase-out", "Kroger"),
        ("which farms supply chicken to Chipotle", "Chipotle"),
        ("See what Taco Bell has said about gestation crates", "Taco Bell"),
        ("we are planning a corporate campaign against Aramark, what should we know?", "Aramark"),
        ("what is mcdonalds doing on broiler welfare", "mcdonalds"),
        ("McDonald's cage-free progress", "McDonald's"),
        ("Nestle dairy sourcing", "Nestle"),
        ("has Nestlé moved on cage-free eggs?", "Nestlé"),
        ("marks and spencer fur policy", "marks and spencer"),
        ("What does M&S say about wool?", "M&S"),
        ("Starbucks' dairy suppliers", "Starbucks"),
        ("compare Tyson Foods and JBS on broilers", "Tyson Foods"),
    ],
)
def test_a_known_company_is_found_as_the_message_writes_it(text, name):
    assert named(text) == name


def test_an_ambiguous_name_needs_evidence():
    assert named("we hit our target for the petition this week, now what?") is None
    assert named("took the subway to the protest") is None
    assert named("Is Target still selling foie gras?") == "Target"  # capitalised, mid-sentence
    assert named("target cage free") == "target"  # a few words: the name is the message
    assert named("did target ever publish a broiler policy") == "target"  # asked about
    assert named("Target's egg pledge") == "Target"  # a possessive


def test_names_from_the_callers_tables_are_found_too():
    known = index_of(["Harlow Foods", "Brightwell Dairy"])
    assert named("what has harlow foods promised?", known) == "harlow foods"
    assert named("what has harlow foods promised?") is None


def test_the_curated_list_has_no_name_twice():
    forms = [fold(form) for c in curated() for form in (c.name, *c.aliases)]
    assert len(forms) == len(set(forms))
    assert len(curated()) >= 250
