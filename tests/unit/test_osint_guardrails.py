"""The OSINT guardrails (decision 0029), without I/O: personal data drops a claim, professional
facts pass, a source must tie a person to their company or role, names fold alike, claims are
the sentences about the subject, and the report is literal Markdown citing every claim."""

from __future__ import annotations

import pytest

from functions.osint import names, report
from functions.osint.guardrails import Policy, Subject, clean, holds_public_office, rules, screen

DANA = Policy(person_names=("Dana", "Whitfield"), professional_tokens=("harlowfoods",))

# --- claims that must be dropped -----------------------------------------------------------------

PERSONAL = [
    # contact details
    ("email", "Whitfield can be reached at dana.whitfield@example.com."),
    ("email", "Her address is DANA.W+news@Mail.Example.co.uk, a reader said."),
    ("email", "Write to dana dot whitfield at example dot com."),
    ("email", "Her personal email was leaked in 2022."),
    ("phone", "Whitfield can be reached on +44 7700 900123."),
    ("phone", "Call (555) 123-4567 to speak to him."),
    ("phone", "Her number is 555-123-4567."),
    ("phone", "He answered on 07700 900123 late at night."),
    ("phone", "Her mobile: 7700 900 123."),
    ("phone", "Ring him on the office line after six."),
    ("phone", "Tel. 020 7946 0958 (home)."),
    # where someone lives
    ("street_address", "She lives at 12 Acacia Avenue."),
    ("street_address", "Whitfield's house is at 4 Mill Lane, Otley."),
    ("street_address", "Whitfield lives in a village near Harrogate."),
    ("street_address", "Protesters gathered outside her home on Sunday."),
    ("street_address", "The family moved to 221B Baker Street."),
    ("street_address", "He now lives on a farm outside York."),
    ("postcode", "The house in Leeds LS6 2AB was sold last year."),
    ("postcode", "Mail went to Springfield, IL 62704."),
    # birth and age
    ("date_of_birth", "Dana Whitfield was born on 3 May 1975."),
    ("date_of_birth", "Whitfield (born 1975) grew up in Leeds."),
    ("date_of_birth", "Whitfield, 47, declined to comment."),
    ("date_of_birth", "The 47-year-old executive said little."),
    ("date_of_birth", "She celebrated her 50th birthday at the office."),
    ("date_of_birth", "He was aged 52 when he left."),
    # family
    ("family", "She lives with her husband and two children."),
    ("family", "Her husband runs a bakery."),
    ("family", "Whitfield's daughter attends a local school."),
    ("family", "He is a father of three."),
    ("family", "Whitfield married a former colleague in 2015."),
    ("family", "Her sister works for a rival chain."),
    ("family", "She was on maternity leave in 2020."),
    # special-category data
    ("health", "Whitfield was treated for breast cancer in 2019."),
    ("health", "She has been on sick leave since March."),
    ("health", "He was diagnosed with depression last year."),
    ("health", "Dana Whitfield is pregnant with her second child."),
    ("health", "Mr Hale was hospitalised after a heart attack."),
    ("health", "She spoke openly about her recovery."),
    ("religion", "Whitfield, a devout Catholic, sings in the choir."),
    ("religion", "She attends church every Sunday."),
    ("religion", "He is a practising Muslim."),
    ("sexuality", "Whitfield came out as gay in 2010."),
    ("sexuality", "Her sexuality was discussed on a forum."),
    ("ethnicity", "Whitfield, who is of Nigerian descent, grew up in Bradford."),
    ("ethnicity", "His ethnicity was mentioned in the report."),
    ("ethnicity", "She is a refugee who arrived in 2001."),
    ("political_or_union_membership", "Whitfield is a member of the Green Party."),
    ("political_or_union_membership", "She joined the Labour Party in 2005."),
    ("political_or_union_membership", "He is a trade union steward at the plant."),
    ("political_or_union_membership", "She voted Conservative at the last election."),
    # traces of a private life
    ("licence_plate", "Her car, registration AB12 CDE, was parked outside."),
    ("licence_plate", "His licence plate was photographed."),
    ("personal_account", "She posts as @danaw_1975 on Instagram."),
    ("personal_account", "See instagram.com/dana.whitfield for photos."),
    ("personal_account", "Whitfield runs a personal blog about running."),
]


@pytest.mark.parametrize(("category", "claim"), PERSONAL)
def test_a_claim_with_personal_data_is_dropped(category, claim):
    assert screen(claim, DANA) == category


# --- claims that must pass -----------------------------------------------------------------------

PROFESSIONAL = [
    "She joined Harlow Foods as head of sustainability in 2021.",
    "Dana Whitfield joined Harlow Foods as head of sustainability in 2021.",
    "Whitfield said Harlow Foods would publish its welfare report on 12 March 2024.",
    "She told the Grocer that 80% of the chain's eggs were now cage-free.",
    "He has led Brightwell Supermarkets since 2018.",
    "She said sow stalls for pregnant sows would be phased out by 2026.",
    "Whitfield said broilers suffering from leg disorders would be culled earlier.",
    "The company tests cancer drugs on mice at its Cambridge laboratory.",
    "Calves at Dunmore Dairy are separated from their mothers within hours of birth.",
    "Hens living in cages have less space than a sheet of A4 paper.",
    "Brightwell and their partner charities launched a hen rehoming scheme.",
    "Harlow Foods is a family-owned business founded in 1921.",
    "Harlow Foods, through its sister company Harlow Farms, supplies 2,000,000 eggs a week.",
    "The retailer sold 1,200,000 eggs between 2019-2020 and 2022-2023.",
    "Born Free Foundation welcomed the decision.",
    "Harlow Foods is a member of the European Union's animal welfare platform.",
    "The 150-year-old company operates 300 stores across the UK.",
    "Chickens are slaughtered aged 35 days.",
    "Follow the company's updates at @HarlowFoods.",
    "She called on suppliers to phase out cages by 2025.",
    "Harlow Foods said mobile phone sales in its stores rose 12% in 2021.",
    "She addressed the Humane League conference in Washington in May 2023.",
    "Harlow Foods' new distribution centre opened in Leeds in 2022.",
    "She said the company acted in good faith and remains a firm believer in the pledge.",
    "He said it would switch straight away to higher-welfare breeds.",
    "The chain's H5N1 response plan was published in 2022.",
    "The report (2023) covers 120 farms.",
    "Whitfield was promoted to director of sourcing in 2023.",
    "Her team published the group's first animal welfare policy.",
    "She is a trustee of the RSPCA and chairs its farm animals committee.",
]


@pytest.mark.parametrize("claim", PROFESSIONAL)
def test_a_professional_claim_is_kept(claim):
    assert screen(claim, DANA) is None


def test_the_data_files_examples_hold():
    """Each category drops its own examples, and no category drops a professional example
    (data/osint/guardrails.toml carries both lists, for whoever edits the patterns)."""
    for category in rules().category:
        for example in category.examples:
            assert screen(example, DANA) == category.key, example
    for example in rules().professional_examples:
        assert screen(example, DANA) is None, example


def test_a_claim_is_dropped_whole_not_redacted():
    claim = "She announced the pledge and can be reached at dana@example.com."
    assert screen(claim, DANA) == "email"  # the service drops it; nothing is cut out of it


def test_hidden_characters_do_not_hide_personal_data():
    assert screen("Reach her at dana\u200b@example.com", DANA) == "email"
    assert screen("Reach her at dana\uff20example.com", DANA) == "email"  # fullwidth at sign
    assert clean("Dana\u200b  Whitfield\u2028said") == "Dana Whitfield said"


def test_the_companys_own_account_is_not_a_personal_handle():
    assert screen("Follow @HarlowFoods_News for updates.", DANA) is None
    assert screen("Follow @HarlowFoods_News for updates.", Policy()) == "personal_account"


def test_the_person_names_count_as_references_to_them():
    claim = "Whitfield suffered a stroke in 2020."
    assert screen(claim, DANA) == "health"
    assert screen("Whitfield is a practising Buddhist.", DANA) == "religion"


def test_party_membership_is_public_for_a_holder_of_public_office():
    claim = "Whitfield is a member of the Green Party."
    mp = Policy(person_names=("Dana", "Whitfield"), public_office=True)
    assert screen(claim, mp) is None
    assert screen(claim, DANA) == "political_or_union_membership"
    assert screen("Her husband is a member of the Green Party.", mp) == "family"  # still


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


def test_the_role_is_context_too():
    with_role = subject(roles=(names.fold("Head of Sustainability"),))
    assert with_role.identifies("Dana Whitfield, head of sustainability, spoke first.")


def test_a_company_is_identified_by_any_of_its_names():
    company = Subject("company", companies=("crestline eggs",), extra_tokens=("crestline",))
    assert company.identifies("Crestline Eggs Ltd defended colony cages.")
    assert company.identifies("See crestline.example for the statement.")
    assert not company.identifies("Crest Eggs opened a new shed.")


# --- names -------------------------------------------------------------------------------------


def test_names_fold_alike():
    assert names.fold("José  O\u2019Brien-Smith") == names.fold("jose obrien smith")
    assert names.short_key("Dana J. Whitfield") == names.short_key("  DÁNA whitfield ")
    assert names.company_core("The Crestline Eggs Ltd.") == "crestline eggs"
    assert names.fold("Marks & Spencer") == names.fold("Marks and Spencer")
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
    assert report.sentences("Dr. Jane Roe of Acme Ltd. spoke. It went well.") == [
        "Dr. Jane Roe of Acme Ltd. spoke.",
        "It went well.",
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
        left_out=1,
    )
    assert "\\[see\\](javascript:alert(1)) \\<b\\>met\\</b\\>" in text
    assert "([A \\*title\\*](https://news.example.org/a%20%281%29), 2024-03-01)" in text
    assert "## In the news" in text
    assert "Stated goal: Prepare a meeting" in text
    assert "2 claim(s) were left out" in text
