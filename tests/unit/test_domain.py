"""The gate on the field (``common.search.domain``, decision 0077)."""

from __future__ import annotations

import json

import pytest

from common.datafiles import ContentError, read_json
from common.search import domain
from common.search.relevance import embed


def test_a_request_from_another_field_is_outside_and_one_about_the_field_is_not():
    assert domain.outside("how to fix a leaking kitchen tap")
    assert domain.outside("cheapest flights to Lisbon in March")
    assert not domain.outside("cage-free egg commitments by supermarkets")
    assert not domain.outside("what does the law say about undercover filming on farms")


def test_an_animal_or_a_word_of_a_candidates_name_keeps_a_request_inside():
    """The encoder alone puts a one-word animal and a company's bare name outside; naming an
    animal, or a word of what a candidate found is called, keeps them inside."""
    for request, titles in (("mink", []), ("QuickBite", ["QuickBite broiler campaign"])):
        assert domain.probability(embed([request])[0]) >= domain.model().threshold
        assert not domain.outside(request, titles)
    assert domain.outside("QuickBite", ["Harlow Foods cage-free pledge"])


def test_the_vector_given_is_the_one_judged():
    vector = embed(["cage-free egg commitments by supermarkets"])[0]
    assert domain.outside("how to fix a leaking kitchen tap", [], vector) is False


def test_the_shared_arrays_cannot_be_changed_by_a_request():
    """Every request's thread reads the same arrays (``domain._arrays``): none can write them."""
    for array in domain._arrays():
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.0


def test_a_model_file_of_another_shape_is_refused(tmp_path):
    body = json.loads(domain.DOMAIN_PATH.read_text(encoding="utf-8"))
    path = tmp_path / "domain.json"
    for change, problem in (
        ({"weights": body["weights"][:-1]}, "weights: 383 values"),
        ({"threshold": 1.5}, "threshold"),
        ({"scale": [0.0] * domain.DIMENSION}, "scale"),
    ):
        path.write_text(json.dumps(body | change), encoding="utf-8")
        with pytest.raises(ContentError, match=problem):
            read_json(path, domain.DomainFile)
