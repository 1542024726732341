"""The restricted databases (decision 0051): a deployment made before them keeps its
suppression list, consents and OSINT records, moved by ``admin move-restricted``."""

from __future__ import annotations

import pytest

from common import firestore
from common.firestore import DATABASE_OF, collection, get_db, move_restricted

pytestmark = pytest.mark.emulator


def test_an_upgrade_moves_what_the_main_database_holds_and_nothing_is_lost(db):
    old = get_db()
    for name in DATABASE_OF:  # as an older version wrote them: in the main database
        for n in range(3):
            old.collection(name).document(f"{name}-{n}").set({"n": n, "name": name})
    collection(firestore.SUPPRESSIONS).document("already-there").set({"reason": "bounce"})

    moved = move_restricted(page_size=2)  # more than one page per collection

    assert moved == dict.fromkeys(DATABASE_OF, 3)
    for name in DATABASE_OF:
        assert list(old.collection(name).limit(1).stream()) == [], name
        docs = {doc.id: doc.to_dict() for doc in collection(name).stream()}
        assert {f"{name}-{n}": {"n": n, "name": name} for n in range(3)}.items() <= docs.items()
    assert collection(firestore.SUPPRESSIONS).document("already-there").get().exists
    assert move_restricted() == dict.fromkeys(DATABASE_OF, 0)  # run again: nothing left
