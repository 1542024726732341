"""A plan per content type (issue 46, decision 0081): the organisation an audience names, and a
topic as a frame sentence holds it."""

from __future__ import annotations

import pytest

from functions.content.compose import _topic
from functions.content.service import organisation_of


@pytest.mark.parametrize(
    ("audience", "organisation"),
    [
        ("the CEO of Brightwell Supermarkets", "Brightwell Supermarkets"),
        ("the Head of Sustainability at Harlow & Finch Foods", "Harlow & Finch Foods"),
        ("Lumière Beauté's Head of Regulatory Affairs", "Lumière Beauté"),
        ("Brightwell Supermarkets' Director of Agriculture", "Brightwell Supermarkets"),
        ("Sainsbury's head of sourcing", "Sainsbury's"),
        ("McDonald's UK", "McDonald's"),
        ("Crestline Eggs Ltd", "Crestline Eggs Ltd"),
        ("the Harbourside Port Authority board", "Harbourside Port Authority"),
        ("Greenleaf Bakeries Ltd buying team", "Greenleaf Bakeries Ltd"),
        ("the buyers at Tesco, in London", "Tesco"),
        ("the head of procurement at Northgate Foods in Leeds", "Northgate Foods"),
        ("Fiona Carrick at Harlow & Finch", "Harlow & Finch"),
        ("Fiona Carrick's team", None),
        ("our supporters", None),
        ("local councillors", None),
        ("the Minister of State", None),
        ("the company's board", None),
    ],
)
def test_the_organisation_an_audience_names(audience, organisation):
    assert organisation_of(audience) == organisation


@pytest.mark.parametrize(
    ("topic", "framed"),
    [
        ("cage-free eggs", "cage-free eggs"),
        ("fur farming ban", "the fur farming ban"),
        ("Better Chicken Commitment", "the Better Chicken Commitment"),
        ("Brightwell's cage-free pledge", "Brightwell's cage-free pledge"),
        ("Proposition 12", "Proposition 12"),
        ("stop building colony cage sheds.", "\u201cstop building colony cage sheds\u201d"),
        ("Does the policy cover ingredients?", "\u201cDoes the policy cover ingredients?\u201d"),
        ("what about fish?", "\u201cwhat about fish?\u201d"),
    ],
)
def test_a_topic_as_a_frame_sentence_holds_it(topic, framed):
    assert _topic(topic) == framed


def test_a_topic_in_markdown_never_adds_markup():
    assert _topic("cats & <dogs> ban", markdown=True) == "the cats &amp; &lt;dogs&gt; ban"


def test_a_company_named_by_its_legal_form_abroad():
    assert organisation_of("Fjordlax Seafood ASA") == "Fjordlax Seafood ASA"
    assert organisation_of("the board of Moorfeld Geflügel GmbH") == "Moorfeld Geflügel GmbH"


def test_a_callers_markup_spelled_in_entities_is_cut_an_articles_is_kept():
    """Review of issue 46: "&lt;script&gt;" in a topic reached an email subject as <script>."""
    from common.language.markup import plain

    spelled = "enriched cages &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;now&lt;/b&gt;"
    assert plain(spelled, strict=True) == "enriched cages now"
    assert plain("the CEO of &lt;b&gt;Acme&lt;/b&gt;", strict=True) == "the CEO of Acme"
    assert plain("a &lt; b and c &gt; d", strict=True) == "a < b and c > d"
    quoted = 'Feeds may declare &lt;!ENTITY lol "lol"&gt; in a DTD.'
    assert plain(quoted) == 'Feeds may declare <!ENTITY lol "lol"> in a DTD.'


def test_a_tables_name_is_found_by_its_shorter_forms_but_never_by_a_word() -> None:
    """``organisation_in``: "Crestline Eggs Ltd" is "Crestline Eggs" and "Crestline" in a
    topic; "Open Barn Alliance" is never "Open Barn", nor "Green Farms Ltd" "Green"."""
    from functions.content.service import _short_forms

    assert _short_forms("Crestline Eggs Ltd") == ["Crestline Eggs", "Crestline"]
    assert _short_forms("Harlow & Finch Foods") == ["Harlow & Finch"]
    assert _short_forms("Open Barn Alliance") == []
    assert _short_forms("Green Farms Ltd") == ["Green Farms"]
    assert _short_forms("Brightwell") == []
