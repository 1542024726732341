"""The roles and kinds of action a text names (``common.language.roles``,
``data/text/roles.toml``), as the relevance judge reads them (decision 0067, the fifth
training)."""

from __future__ import annotations

from common.language import roles
from common.search import relevance


def test_a_role_is_named_in_any_case_and_an_abbreviation_as_written() -> None:
    assert roles.named("who is the CEO of Marigold Grocers") == {"chief-executive"}
    assert roles.named("their chief executive officer") == {"chief-executive"}
    assert roles.named("Vice President, Corporate Responsibility") == {"vice-president"}
    assert roles.named("the ceo") == frozenset()  # an abbreviation only in capitals
    assert roles.named("petition asking Nordmark to drop fur") == {"petition"}


def test_the_longest_name_wins_and_a_month_is_not_a_march() -> None:
    assert roles.named("Creative Director") == {"creative-director"}
    assert roles.named("a march on the town hall") == {"protest"}
    assert roles.named("published in March 2024") == frozenset()


def test_a_role_lies_within_the_broader_role() -> None:
    assert roles.around("creative-director") == ("director",)
    assert roles.around("chief-executive") == ("executive",)


def test_the_judge_reads_a_record_of_another_role_as_elsewhere() -> None:
    """``ROLES``: a vice president's record for the CEO (elsewhere), a record naming no role
    (unnamed), a director's for the creative director (broader), a CEO's (held)."""
    ceo = "CEO of Marigold Grocers"
    assert relevance.roles(ceo, "Vice President, Corporate Responsibility") == [1, 0, 0]
    assert relevance.roles(ceo, "Marigold Grocers sells eggs") == [0, 1, 0]
    assert relevance.roles("their creative director", "Director, Velora") == [0, 0, 1]
    assert relevance.roles(ceo, "Chief Executive Officer, Marigold") == [0, 0, 0]
    assert relevance.roles("a boycott of Nordmark", "Petition: Nordmark") == [1, 0, 0]
