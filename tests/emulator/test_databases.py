"""The restricted databases (decision 0051): a deployment made before them keeps its
suppression list, consents and OSINT records, moved by ``admin move-restricted``, which copies
only what the destination lacks; until it has run, the services read both places (0063)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from common.adapters import firestore
from common.adapters.firestore import DATABASE_OF, collection, get_db, move_restricted
from common.adapters.suppressions import address_key, is_suppressed, suppress_addresses
from common.subjects import optout

pytestmark = pytest.mark.emulator


def test_an_upgrade_moves_what_the_main_database_holds_and_nothing_is_lost(db):
    old = get_db()
    for name in DATABASE_OF:  # as an older version wrote them: in the main database
        for n in range(3):
            old.collection(name).document(f"{name}-{n}").set({"n": n, "name": name})
    collection(firestore.SUPPRESSIONS).document("already-there").set({"reason": "bounce"})

    moved = move_restricted(page_size=2)  # more than one page per collection

    assert moved == {name: {"copied": 3, "kept": 0} for name in DATABASE_OF}
    for name in DATABASE_OF:
        assert list(old.collection(name).limit(1).stream()) == [], name
        docs = {doc.id: doc.to_dict() for doc in collection(name).stream()}
        assert {f"{name}-{n}": {"n": n, "name": name} for n in range(3)}.items() <= docs.items()
    assert collection(firestore.SUPPRESSIONS).document("already-there").get().exists
    # run again: nothing left
    assert move_restricted() == {name: {"copied": 0, "kept": 0} for name in DATABASE_OF}


def test_the_move_never_overwrites_a_newer_document_in_the_destination(db):
    """A suppression written since the upgrade (a bounce reported yesterday) is newer than
    the main database's copy of the same address's entry: it stays as it is."""
    key = address_key("reader@example.org")
    get_db().collection(firestore.SUPPRESSIONS).document(key).set({"reason": "unsubscribed"})
    get_db().collection(firestore.SUPPRESSIONS).document("other").set({"reason": "spam"})
    suppress_addresses({"reader@example.org": "bounce"}, "sendgrid")

    moved = move_restricted(page_size=1)

    assert moved[firestore.SUPPRESSIONS] == {"copied": 1, "kept": 1}
    kept = collection(firestore.SUPPRESSIONS).document(key).get().to_dict()
    assert (kept["reason"], kept["source"]) == ("bounce", "sendgrid")
    assert collection(firestore.SUPPRESSIONS).document("other").get().to_dict() == {
        "reason": "spam"
    }
    assert list(get_db().collection(firestore.SUPPRESSIONS).stream()) == []


def test_before_the_move_suppressions_and_opt_outs_in_the_main_database_are_seen(db):
    """An upgraded deployment whose operator has not yet run ``admin move-restricted`` still
    mails no suppressed address and profiles no one who opted out."""
    old = get_db()
    old.collection(firestore.SUPPRESSIONS).document(address_key("gone@example.org")).set(
        {"reason": "bounce", "source": "sendgrid", "at": datetime.now(UTC)}
    )
    entry = {
        "name": "Dana Whitfield",
        "key": "dana whitfield",
        "tokens": ["dana", "whitfield"],
        "added_at": datetime.now(UTC),
    }
    old.collection(firestore.OSINT_OPTOUTS).document(optout._doc_id("dana whitfield")).set(entry)
    optout.forget()

    assert is_suppressed("Gone@Example.org")
    assert not is_suppressed("here@example.org")
    assert optout.is_opted_out("dana whitfield")
    assert ("dana", "whitfield") in optout.listed().people
    assert [e.key for e in optout.entries()] == ["dana whitfield"]
    assert optout.add("Dana Whitfield")[1] is False  # already on the list
    try:
        move_restricted()
        optout.forget()
        assert is_suppressed("gone@example.org")  # now from the recipients database
        assert optout.is_opted_out("Dana Whitfield")
        assert list(old.collection(firestore.OSINT_OPTOUTS).stream()) == []
    finally:
        optout.forget()


def test_a_removal_before_the_move_takes_the_entry_out_of_both_places(db):
    entry = {
        "name": "Ada Moss",
        "key": "ada moss",
        "tokens": ["ada", "moss"],
        "added_at": datetime.now(UTC),
    }
    get_db().collection(firestore.OSINT_OPTOUTS).document(optout._doc_id("ada moss")).set(entry)
    assert optout.remove("Ada Moss")
    move_restricted()
    optout.forget()
    assert not optout.is_opted_out("Ada Moss")  # the move did not bring it back
    assert optout.entries() == []
