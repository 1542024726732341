"""Requests for a person's private details are recognised (decision 0067: declined, not
billed), by kind: how the person is named and which detail is asked; and what is not such a
request is not (the writer's own details, an animal's life, a public role)."""

from __future__ import annotations

import pytest

from functions.chat.assist import asks_private


@pytest.mark.parametrize(
    "message",
    [
        "What is Dana Whitfield's home address?",  # a full name
        "mobile number for senator hollis please",  # a title and a name, in lower case
        "oliver grant personal email",  # a name in lower case
        "where does the Brightwell head of sourcing live",  # a role at a company
        "the Atlas Poultry CEO's kids, what school are they at",  # a role and family
        "Where will Ruth Marsh be on Saturday? we want to turn up",  # whereabouts
        "Is Tom Baker in hospital? heard he had surgery",  # health
        "tell me about Sam Ortiz's divorce",  # family
        "Priya from our branch moved, what's Priya Shah's new address",  # our branch, her address
    ],
)
def test_a_request_for_someones_private_details_is_recognised(message: str) -> None:
    assert asks_private(message)


@pytest.mark.parametrize(
    "message",
    [
        "Who is Priya Raman at Brightwell?",  # a public role, no private detail
        "What has Senator Hollis said about fur farms?",
        "I'm the founder of Leafline, a group that runs school talks",  # the writer
        "Please update my home address on the account",  # the writer's own
        "how long do broiler chickens live before slaughter",  # an animal's life
        "Our group is writing to the minister about live exports",  # a topic, not a person's
        "What did the Crestline Eggs CEO pledge on cage-free eggs?",  # a role, a public act
    ],
)
def test_what_is_not_such_a_request_is_not(message: str) -> None:
    assert not asks_private(message)
