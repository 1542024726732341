"""What kind of answer a question asks for, and which sentences give it
(``data/offline/assistant.toml`` ``answer_shape``, ``functions.chat.assist``): a "how many"
question is answered by a count, not by a measure or a year, and a count of animals by a
figure of animals."""

from __future__ import annotations

import pytest

from functions.chat import assist


def gives(question: str, sentence: str) -> bool:
    shape = assist.answer_shape(question)
    assert shape is not None
    holds = assist._compiled(shape.holds)
    return assist._gives(sentence.lower(), holds, assist._counts_animals(question, shape))


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("How many hens in the EU are still kept in cages?", "count"),
        ("how many people signed End the Cage Age?", "count"),
        ("how many sq ft does each breeding pig get under prop 12", "quantity"),
        ("how much space does a hen get", "quantity"),
        ("how many hours can pigs travel in the EU", "duration"),
        ("when did the ban start", "date"),
    ],
)
def test_a_question_asks_for_its_kind_of_answer(question: str, shape: str) -> None:
    found = assist.answer_shape(question)
    assert found is not None
    assert found.name == shape


@pytest.mark.parametrize(
    ("question", "sentence", "answers"),
    [
        # a measure, a year or a count of something else is not how many hens
        (
            "How many hens in the EU are still kept in cages?",
            "Enriched cages must give each hen at least 750 square centimetres of cage area.",
            False,
        ),
        (
            "How many hens in the EU are still kept in cages?",
            'The "End the Cage Age" initiative, supported by about 1.4 million people, led the '
            "Commission to commit in June 2021 to phasing out cages for laying hens.",
            False,
        ),
        (
            "how many hens can share one nest in a barn",
            "They must provide at least one nest for every seven hens.",
            True,
        ),
        ("how many people signed End the Cage Age?", "It was backed by 1.4 million people.", True),
        (
            "how many hens does a farm need before the directive applies",
            "The directive does not apply to establishments with fewer than 350 laying hens.",
            True,
        ),
        ("how many countries are in CITES", "More than 180 countries are parties.", True),
        ("how many countries are in CITES", "The convention was signed in 1973.", False),
        # other things go by other names: any count answers for them
        ("how many shareholders do we need", "It takes 100 members or 5% of the votes.", True),
        # a measure asked is answered by a measure
        ("how much space does a hen get", "Each hen gets 750 square centimetres.", True),
    ],
)
def test_a_count_asked_is_answered_by_a_count(question: str, sentence: str, answers: bool) -> None:
    assert gives(question, sentence) is answers
