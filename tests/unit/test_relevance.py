"""The relevance judge (issue 44, decision 0067): its model matches its features, it tells a
passage that answers a request from ones that do not, and a stored vector judges as the text
would."""

from __future__ import annotations

import json

import pytest

from common.datafiles import ContentError
from common.search import relevance


def test_the_models_are_of_the_judges_features() -> None:
    """The judge reads every feature; the first training's judge, which the assistant's
    sentences and legal recognition keep (decision 0067), reads those it was trained on."""
    judges, first = relevance.read(), relevance.read(relevance.FIRST_MODEL_PATH)
    assert judges.long.features == relevance.FEATURES
    assert judges.short.features == relevance.SHORT_FEATURES
    for judge in (judges.long, judges.short, first.long, first.short):
        assert len(judge.weights) == len(judge.features) == len(judge.mean) == len(judge.scale)
    assert not set(first.long.features) & {*relevance.WEIGHTED, *relevance.PLACES}
    assert set(first.long.features) < set(relevance.FEATURES)


def test_the_word_frequencies_are_the_corpus_as_shipped() -> None:
    """``data/relevance/frequency.json`` is what the trainer writes from the guides and the
    sample records today: a guide changed without training again fails here."""
    import json

    from devtools.train_relevance import frequency

    stored = relevance.Frequency.model_validate_json(relevance.FREQUENCY_PATH.read_bytes())
    assert stored == relevance.Frequency.model_validate_json(json.dumps(frequency()))


def test_rare_words_weigh_more_and_a_synonym_holds_its_word() -> None:
    """``WEIGHTED``: a candidate holding a request's rare word holds more of it than one holding
    a common word; a word the guides never use is unknown; a synonym counts as the word."""
    rare, common = (
        relevance.weighted(["mink", "law"], {"mink"}),
        relevance.weighted(["mink", "law"], {"law"}),
    )
    assert rare[0] > 0.5 > common[0]
    assert common[1] > rare[1] > 0.0  # the rarest word not held
    assert relevance.weighted(["zzqx"], set())[2] == 1.0
    assert relevance.weighted(["cop"], {"polic"})[0] == 1.0  # synonyms.toml: cops -> police


def test_a_keyword_search_is_judged_by_its_words_and_nonsense_is_not_relevant() -> None:
    """A one- or two-word keyword search (the short judge) finds the passage that holds its words
    relevant, and not a passage without them (``answers``: the search door's rule); a short
    nonsense or off-corpus request and a request with no search terms at all are answered by
    nothing."""
    mink = (
        "Fur farming — Mink\nMink farms keep a solitary, semi-aquatic predator in wire cages; "
        "several countries have closed their mink farms."
    )
    stalls = "Pig welfare — Sow stalls\nA sow stall is a metal crate too narrow to turn in."
    floor = relevance.PASSAGE_FLOOR  # on the door's scale, holding a query word or not

    def door(request: str, texts: list[str], scores: list[float]) -> bool:
        return relevance.answers(request, texts, relevance.passages(scores), floor, floor)

    for request, wanted, other in (("mink", mink, stalls), ("sow stalls", stalls, mink)):
        found, unrelated = relevance.relevance(request, [wanted, other], "search")
        assert found > 0.9 > 0.3 > unrelated
        assert door(request, [wanted], [found])
        assert not door(request, [other], [unrelated])
    for request in ("xqzv plorf", "weather", "football results"):
        scores = relevance.relevance(request, [mink, stalls], "search")
        assert max(scores) < relevance.BARE_FLOOR, request  # they hold none of its words
        assert not door(request, [mink, stalls], scores)
    for kind in ("search", "question", "topic"):
        assert relevance.relevance("???", [mink, stalls], kind) == [0.0, 0.0]


def test_a_result_holding_none_of_the_query_words_answers_only_at_the_higher_floor() -> None:
    """``answers``: a result holding a word of the query answers at its door's floor (a
    record's, ``RECORD_FLOOR``, is below ``BARE_FLOOR``); one holding none (a synonym, or
    nothing to do with it) only at ``BARE_FLOOR``."""
    text = "Fur farming — Mink\nMink farms keep a predator in wire cages."
    floor = relevance.RECORD_FLOOR
    between = (floor + relevance.BARE_FLOOR) / 2
    assert floor < between < relevance.BARE_FLOOR
    assert relevance.answers("mink cages", [text], [between], floor)
    assert not relevance.answers("weather", [text], [between], floor)
    assert relevance.answers("weather", [text], [relevance.BARE_FLOOR], floor)
    assert not relevance.answers("mink", [text], [floor - 0.01], floor)
    assert relevance.answers("mink", [text], [floor - 0.0004], floor)  # given as the floor


def test_an_answering_passage_is_judged_above_an_unrelated_one_and_gibberish() -> None:
    request = "How long can unweaned calves travel in the EU before a rest?"
    answering = (
        "EU transport rules — Journey times\nUnweaned calves may travel for nine hours, then "
        "must rest for at least one hour before up to nine more hours of transport."
    )
    unrelated = "Media work — Press releases\nA press release leads with the news in one line."
    gibberish = "qwzx plorf vvb"
    scores = relevance.relevance(request, [answering, unrelated, gibberish])
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[0] > 0.5 > scores[1]
    assert scores[0] > scores[2]
    assert relevance.relevance(request, []) == []


def test_names_and_figures_asked_for_count() -> None:
    """A request naming a company the candidate does not hold has that feature set."""
    row = relevance.base_features(
        "Did Fjordlax agree to stun its fish?", "Siam Tidewater agreed to stun shrimp.", 0.5
    )
    named = dict(
        zip(
            (
                *relevance.BASE,
                *relevance.LENGTH,
                *relevance.WEIGHTED,
                *relevance.PLACES,
                *relevance.SPECIES,
                *relevance.ROLES,
            ),
            row,
            strict=True,
        )
    )
    assert named["names_found"] == 0.0
    assert named["names_missing"] == 1.0


def test_a_stored_vector_judges_as_the_text_does() -> None:
    """A candidate judged with its packed, stored vector (float16) scores what it scores when
    its text is embedded at the time, to three places; a stored value that is not a vector
    is none."""
    request = "cage-free egg pledges by supermarkets"
    text = "Corporate campaigns — Pledges\nSupermarkets pledge to sell only cage-free eggs."
    stored = relevance.pack(relevance.embed([text])[0])
    assert len(stored) == 2 * relevance.DIMENSION
    with_stored = relevance.judged(request, [relevance.Candidate(text, relevance.unpack(stored))])
    assert abs(with_stored[0] - relevance.relevance(request, [text])[0]) < 1e-3
    assert relevance.unpack(b"short") is None
    assert relevance.unpack(None) is None


def test_a_query_vector_from_the_retrieval_embedder_is_reused_only_when_it_is_minilm() -> None:
    """A search by meaning with the offline MiniLM has the query's vector already: the judge
    given it scores what it scores embedding the query itself; another model's is not used."""
    from common.search.embeddings import OfflineEmbedder

    request = "cage-free egg pledges"
    texts = ["Corporate campaigns — Pledges\nSupermarkets pledge to sell only cage-free eggs."]
    vector = relevance.embed([request])[0]
    given = relevance.judged(request, [relevance.Candidate(t) for t in texts], vector=vector)
    assert [round(s, 6) for s in given] == [
        round(s, 6) for s in relevance.relevance(request, texts)
    ]
    assert relevance.reusable(OfflineEmbedder.model_id, vector) is vector
    assert relevance.reusable("vertex:text-embedding-005@768", vector) is None


def test_every_training_pair_is_labelled_and_its_candidate_exists() -> None:
    """The judge's training sets (``data/relevance/*.jsonl``, the spent held-apart sets' pairs
    among them), read as the trainer reads them (``devtools.train_relevance.read_pairs``):
    every row a ``Pair`` (a label of 0, 1 or 2, a request, a candidate that is a guide's
    section, a record or a sentence) whose candidate the trainer can read. A mistyped id would
    otherwise stop the training, and a mistyped label train another class: either is a
    ``ContentError`` naming the file and line (tests/unit/test_data_schemas.py)."""
    from devtools.train_relevance import PAIRS, SHORT_PAIRS, read_pairs, records, sections

    found = read_pairs([*PAIRS, SHORT_PAIRS], {**sections(), **records()})
    assert any(path.name == "train_pairs_spent.jsonl" for path in PAIRS)
    assert len(found) > 9000
    assert {label for _, _, label in found} == {0, 1, 2}


def test_a_records_score_is_recalibrated_and_a_passages_is_not() -> None:
    """``Judge.records``: a record's score p mapped to sigmoid(a ln p - b ln(1 - p) + c) as
    ``devtools.calibrate_relevance`` fitted it on the door's hits of the tables (beta
    calibration); a passage's as the regression gives it; the calibration survives the model
    file, and the fit recovers a known map, Platt's (a == b) among them."""
    from dataclasses import replace

    import numpy as np

    from devtools.calibrate_relevance import beta

    judges = relevance.judge()
    assert judges.long.records is not None
    assert judges.short.records is not None
    plain = replace(judges.long, records=None)
    rows = np.zeros((3, len(relevance.FEATURES)))
    rows[:, 0] = [-1.0, 0.0, 1.0]
    raw = plain.probabilities(rows)
    a, b, c = judges.long.records
    expected = 1 / (1 + np.exp(-(a * np.log(raw) - b * np.log(1 - raw) + c)))
    assert np.allclose(judges.long.probabilities(rows, records=True), expected)
    assert np.allclose(judges.long.probabilities(rows), raw)
    kept = relevance.ModelFile.model_validate_json(judges.to_json()).judge()
    assert kept.records == judges.long.records
    rng = np.random.default_rng(7)
    scores = rng.uniform(0.01, 0.99, 8000)
    grid = np.linspace(0.01, 0.99, 99)

    def mapped(abc: tuple[float, float, float], p: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(abc[0] * np.log(p) - abc[1] * np.log(1 - p) + abc[2])))

    for truth in ((2.0, 2.0, -1.0), (2.5, 0.8, 0.5)):  # Platt's (a == b), and one bent apart
        labels = list(rng.uniform(size=len(scores)) < mapped(truth, scores))
        fitted = beta(list(scores), labels)
        assert np.abs(mapped(fitted, grid) - mapped(truth, grid)).max() < 0.03, (fitted, truth)


def test_a_candidate_without_a_stored_vector_is_embedded_from_the_text_given_for_it() -> None:
    """``Candidate.embedded``: a record judged by its judged text (country by name) but stored
    without a vector is embedded from its indexed text, as the import would have embedded it."""
    indexed = "Stop the mink farms\nA campaign against fur farming in BR."
    judged_text = "Stop the mink farms\nA campaign against fur farming in Brazil."
    [stored] = relevance.embed([indexed])
    request = "mink farms in Brazil"
    as_stored = relevance.judged(request, [relevance.Candidate(judged_text, stored)], "search")
    as_missing = relevance.judged(
        request, [relevance.Candidate(judged_text, None, indexed)], "search"
    )
    from_judged = relevance.judged(request, [relevance.Candidate(judged_text)], "search")
    assert as_missing == pytest.approx(as_stored, abs=1e-6)
    assert from_judged != pytest.approx(as_stored, abs=1e-6)  # the text embedded matters


def test_the_knowledge_door_shows_a_passage_s_score_recalibrated_with_its_floor_mapped() -> None:
    """``passages`` (decision 0067): the door's map of the judge's score is monotonic, keeps 0
    and 1, and lowers the middle (of the passages the judge scored 0.3 to 0.7, 7% to 33%
    answered); ``PASSAGE_FLOOR`` is the floor chosen on the judge's scale (0.3), mapped, so a
    new calibration that moves it fails here until the constant and the API's texts say so."""
    judged = [0.0, 0.05, 0.15, 0.3, 0.5, 0.7, 0.9, 1.0]
    shown = relevance.passages(judged)
    assert shown == sorted(shown)
    assert len(set(shown)) == len(shown)
    assert [round(shown[i], relevance.SCORE_PLACES) for i in (0, -1)] == [0.0, 1.0]
    assert all(s < j for s, j in zip(shown[1:-1], judged[1:-1], strict=True))
    assert round(relevance.passages([0.3])[0], relevance.SCORE_PLACES) == relevance.PASSAGE_FLOOR
    assert f"a passage scores {relevance.PASSAGE_FLOOR} or more" == relevance.ANSWERS


def test_a_passage_calibration_fitted_for_another_model_is_refused(tmp_path, monkeypatch) -> None:
    """A calibration belongs to the model it was fitted on: ``passages.json`` names the SHA-256
    of ``model.json``, and another model's scores are not mapped by it."""
    document = json.loads(relevance.PASSAGES_PATH.read_text("utf-8"))
    stale = tmp_path / "passages.json"
    stale.write_text(json.dumps(document | {"model": "0" * 64}), "utf-8")
    monkeypatch.setattr(relevance, "PASSAGES_PATH", stale)
    relevance._passages.cache_clear()
    try:
        with pytest.raises(ContentError, match=r"another model\.json"):
            relevance.passages([0.5])
    finally:
        relevance._passages.cache_clear()  # the shipped file is read again after the test
