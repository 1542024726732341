"""companyName of the offline engine (common.offline.companies): the company a message names,
not a place, an acronym, a sentence's first word or a possessive's tail. The held-out figures
are in bench/intent.py; these are the rules, one by one."""

from __future__ import annotations

import pytest

from common.offline.companies import company_name
from common.offline.entities import extract


@pytest.mark.parametrize(
    ("message", "company"),
    [
        # the old rules found nothing in these
        ("Has Quillfield Cosmetics been fined anywhere in the EU?", "Quillfield Cosmetics"),
        ("Check if Vantor Retail signed the Better Chicken Commitment", "Vantor Retail"),
        ("research fernhill supermarkets", "fernhill supermarkets"),
        # nor these right
        ("Is Kingsway Airlines still flying monkeys from Mauritius?", "Kingsway Airlines"),
        ("Has Harlow Foods made any progress since 2020?", "Harlow Foods"),
        ("What's Brightmeadow Poultry's cage-free progress?", "Brightmeadow Poultry"),
        # possessives end a name, unless a company word follows (a brand)
        ("How big are Dunmore Dairy's herds?", "Dunmore Dairy"),
        ("Are Northgate Hotels' eggs cage-free?", "Northgate Hotels"),
        ("Can you dig into who supplies chicken to Pellman's Burgers?", "Pellman's Burgers"),
        ("Look into Tallis Dairy Co-op's supply chain", "Tallis Dairy Co-op"),
        # "&", legal forms, a leading "the"
        ("Sorrel & Co runs three abattoirs in Wales.", "Sorrel & Co"),
        ("Background on BlueRiver Foods Inc. please", "BlueRiver Foods Inc."),
        ("Tell me about the Oakridge Turkey Company", "Oakridge Turkey Company"),
        # the subject, not the place, the product or the agency
        ("Solace Hotels has an elephant camp in Sri Lanka", "Solace Hotels"),
        ("Which supermarkets in Germany does Rosshof Geflügel supply?", "Rosshof Geflügel"),
        ("Larkin Foods vs Abbot Catering: who treats pigs better?", "Larkin Foods"),
        ("look into tallow & sons tannery", "tallow & sons tannery"),
        # words read from the message's atoms as the old patterns read the text
        ("prices at Tesco''s stores", "Tesco"),  # one apostrophe at a time joins a name
        ("please x\u0130at Brightwell thanks", "Brightwell"),  # "\u0130".lower() parts a word
    ],
)
def test_the_company_a_message_names(message, company):
    assert company_name(message) == company


@pytest.mark.parametrize(
    "message",
    [
        "Research the company behind the planned insect factory in the Netherlands",
        "research the company that runs the new mega-farm outside Lincoln",
        "What does the USDA say about this?",
        "Can you help me?",
        # a scheme, a pledge or a law is no company (issue 47, decision 0092)
        "Which companies in our records have signed the Better Chicken Commitment?",
        "research Better Chicken Commitment",
        "Who backed the End the Cage Age initiative?",
    ],
)
def test_no_company_no_name(message):
    assert company_name(message) is None


def test_investigate_company_extracts_it():
    info = extract(
        "INVESTIGATE_COMPANY", "Can you look into Harlow Foods and their cage-free progress?"
    )
    assert info["companyName"] == "Harlow Foods"
