"""Acronyms of the names the guides spell out (decision 0087)."""

from __future__ import annotations

from common.language import acronyms


def test_the_table_is_what_the_script_writes_from_the_corpus_today() -> None:
    """``data/search/acronyms.json`` is ``python -m devtools.acronyms``'s: a guide or a record
    changed without writing it again fails here."""
    from devtools.acronyms import acronyms as derived

    assert acronyms.table() == derived()


def test_a_name_the_guides_spell_out_is_read_beside_its_acronym_once() -> None:
    table = acronyms.table()
    assert table["NPPC"] == "National Pork Producers Council"
    assert table["HMSA"] == "Humane Methods of Slaughter Act"
    assert "CITES" not in table  # the guides write it in many passages: known as written
    spelled = acronyms.spelled("NPPC v. Ross")
    assert spelled == "NPPC (National Pork Producers Council) v. Ross"
    assert acronyms.spelled(spelled) == spelled  # once
    # a request repeating an acronym grows by its name once, however long it is
    repeated = acronyms.spelled("NPPC " * 100)
    assert repeated.count("National Pork Producers Council") == 1
    # common abbreviations, names holding one ("US Supreme Court") and unknown ones stay
    for text in ("the EU and the UK", "7 USC 2132", "QWERTY rules", "cage-free eggs"):
        assert acronyms.spelled(text) == text
    # derived only from names of bodies and instruments, and never two names for one
    assert "FSA" not in table or table["FSA"].endswith(("Authority", "Agency"))


def test_the_judge_reads_an_acronym_as_its_name() -> None:
    from common.search import relevance

    section = (
        "The Supreme Court challenge\nIn National Pork Producers Council v. Ross, 598 U.S. 356 "
        "(2023), the US Supreme Court affirmed the dismissal of the challenge to Proposition 12."
    )
    (spelled,) = relevance.relevance("NPPC v. Ross", [section], "topic")
    (named,) = relevance.relevance("National Pork Producers Council v. Ross", [section], "topic")
    assert spelled > 0.5
    assert abs(spelled - named) < 0.35
