import re
from typing import Any

import pytest

from common.language import clip
from common.language.message import annotate
from common.language.names import Word, atoms, capitalised_runs, words_of


def test_short_text_is_kept():
    assert clip("A short line.", 20) == "A short line."
    assert clip("x" * 20, 20) == "x" * 20


def test_long_text_is_cut_at_a_word_without_dangling_punctuation():
    assert clip("Hens kept in cages, every day of the year", 22) == "Hens kept in cages\u2026"


def test_no_word_boundary_in_the_second_half_cuts_inside_the_word():
    assert clip("Ab " + "c" * 30, 10) == "Ab cccccc\u2026"


@pytest.mark.parametrize("limit", [2, 5, 17, 100, 299])
@pytest.mark.parametrize("text", ["word " * 200, "x" * 500, "a, b; c: d. " * 50, "\u00e9" * 300])
def test_never_longer_than_the_limit(text, limit):
    clipped = clip(text, limit)
    assert len(clipped) <= limit
    assert clipped.endswith("\u2026")


# -- runs of capitalised words (common.language.names.capitalised_runs) -------------------------

_WITHIN = frozenset("_'\u2019&-")


def _runs(text: str, **rules: Any) -> list[str]:
    found = words_of(text, within=_WITHIN)
    return [text[run[0].start : run[-1].end] for run in capitalised_runs(text, found, **rules)]


def test_a_run_is_capitalised_words_with_only_whitespace_between():
    assert _runs("Staff at Harlow Foods said. Tesco, Aldi & Lidl did not") == [
        "Staff",
        "Harlow Foods",
        "Tesco",
        "Aldi",
        "Lidl",
    ]
    assert _runs("Aldi & Lidl", gaps=frozenset({"", "&"})) == ["Aldi & Lidl"]
    [run] = capitalised_runs("the Harlow Foods plant", words_of("the Harlow Foods plant"))
    assert run == [Word("Harlow", 4, 10), Word("Foods", 11, 16)]


def test_a_connector_stays_only_between_capitalised_words():
    of = frozenset({"of", "the", "de", "la"})
    assert _runs("the Department of the Environment of", connectors=of) == [
        "Department of the Environment"
    ]
    assert _runs("Harlow Foods of Leeds of course", connectors=of) == ["Harlow Foods of Leeds"]
    assert _runs("Maria de la Cruz", connectors=of) == ["Maria de la Cruz"]
    assert _runs("Maria de la Cruz", connectors=of, in_a_row=1) == ["Maria", "Cruz"]
    assert _runs("of Leeds", connectors=of) == ["Leeds"]  # a run never opens with one


def test_a_run_stops_where_the_caller_says():
    def possessive(word: str, following: str) -> bool:
        return word.endswith("'s") and following != "Burgers"

    assert _runs("Dunmore Dairy's Herd Book", stops_after=possessive) == [
        "Dunmore Dairy's",
        "Herd Book",
    ]
    assert _runs("Pellman's Burgers Ltd", stops_after=possessive) == ["Pellman's Burgers Ltd"]
    assert _runs("3M and AT&T", capital=lambda w: w[0].isupper() or w[0].isdigit()) == [
        "3M",
        "AT&T",
    ]


# -- a text's words, read once (common.language.names.atoms, words_of) ----------------------------


def test_atoms_are_runs_of_letters_and_digits_and_single_other_characters():
    assert [a.text for a in atoms(annotate("O'Brien's co-op, AT&T_2  ok"))] == [
        *("O", "'", "Brien", "'", "s", "co", "-", "op", ",", "AT", "&", "T", "_", "2", "ok"),
    ]
    message = annotate("Harlow Foods")
    assert message.read(atoms) is message.read(atoms)  # read once, whoever asks


def test_words_are_assembled_as_the_finder_says():
    text = "@Harlow Foods' Co-op sells to AT&T, harlowfoods.co.uk & J.Smith"
    capital, not_after = re.compile("[A-Z]"), frozenset("@.")

    assert [
        w.text for w in words_of(text, capital, not_after=not_after, within=frozenset("'-"))
    ] == [
        *("Foods'", "Co-op", "AT", "T", "J"),
    ]
    assert [w.text for w in words_of(text, within=frozenset(".&+-"))] == [
        *("Harlow", "Foods", "Co-op", "sells", "to", "AT&T", "harlowfoods.co.uk", "J.Smith"),
    ]
    alone = words_of(text, capital, not_after=not_after, alone=re.compile("&|sells"))
    assert [w.text for w in alone] == ["Foods", "Co", "sells", "AT", "&", "T", "&", "J"]
    assert all(text[w.start : w.end] == w.text for w in alone)


def test_singly_a_joining_character_joins_one_at_a_time():
    apostrophes = frozenset("'")
    assert [w.text for w in words_of("Tesco''s O'Brien's Farmers'", within=apostrophes)] == [
        *("Tesco''s", "O'Brien's", "Farmers'"),
    ]
    singly = words_of("Tesco''s O'Brien's Farmers'", within=apostrophes, singly=True)
    assert [w.text for w in singly] == ["Tesco'", "s", "O'Brien's", "Farmers'"]


def test_a_word_opens_inside_an_atom_only_when_asked():
    latin_capital = re.compile("[A-Z]")
    text = "\u0416Harlow Foods"  # a Cyrillic letter glued to a Latin name
    assert [w.text for w in words_of(text, latin_capital)] == ["Foods"]
    assert words_of(text, latin_capital, inside=True) == [
        Word("Harlow", 1, 7),
        Word("Foods", 8, 13),
    ]


def test_a_cue_word_and_the_words_spaced_after_it():
    from common.language.names import after_words, spaced_run

    message = annotate("look into onion farms _on tallow & sons tannery ltd, on x")
    found = after_words(message, frozenset({"on", "into"}))
    assert [(cue.text, after.text) for cue, after in found] == [("into", "onion"), ("on", "x")]
    lower = {w.start: w for w in words_of(message, re.compile("[a-z]"))}
    start = message.text.index("tallow")
    run = spaced_run(message, lower, start, 3)
    assert [w.text for w in run] == ["tallow", "&", "sons", "tannery"]
    assert [w.text for w in spaced_run(message, lower, start, 3, ampersand=False)] == ["tallow"]
    assert spaced_run(message, lower, message.text.index("_"), 3) == []
