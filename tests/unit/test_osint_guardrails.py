"""Who an OSINT profile is about, without I/O (decisions 0029 and 0037): a source must tie a
person to their organisation, title or a fact the records hold; a company name the caller
gives never stands in for that when it is part of the person's name; names are compared in
their canonical form; claims are the sentences about the subject; the report is literal
Markdown citing every claim and says why sources were left out."""

from __future__ import annotations

from collections import Counter

import pytest

from common.language import names
from common.language.sentences import split
from functions.osint import report
from functions.osint.guardrails import (
    NO_EVIDENCE,
    Subject,
    fact_pairs,
    holds_public_office,
    titles_of,
)


@pytest.mark.parametrize(
    ("role", "public"),
    [
        ("MP for Leeds North", True),
        ("State Senator", True),
        ("Mayor of Bristol", True),
        ("Head of Sustainability", False),
        ("Sales Representative", False),
        ("President, National Egg Council", False),
    ],
)
def test_public_office_is_read_from_the_role(role, public):
    assert holds_public_office(role) is public


# --- a source must tie the person to their professional context ---------------------------------


def subject(**kwargs) -> Subject:
    return Subject(
        "person",
        first="Dana",
        last="Whitfield",
        companies=(names.company_core("Harlow Foods Ltd"),),
        **kwargs,
    )


def test_a_source_naming_the_person_with_the_company_identifies_them():
    assert subject().identifies("Harlow Foods names Dana Whitfield head of sustainability")
    assert subject().identifies("DANA J. WHITFIELD, of Harlow Foods, said...")


def test_a_namesake_without_the_context_is_not_them():
    text = "Dana Whitfield, a primary school teacher from Bristol, won the baking prize."
    assert subject().names(text)
    assert not subject().identifies(text)


def test_the_role_is_evidence_too():
    with_role = Subject(
        "person", first="Dana", last="Whitfield", titles=titles_of("Head of Sustainability")
    )
    assert with_role.identifies("Dana Whitfield, head of sustainability, spoke first.")
    assert with_role.left_out_because("Dana Whitfield won the baking prize.") == NO_EVIDENCE


def test_a_title_next_to_the_name_or_a_fact_of_the_record_is_evidence():
    """Issue 22: a real quote of a senator in the public-figures table was left out."""
    jensen = Subject(
        "person",
        first="Carla",
        last="Jensen",
        companies=(names.company_core("Lakeshore State Legislature"),),
        titles=titles_of("State Senator"),
        facts=fact_pairs(
            "Member of the Lakeshore State Senate. Sponsored the 2023 mink farming phase-out "
            "act and co-sponsored the 2025 humane pet store bill."
        ),
    )
    assert titles_of("State Senator") == ("state senator", "senator")
    assert jensen.identifies(
        "Sponsor Senator Carla Jensen said the bill protects animals and public health."
    )
    assert jensen.identifies("Carla Jensen welcomed the mink farming phase-out vote.")
    assert not jensen.identifies("Carla Jensen baked a cake for the village fete.")


def test_a_company_name_inside_the_persons_name_is_no_evidence():
    """Issue 22: companyName "Dana" made every text naming Dana Whitfield count."""
    from functions.osint.service import _context

    own = set(names.canonical("Dana Whitfield"))
    assert _context("Dana", not_in=own) == ()
    assert _context("Whitfield", not_in=own) == ()
    assert _context("Harlow Foods", not_in=own) == ("harlow foods",)
    dana = Subject("person", first="Dana", last="Whitfield", companies=("harlow foods",))
    assert not dana.identifies("Dana Whitfield, a primary school teacher, won the prize.")


def test_a_company_is_identified_by_any_of_its_names():
    company = Subject("company", companies=("crestline eggs",), extra_tokens=("crestline",))
    assert company.identifies("Crestline Eggs Ltd defended colony cages.")
    assert company.identifies("See crestline.example for the statement.")
    assert not company.identifies("Crest Eggs opened a new shed.")


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "asked",
    [
        "Dana Whitfield-Smith",
        "dana whitfield-smith",
        "Dana Whitfield Smith",
        "Dana Jane Whitfield-Smith",
        "Dana Whitfield-Smith Said",
        "D\u00e1na Wh\u00eftfield-Smith",
        "Whitfield-Smith Dana",
        "Dana Whitfield",
        "Dana Smith",
    ],
)
def test_a_listed_name_matches_the_same_person_written_otherwise(asked):
    assert names.same_person(names.canonical(asked), names.canonical("Dana Whitfield-Smith"))


def test_other_people_do_not_match_a_listed_name():
    listed = names.canonical("Dana Whitfield-Smith")
    assert not names.same_person(names.canonical("Dana Jones"), listed)
    assert not names.same_person(names.canonical("Dana"), listed)
    assert not names.same_person(names.canonical("Dana Whitfield"), names.canonical("Dana"))


def test_the_limit_counts_every_pair_of_the_name():
    assert names.pair_keys("Dana Whitfield") == ["dana whitfield", "d whitfield"]
    assert names.pair_keys("D. Whitfield") == ["d whitfield"]  # her initial shares her day
    assert "d whitfield" in names.pair_keys("Dana Jane Whitfield")
    assert "dana whitfield" in names.pair_keys("Dana Whitfield Said")
    assert "dana whitfield" in names.pair_keys("Whitfield Dana")
    assert "dana whitfield" in names.pair_keys("Dána Whitfield-Smith")


def test_names_fold_alike():
    assert names.fold("José  O\u2019Brien-Smith") == names.fold("jose obrien smith")
    assert names.short_key("Dana J. Whitfield") == names.short_key("  DÁNA whitfield ")
    assert names.company_core("The Crestline Eggs Ltd.") == "crestline eggs"
    assert names.fold("Marks & Spencer") == names.fold("Marks and Spencer")
    assert names.fold("Dana Whitf\u0456eld") == "dana whitfield"  # a Cyrillic look-alike
    assert names.domain_label("www.harlowfoods.co.uk") == "harlowfoods"
    assert names.domain_label("brightwell.example") == "brightwell"


def test_the_subject_pseudonym_is_not_the_name():
    pseudonym = names.subject_hash("dana whitfield")
    assert len(pseudonym) == 16
    assert "dana" not in pseudonym
    assert pseudonym == names.subject_hash(names.short_key("Dana J. Whitfield"))


# --- claims and the report -----------------------------------------------------------------------


def test_claims_are_the_sentences_about_the_subject_and_their_follow_ups():
    body = (
        "Dana Whitfield joined Harlow Foods in 2021. She said cages would go by 2026. "
        "The chain also opened 12 stores. Mr. Smith, the finance director, resigned. "
        "Whitfield spoke in Leeds."
    )
    found = report.claims_about("", body, subject().mentioned_in, person=True)
    assert found == [
        "Dana Whitfield joined Harlow Foods in 2021.",
        "She said cages would go by 2026.",
        "Whitfield spoke in Leeds.",
    ]


def test_sentences_keep_abbreviations_whole():
    assert split("Dr. Jane Roe of Acme Ltd. spoke. It went well.") == [
        "Dr. Jane Roe of Acme Ltd. spoke.",
        "It went well.",
    ]


def test_german_ordinals_and_other_languages_abbreviations_do_not_end_a_sentence():
    assert split(
        "Verhandelt wird am 14. März in Leipzig. Zum 60. Geburtstag lädt er ein. "
        "Patricio Vial, fecha de nac. 12/03/1961, dirige la pesquera."
    ) == [
        "Verhandelt wird am 14. März in Leipzig.",
        "Zum 60. Geburtstag lädt er ein.",
        "Patricio Vial, fecha de nac. 12/03/1961, dirige la pesquera.",
    ]
    # a number that ends a sentence still ends it
    assert split("She was 41. Her herd grew to 60. Then it fell.") == [
        "She was 41.",
        "Her herd grew to 60.",
        "Then it fell.",
    ]


def test_the_report_is_literal_markdown_with_every_claim_cited():
    findings = [
        report.Finding(
            "news",
            "Pledge [see](javascript:alert(1)) <b>met</b>",
            "https://news.example.org/a (1)",
            "A *title*",
            "2024-03-01T10:00:00+00:00",
        )
    ]
    text = report.markdown(
        title="Profile of Dana Whitfield",
        scope="Scope.",
        goal="Prepare a meeting",
        sections=report.PERSON_SECTIONS,
        findings=findings,
        notes=[],
        dropped=2,
        left_out=Counter({"namesake": 1, "no_evidence": 2}),
    )
    assert "\\[see\\](javascript:alert(1)) \\<b\\>met\\</b\\>" in text
    assert "([A \\*title\\*](https://news.example.org/a%20%281%29), 2024-03-01)" in text
    assert "## In the news" in text
    assert "Stated goal: Prepare a meeting" in text
    assert "2 claim(s) were left out" in text
    assert "3 source(s) were left out" in text
    assert "- 1 named someone of the same name" in text
    assert "- 2 named the person but showed nothing" in text
