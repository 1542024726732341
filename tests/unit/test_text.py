import pytest

from common.language import clip


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
