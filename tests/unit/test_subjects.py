"""Who a request is about (issue 42, decision 0058): the resolver's rules, names read through
look-alike letters and initials, the screen's reading of capitals, lower case, the next
sentence and disguised words, and hidden characters taken out of feed text. No I/O."""

from __future__ import annotations

import pytest

from common.language import names
from common.language.confusables import latin
from common.language.safety import without_invisible
from common.privacy import Known, screen_text
from common.privacy.normalise import deobfuscated, for_matching
from common.subjects.resolve import Evidence, resolve


@pytest.mark.parametrize(
    ("name", "kind", "evidence"),
    [
        ("Whitfield", "unknown", "single word"),
        ("Whitfield & Co", "unknown", "single word"),
        ("Whitfield and", "unknown", "single word"),
        ("Whitfield Ltd", "unknown", "single word"),
        ("Dana Whitfield & Co", "person", "given name"),
        ("Dana", "person", "given name"),
        ("D. Whitfield", "person", "initial"),
        ("Dr Okafor", "person", "title"),
        ("Senator Jensen", "person", "title"),
        ("Harlow Foods", "organisation", "organisation word"),
        ("Dana Hill Farms", "organisation", "organisation word"),
        ("Kroger", "organisation", "company list"),
        ("marks and spencer", "organisation", "company list"),
        ("Quillmarsh Provisions", "organisation", "several words"),
        ("Rohan Bhatt", "person", "given name elsewhere"),
        ("Olumide Bakare", "person", "given name elsewhere"),
    ],
)
def test_the_resolver_tells_an_organisation_from_a_person(name, kind, evidence):
    resolved = resolve(name, check_opt_out=False)
    assert (resolved.kind, resolved.evidence) == (kind, evidence)


def test_the_records_and_a_domain_are_evidence():
    known = resolve(
        "Whitfield",
        records=lambda _: Evidence(organisation="Whitfield Dairies"),
        check_opt_out=False,
    )
    assert known.kind == "organisation"
    assert known.organisation == "Whitfield Dairies"
    by_domain = resolve("Whitfield", domain="whitfield.example", check_opt_out=False)
    assert (by_domain.kind, by_domain.evidence) == ("organisation", "domain")
    assert resolve("Quillmarsh Mensah", check_opt_out=False).kind == "organisation"
    figure = resolve(
        "Quillmarsh Mensah", records=lambda _: Evidence(person=True), check_opt_out=False
    )
    assert figure.kind == "person"
    assert figure.person == ("quillmarsh", "mensah")
    assert resolve("Dr Okafor", check_opt_out=False).person == ("okafor",)


def test_look_alike_letters_are_read_as_latin():
    assert latin("Whitf\u0456eld") == "Whitfield"  # Cyrillic i
    assert latin("\u0441\u0430ncer") == "cancer"  # Cyrillic s and a
    assert names.canonical("Dana Whitf\u0456eld") == ("dana", "whitfield")


def test_initials_and_order_name_the_same_person():
    person = ("dana", "whitfield")
    for text in ("D. Whitfield said", "dana j whitfield", "Whitfield, Dana", "DANA WHITFIELD"):
        assert names.names_listed(names.fold(text), person), text
    assert not names.names_listed(names.fold("Whitfield Dairies"), person)
    assert names.same_person(("d", "whitfield"), person)
    assert not names.same_person(("j", "whitfield"), person)


def test_disguised_words_are_read_as_what_they_spell():
    read = deobfuscated(for_matching("Wh1tfield has c4nc3r, she is p r e g n a n t"))
    assert read == "Whitfield has cancer, she is pregnant"
    assert deobfuscated(for_matching("plate AB12 CDE, 2024, G7")) == "plate AB12 CDE, 2024, G7"


KNOWN = Known(names=frozenset({"dana", "whitfield"}))


@pytest.mark.parametrize(
    "text",
    [
        "DANA WHITFIELD REVEALS CANCER BATTLE",
        "saw dana whitfield at the clinic, she's having chemo",
        "Wh1tfield was diagnosed with c4nc3r last year.",
        "Dana Whitf\u0456eld has cancer.",
    ],
)
def test_the_screen_reads_text_as_people_write_it(text):
    assert screen_text(text, KNOWN).text == ""
    assert screen_text(text).text == ""  # with nothing known too


def test_a_fact_in_the_next_sentence_is_still_hers():
    text = "Whitfield missed the AGM. Chemotherapy starts next week, a friend said."
    assert screen_text(text, KNOWN).text == "Whitfield missed the AGM."
    kept = "Whitfield toured the farm. The pregnant sows are kept in crates."
    assert screen_text(kept, KNOWN).text == kept


@pytest.mark.parametrize(
    "kept",
    [
        # the next sentence's subject is an animal: it is about the animal
        "Whitfield visited the farm. The sows there are pregnant for most of their lives.",
        # the person before holds public office: her votes are her public role
        "Senator Carla Jensen brought in the fur ban. She voted for it again at second reading.",
    ],
)
def test_the_next_sentence_is_read_as_about_whom_it_is_about(kept):
    assert screen_text(kept).text == kept
    private = "Dana Whitfield introduced the fur ban. She is a member of the Green Party."
    assert screen_text(private).text == "Dana Whitfield introduced the fur ban."


def test_opted_out_people_are_left_out_by_name_initial_or_surname():
    known = Known(opted_out=(("mara", "quist"),))
    text = "Mara Quist spoke at the AGM. Quist said the chain would go cage-free. Hens gain."
    assert screen_text(text, known).text == "Hens gain."
    assert screen_text("M. Qu1st runs the farm.", known).text == ""


def test_hidden_characters_are_taken_out_of_feed_text():
    from common.language.markup import plain as _plain

    raw = "Dana&#8203;Whit&zwj;field \u202eevil\u202c \U000e0041tag <b>bold</b>\x07 &#x1F600;"
    assert _plain(raw, 200) == "DanaWhitfield evil tag bold \U0001f600"
    assert without_invisible("a\u00adb\ufeffc\u2066d") == "abcd"
