"""A provider's draft checked sentence by sentence (issue 46, decision 0082): the writer's own
sentences kept, claims kept only when the passages hold their words, numbers, quotations, names
and strong words."""

from __future__ import annotations

import pytest

from functions.content.compose import Passage
from functions.content.verify import Checker

PASSAGES = [
    Passage(
        "Enriched cages must give each hen at least 750 square centimetres of cage area. "
        'The RSPCA called battery cages "a cruel relic". From 1 January 2012 their use was '
        "prohibited altogether.",
        "Laying hens",
        "https://example.org/hens",
        "Cages",
    ),
    Passage(
        "Eggs are stamped with a code: 3 for cages. The End the Cage Age initiative was "
        "supported by about 1.4 million people.",
        "Egg codes",
        "https://example.org/codes",
        "Codes",
    ),
]


@pytest.fixture
def checker() -> Checker:
    return Checker(PASSAGES, ["cage-free eggs", "the CEO of Brightwell Supermarkets"])


@pytest.mark.parametrize(
    "sentence",
    [
        "Enriched cages must give every hen at least 750 square centimetres.",
        "The use of such cages has been prohibited since 1 January 2012.",
        'The RSPCA has called battery cages "a cruel relic".',
        "About 1.4 million people supported the End the Cage Age initiative.",
    ],
)
def test_a_claim_the_passages_hold_is_kept_and_cited(checker, sentence):
    checked = checker.check(sentence)
    assert checked.text == sentence
    assert checked.kept == [sentence]
    assert [c.text for c in checked.citations] == [sentence]
    assert checked.citations[0].url in ("https://example.org/hens", "https://example.org/codes")


@pytest.mark.parametrize(
    "sentence",
    [
        "Enriched cages must give each hen at least 1,200 square centimetres of cage area.",
        "Their use was prohibited altogether from 1 January 2015.",
        'The RSPCA called battery cages "a shameful relic of factory farming".',
        '"Cages are cruel," said Maria Keller of the RSPCA.',
        "About 3 million people supported the End the Cage Age initiative.",  # "3" counts cages
        "Hens in enriched cages live twice as long as hens in barns.",
        "All enriched cages were banned in 2012.",
    ],
)
def test_a_claim_the_passages_do_not_hold_is_dropped(checker, sentence):
    checked = checker.check(f"{sentence} Sign the petition today.")
    assert checked.dropped == [sentence]
    assert checked.text == "Sign the petition today."
    assert checked.citations == []


@pytest.mark.parametrize(
    "sentence",
    [
        "What you should know about cage-free eggs:",
        "Ask your supermarket to go cage-free.",
        "I am writing to you at Brightwell Supermarkets about cage-free eggs.",
        "Please reply by 15 January 2027.",
        "Thank you for your time.",
    ],
)
def test_the_writers_own_sentences_are_kept_uncited(sentence):
    checker = Checker(PASSAGES, ["cage-free eggs", "Brightwell Supermarkets", "15 January 2027"])
    checked = checker.check(sentence)
    assert (checked.text, checked.kept, checked.dropped) == (sentence, [], [])


def test_an_ask_naming_someone_the_request_does_not_is_a_claim(checker):
    assert checker.check("Tell Tesco to keep its 2025 pledge.").dropped


def test_lines_thread_counters_and_hashtags_are_kept(checker):
    text = (
        "Enriched cages must give each hen at least 750 square centimetres. 2/4\n\n"
        "Hens live twice as long in barns. #CageFree"
    )
    checked = checker.check(text)
    assert checked.text == "Enriched cages must give each hen at least 750 square centimetres. 2/4"
    assert checked.dropped == ["Hens live twice as long in barns. #CageFree"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Demand Brightwell Supermarkets stop lying to customers.",
        "Tell Brightwell Supermarkets that its eggs are illegal.",
        "Brightwell Supermarkets has already committed to cage-free eggs.",
        "Brightwell Supermarkets has not committed to cage-free eggs.",
    ],
)
def test_what_a_sentence_says_of_the_organisation_addressed_is_a_claim(sentence):
    """Review of issue 46: the request's own words can make a claim about its addressee."""
    request = ["cage-free eggs", "the CEO of Brightwell Supermarkets"]
    checker = Checker(PASSAGES, request, "Brightwell Supermarkets")
    assert checker.check(sentence).dropped == [sentence]


def test_the_callers_quotation_and_list_markers_claim_nothing(checker):
    asked = Checker(PASSAGES, ["cage-free eggs", 'Sign the "Free the Hens" petition.'])
    assert asked.check('Sign the "Free the Hens" petition.').dropped == []
    listed = checker.check("Talking points:\n1. Hens live twice as long in barns.\n2. Act now.")
    assert listed.kept == []
    assert listed.dropped == ["Hens live twice as long in barns."]
    assert listed.text == "Talking points:\n2. Act now."


def test_a_number_in_a_hashtag_is_checked_and_an_emptied_post_is_empty(checker):
    from functions.content.verify import empty

    checked = checker.check("Cages must give each hen at least #1200 square centimetres. 2/3")
    assert checked.dropped == ["Cages must give each hen at least #1200 square centimetres."]
    assert empty(checked.text)
    assert empty("3/3 #CageFree")
    assert not empty("Act now. 3/3")


def _held(passage: str, claim: str) -> bool:
    checker = Checker([Passage(passage, "Guide", "https://example.org/guide", "Section")], ["x"])
    return checker.support(claim) is not None


BOUND = [
    # a figure the passage gives to something else (decision 0090)
    (
        "The directive sets a default maximum stocking density of 33 kg per square metre, "
        "which member states may raise to 39 kg where extra conditions on ventilation are met.",
        "The directive sets a default maximum stocking density of 33 kg per square metre.",
        "The directive sets a default maximum stocking density of 39 kg per square metre.",
    ),
    (
        "The treaty was signed in Geneva on 3 March 1973 and entered into force on 1 July 1975.",
        "The treaty entered into force in 1975.",
        "The treaty entered into force in 1973.",
    ),
    (
        "Group-housed calves need 1.5 square metres each if under 150 kg, 1.7 square metres "
        "if between 150 and 220 kg, and 1.8 square metres at 220 kg or more.",
        "Group-housed calves under 150 kg need 1.5 square metres each.",
        "Group-housed calves under 150 kg need 1.8 square metres each.",
    ),
    # spelled numbers read as figures
    (
        "Sows must be kept in groups from four weeks after service until one week before "
        "farrowing.",
        "Sows must be kept in groups from 4 weeks after service until one week before farrowing.",
        "Sows must be kept in groups from four weeks after service until four weeks before "
        "farrowing.",
    ),
    (
        "Carriers may not confine animals for more than 28 hours without unloading them for "
        "at least five consecutive hours of rest under the Twenty-Eight Hour Law.",
        "The Twenty-Eight Hour Law requires at least five hours of rest after 28 hours.",
        "The Twenty-Eight Hour Law requires at least eight hours of rest after 28 hours.",
    ),
    # a name the sentence holding the figure does not give it
    (
        "In November 2020 Denmark ordered the culling of all farmed mink after variants were "
        "found in people. The Netherlands, which had already legislated, closed its farms early.",
        "In November 2020 Denmark ordered the culling of all farmed mink.",
        "In November 2020 the Netherlands ordered the culling of all farmed mink.",
    ),
    # a law in another's place
    (
        "In Canada, the treaty is carried out mainly through the Wild Animal Protection Act, "
        "enforced by the Wildlife Service. The Fisheries Act makes it an offence to catch fish "
        "taken in breach of a licence.",
        "In Canada, the treaty is carried out mainly through the Wild Animal Protection Act.",
        "In Canada, the treaty is carried out mainly through the Fisheries Act.",
    ),
    # an identifier, a possession, a denial
    (
        "Iowa enacted section 717A.3B in 2019, adding a requirement of intent to cause harm.",
        "Iowa's section 717A.3B, enacted in 2019, added a requirement of intent to cause harm.",
        "Iowa's section 717A.3C, enacted in 2019, added a requirement of intent to cause harm.",
    ),
    (
        "The Department of Agriculture's Animal Care Program certifies producers, while the "
        "Department of Health shares enforcement.",
        "The Department of Agriculture's Animal Care Program certifies producers.",
        "The Department of Health's Animal Care Program certifies producers.",
    ),
    (
        "The charity brings private prosecutions but has no statutory powers; its inspectors "
        "rely on consent or the police to enter premises.",
        "The charity has no statutory powers to enter premises.",
        "The charity's inspectors have statutory powers to enter premises.",
    ),
]


@pytest.mark.parametrize(("passage", "held", "misbound"), BOUND)
def test_a_figure_a_name_or_a_denial_bound_to_other_words_is_not_held(passage, held, misbound):
    assert _held(passage, held)
    assert not _held(passage, misbound)


def test_a_limit_denies_nothing_and_every_is_held_by_each():
    passage = (
        "Each cage must have a floor slope of no more than 14% and headroom of at least 45 cm. "
        "Each calf must receive colostrum within six hours of birth."
    )
    assert _held(passage, "Cages must have headroom of at least 45 cm.")
    assert _held(passage, "Every calf must receive colostrum within six hours of birth.")
    assert not _held(passage, "Every calf must receive colostrum within eight hours of birth.")


def test_a_strong_word_is_held_among_the_words_it_binds():
    """A duty or a quantity the passages give to other words is not held (decision 0091): "can
    deprive" beside "must rely" does not hold "must deprive"; a word that says as much does."""
    passage = (
        "The RSPCA has no special statutory powers; its inspectors must rely on consent to "
        "enter premises. On conviction, courts can deprive owners of animals and disqualify "
        "them from keeping animals. Their welfare problems stem mainly from fast growth."
    )
    assert _held(passage, "On conviction, courts can deprive owners of animals.")
    assert not _held(passage, "On conviction, courts must deprive owners of animals.")
    assert _held(passage, "RSPCA inspectors must rely on consent to enter premises.")
    assert _held(passage, "Most of their welfare problems stem from fast growth.")


def test_what_a_passage_hedges_is_not_held_as_certain():
    """Decision 0091: "can amount to a lawful excuse" does not hold "is a lawful excuse"; a
    claim that keeps the hedge is held, and "may not" forbids rather than hedges."""
    passage = (
        "Peaceful protest that blocks a road can, on the facts, amount to a lawful excuse. "
        "Carriers may not confine animals for more than 28 hours without rest."
    )
    assert not _held(passage, "Peaceful protest that blocks a road is a lawful excuse.")
    assert _held(passage, "Peaceful protest that blocks a road can amount to a lawful excuse.")
    assert _held(passage, "Carriers may not confine animals for more than 28 hours without rest.")


def test_what_the_passages_say_of_one_body_is_not_held_of_another():
    """Decision 0091: a name the passages give, standing where another stands more closely
    among the claim's words, is misbound."""
    passage = (
        "Newspapers and magazines are regulated by IPSO under the Editors' Code of Practice. "
        "Broadcasters are regulated by Ofcom under the Broadcasting Code."
    )
    assert _held(passage, "Newspapers and magazines are regulated by IPSO.")
    assert not _held(passage, "Newspapers and magazines are regulated by Ofcom.")
    assert _held(passage, "Broadcasters are regulated by Ofcom.")
