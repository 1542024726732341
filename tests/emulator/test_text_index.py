"""The text index (common.search.postings, decision 0048) on the real emulator: BM25 ranking, reads
that do not grow with the collection, and no document found by words it no longer has --
after an update, a deletion, and when its posting had spilled out of the term's head."""

from __future__ import annotations

import uuid

import pytest

from common.adapters.firestore import TEXT_POSTINGS, get_db
from common.errors import NotIndexed
from common.language.index import terms as text_terms
from common.search import postings, retrieval

pytestmark = pytest.mark.emulator


@pytest.fixture
def collection(emulator) -> str:
    return f"idx_{uuid.uuid4().hex[:8]}"


def put(collection: str, doc_id: str, title: str, text: str) -> None:
    """Write a document as the importers do: its postings first, then the record."""
    record = {"title": title, "text": text}
    digest = retrieval.content_hash(record)
    ref = get_db().collection(collection).document(doc_id)
    snapshot = ref.get()
    old = postings.Indexed.stored(snapshot.to_dict() or {}) if snapshot.exists else None
    new = postings.Indexed.of(title, text, digest)
    postings.apply(collection, [postings.Change(doc_id, old, new)])
    ref.set({**record, **new.fields(), "content_hash": digest})


def remove(collection: str, doc_id: str) -> None:
    ref = get_db().collection(collection).document(doc_id)
    old = postings.Indexed.stored(ref.get().to_dict() or {})
    postings.apply(collection, [postings.Change(doc_id, old, None)])
    ref.delete()


def ids(collection: str, query: str, limit: int = 10) -> list[str]:
    return [found.id for found in postings.search(collection, query, limit)]


def head(collection: str, term: str) -> dict:
    return get_db().collection(TEXT_POSTINGS).document(f"{collection}~{term}~0").get().to_dict()


def test_bm25_ranks_the_rare_word_and_the_title_first(collection):
    put(collection, "a", "Hen welfare", "Hens need space. Hens need perches and nests.")
    put(collection, "b", "Fish slaughter", "Stunning fish before slaughter reduces suffering.")
    put(collection, "c", "Cage-free pledges", "Companies pledge to sell cage-free eggs from hens.")
    put(collection, "d", "Broilers", "Hens and broilers differ; broiler breeds grow fast.")
    assert ids(collection, "stunning")[0] == "b"
    assert ids(collection, "hens perches")[0] == "a"  # both words, and hens twice
    found = postings.search(collection, "cage-free pledge", 10)
    assert found[0].id == "c"
    assert 0 < found[-1].score <= found[0].score <= 1
    assert ids(collection, "unicorn") == []


def test_a_document_is_never_found_by_words_it_no_longer_has(collection):
    put(collection, "a", "Mink farming", "Mink farms in Poland and Denmark.")
    put(collection, "b", "Fur trade", "Fox fur from Finland.")
    assert ids(collection, "denmark") == ["a"]
    put(collection, "a", "Mink farming", "Mink farms in Poland.")  # Denmark is gone
    assert ids(collection, "denmark") == []
    assert ids(collection, "poland") == ["a"]
    assert head(collection, "denmark")["df"] == 0
    remove(collection, "b")
    assert ids(collection, "finland") == []
    stats = get_db().collection(TEXT_POSTINGS).document(f"{collection}~~stats").get()
    assert stats.get("documents") == 1


def test_a_common_terms_head_keeps_its_champions_and_spills_the_rest(collection, monkeypatch):
    """With heads of 3 postings, 8 documents holding "campaign": the head holds the 3 with
    the highest impact; the others spill; a spilled document updated to lose the word is not
    found by it, although its old posting stays in the spill shard."""
    monkeypatch.setattr(postings, "HEAD", 3)
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    for n, word in enumerate(words):
        put(collection, f"weak{n}", f"Note {word}", f"A long report on a campaign, {word}. " * 3)
    for n in range(3):
        put(collection, f"strong{n}", "Campaign", f"Campaign campaign news {n}.")
    top = head(collection, "campaign")
    assert sorted(postings._entries(top)) == ["strong0", "strong1", "strong2"]
    assert top["df"] == 8
    assert top["shards"] >= 2
    assert set(ids(collection, "campaign")) == {"strong0", "strong1", "strong2"}
    assert ids(collection, "bravo campaign")[0] == "weak1"  # found by its rarer word
    put(collection, "weak1", "Note bravo", "A long report on nothing of the kind, bravo.")
    assert "weak1" not in ids(collection, "campaign")
    assert ids(collection, "bravo") == ["weak1"]
    assert head(collection, "campaign")["df"] == 7


def test_a_head_written_as_a_map_before_heads_were_packed_is_still_read(collection):
    """Heads written before decision 0049's packing hold their postings as a map: queries
    read them, and the next write of the term packs them, keeping every posting."""
    put(collection, "a", "Sow stalls", "Sow stalls are banned in the UK.")
    (term,) = text_terms("stalls")
    ref = get_db().collection(TEXT_POSTINGS).document(f"{collection}~{term}~0")
    packed = ref.get().to_dict()
    old = {k: v for k, v in packed.items() if k != "packed"}
    ref.set({**old, "postings": postings._entries(packed)})  # as an older version wrote it
    assert ids(collection, "stalls") == ["a"]
    put(collection, "b", "Stalls", "Gestation stalls in Iowa.")
    rewritten = head(collection, term)
    assert "postings" not in rewritten
    assert sorted(postings._entries(rewritten)) == ["a", "b"]
    assert sorted(ids(collection, "stalls")) == ["a", "b"]


def test_postings_of_a_version_never_stored_are_no_answer(collection):
    """An import that stops between the postings and the record: the postings name a version
    (content hash) the record does not have, and a query passes over them."""
    put(collection, "a", "Sow stalls", "Sow stalls are banned in the UK.")
    written = postings.Indexed.of("Sow stalls", "Farrowing crates remain legal.", "f" * 64)
    old = postings.Indexed.stored(get_db().collection(collection).document("a").get().to_dict())
    postings.apply(collection, [postings.Change("a", old, written)])  # the record is not written
    assert ids(collection, "farrowing") == []
    assert ids(collection, "sow") == []  # its old version's postings are gone from the head


def test_a_record_of_an_older_format_is_updated_without_its_old_terms(collection):
    """A record indexed before the terms changed (decision 0057: "us" became a stop word) is
    rewritten by the next import: its old terms leave the index and it is counted once."""
    title, text = "Contact", "Write to us about the ban."
    digest = retrieval.content_hash({"title": title, "text": text})
    before = postings.Indexed(
        {"contact": 3.0, "write": 1.0, "us": 1.0, "ban": 1.0}, 6.0, digest[:12]
    )
    postings.apply(collection, [postings.Change("a", None, before)])
    ref = get_db().collection(collection).document("a")
    ref.set(
        {
            "title": title,
            "text": text,
            **before.fields(),
            "postings_format": "bm25-1",
            "content_hash": digest,
        }
    )
    assert ids(collection, "US") == ["a"]

    put(collection, "a", title, text)  # the import of the same record, now

    assert ids(collection, "US") == []
    assert "a" not in postings._entries(head(collection, "us"))
    assert head(collection, "ban")["df"] == 1
    stats = get_db().collection(TEXT_POSTINGS).document(f"{collection}~~stats").get().to_dict()
    assert stats["documents"] == 1
    assert ref.get().to_dict()["postings_format"] == postings.FORMAT


def test_a_querys_reads_do_not_grow_with_the_collection(collection):
    """One read per query term and the statistics, then one page of candidates' records."""

    def reads(query: str) -> int:
        meter: list[int] = []
        postings.search(collection, query, 10, meter=meter)
        return sum(meter)

    for n in range(40):
        put(collection, f"d{n}", f"Record {n}", f"Campaign about hens number {n} in region {n % 7}")
    small = reads("hens region campaign")
    for n in range(40, 160):
        put(collection, f"d{n}", f"Record {n}", f"Campaign about hens number {n} in region {n % 7}")
    assert reads("hens region campaign") == small == 1 + 3 + 10 + postings.SPARE


def test_an_unindexed_collection_says_to_run_reindex_and_reindex_builds_it(collection):
    get_db().collection(collection).document("old").set(
        {"title": "Old record", "description": "Written before the text index existed."}
    )
    with pytest.raises(NotIndexed, match="reindex"):
        postings.search(collection, "old record", 10)
    count = retrieval.reindex(collection, lambda r: (r["title"], r["description"]), embed=False)
    assert count == 1
    assert ids(collection, "existed") == ["old"]


def test_a_wrong_term_written_is_found_and_reindex_repairs_it(collection, monkeypatch):
    """Issue 43: a stemmer shared by threads wrote "hatcheries" as "enrich". ``stale_terms``
    (``admin reindex --check``) finds the record, and ``reindex`` of the text index (``admin
    reindex --text-only``) writes its right terms."""
    from common.language import index

    def title_and_text(record: dict) -> tuple[str, str]:
        return record["title"], record["text"]

    put(collection, "right", "Hatchery report", "Chicks at hatcheries.")
    stem = index.stem
    monkeypatch.setattr(index, "stem", lambda w: "enrich" if w == "hatcheries" else stem(w))
    put(collection, "wrong", "Visit notes", "We visited two hatcheries.")
    monkeypatch.undo()
    assert ids(collection, "hatcheries") == ["right"]
    assert retrieval.stale_terms(collection, title_and_text) == (2, ["wrong"])
    retrieval.reindex(collection, title_and_text, embed=False)
    assert retrieval.stale_terms(collection, title_and_text) == (2, [])
    assert sorted(ids(collection, "hatcheries")) == ["right", "wrong"]
    assert ids(collection, "enrich") == []


def test_writes_are_split_into_batches_firestore_accepts(collection, monkeypatch):
    """A batch of full heads can pass gRPC's 4 MiB message limit: writes are committed in
    batches of at most BATCH_BYTES (here tiny, so every write is its own batch)."""
    from common.adapters import firestore

    monkeypatch.setattr(firestore, "BATCH_BYTES", 1)
    for n in range(5):
        put(collection, f"d{n}", f"Mink report {n}", f"Fur farms and mink number {n}.")
    assert sorted(ids(collection, "mink")) == [f"d{n}" for n in range(5)]
    assert head(collection, "mink")["df"] == 5


def test_a_groups_documents_past_its_share_come_after_the_others(collection):
    """``per_group``: one source repeating a word in every part cannot fill the list: the
    other groups' documents come next, then the rest of the source in its BM25 order."""
    for n in range(5):
        put(collection, f"guide--{n:03d}", "Protest guide", f"Protest protest part {n}.")
    put(collection, "law--000", "Assembly law", "A protest needs notice.")

    def group(doc_id: str) -> str:
        return doc_id.rsplit("--", 1)[0]

    everything = ids(collection, "protest", 4)
    assert everything == [f"guide--{n:03d}" for n in range(4)]  # the guide fills the list
    diverse = postings.search(collection, "protest", 5, group=group, per_group=2)
    expected = ["guide--000", "guide--001", "law--000", "guide--002", "guide--003"]
    assert [found.id for found in diverse] == expected


def test_a_synonym_counts_as_the_word_it_stands_for_and_never_twice(collection):
    """``related`` (decision 0055): a word the documents do not use finds them by its synonym;
    a document holding the word and its synonym scores as one holding the best of them; a
    synonym the query holds already is not read again, and at most ``MAX_RELATED`` are read."""
    put(collection, "jail", "Sentences", "Imprisonment of up to six months for the offence.")
    put(collection, "both", "Prison and imprisonment", "Prison, imprisonment and prison again.")
    put(collection, "other", "Fines", "A fine for an offence under the act.")
    related = {"jail": ("imprison", "prison")}
    assert ids(collection, "jail") == []
    found = postings.search(collection, "jail", 10, related=related)
    assert {f.id for f in found} == {"jail", "both"}
    assert all(0 < f.score <= 1 for f in found)
    # "both" holds the two synonyms: its score is the best one's, not their sum
    alone = postings.search(collection, "prison", 10)
    assert [f.score for f in found if f.id == "both"] == [f.score for f in alone if f.id == "both"]

    def reads(query: str, synonyms: dict) -> int:
        meter: list[int] = []
        postings.search(collection, query, 10, meter=meter, related=synonyms)
        return meter[0]  # the statistics and the heads

    assert reads("jail", related) == 1 + 3
    assert reads("jail prison", related) == 1 + 3  # "prison" is the query's own word
    many = {"jail": tuple(f"word{n}" for n in range(20))}
    assert reads("jail", many) == 1 + 1 + postings.MAX_RELATED
