"""The service's own words in the reader's spelling; quotations never respelled (issue 25)."""

from __future__ import annotations

from common.language.spelling import respell
from functions.legal.guide import offline_guide
from functions.legal.jurisdictions import tags_for
from functions.legal.models import Source
from functions.legal.notes import NoteGroup, Notes


def test_british_words_become_us_keeping_their_capital():
    text = "Organisers: a licence, the Centre, pavements and car parks; whilst recognised."
    assert respell(text, "us") == (
        "Organizers: a license, the Center, sidewalks and parking lots; while recognized."
    )
    assert respell(text, None) == text


def test_a_guide_for_a_us_place_is_in_us_spelling_except_the_notes_it_quotes():
    quote = "Iowa's organisation of the offence is recognised by the courts."
    match = tags_for("Iowa")
    group = NoteGroup(
        "us-ia", "Iowa", Source(title="Iowa Code", url="https://example.org"), ((quote,),)
    )
    notes = Notes("found", "Iowa", False, match, (group,))
    situation = "We plan a protest march; our organisation will film it from the pavement."
    guide = offline_guide(None, situation, None, "Iowa", notes)
    own = [s.body for s in guide.sections if quote not in s.body]
    assert any("offense" in body or "organization" in body for body in own)
    assert not any(w in body for body in own for w in ("offence", "organisation", "pavement"))
    assert any(quote in s.body for s in guide.sections)  # quoted as written
    english = offline_guide(None, situation, None, "England", None)
    assert any("offence" in s.body or "pavement" in s.body for s in english.sections)
