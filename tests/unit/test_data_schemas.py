"""Training sets and trained models are checked (decision 0070): every JSON Lines set and JSON
model under data/ has a schema, the committed ones validate, their labels are the service's
own, and a bad row or a model of the wrong shape is refused naming the file, the line and the
field, by the readers the service and the trainers use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest

from common.datafiles import DATA, ContentError, Row, read_json, read_jsonl
from common.language import acronyms
from common.offline import classifier as intent_classifier
from common.offline.intents import INTENTS, Example, Intent
from common.privacy import classifier as privacy_classifier
from common.privacy.rules import LABELS
from common.search import domain, relevance
from devtools.train_privacy import Sentence
from devtools.train_privacy import load as load_privacy_set
from devtools.train_relevance import Pair, read_pairs
from devtools.train_roles import CorpusSentence, WrittenSentence
from devtools.train_topicality import Pair as TopicalityPair
from functions.chat import private as private_asks
from functions.content import roles, topicality

# Every training set under data/ (but data/sample's records: ``test_every_sample_record_...``)
# and its row's schema. A new set needs an entry here.
SETS: dict[str, type[Row]] = {
    "intents/train.jsonl": Example,
    "intents/holdout.jsonl": Example,
    "intents/holdout_companies.jsonl": Example,
    "intents/holdout_entities.jsonl": Example,
    "privacy/train.jsonl": Sentence,
    "privacy/train_pending.jsonl": Sentence,
    "relevance/train_pairs.jsonl": Pair,
    "relevance/train_pairs_2.jsonl": Pair,
    "relevance/train_pairs_spent.jsonl": Pair,
    "relevance/short_pairs.jsonl": Pair,
    "offline/private_asks.jsonl": private_asks.Example,
    "offline/private_asks_written.jsonl": private_asks.Example,
    "content/roles/corpus.jsonl": CorpusSentence,
    "content/roles/written.jsonl": WrittenSentence,
    "content/roles/written2.jsonl": WrittenSentence,
    "content/roles/held_apart.jsonl": WrittenSentence,
    "content/roles/held_apart2.jsonl": WrittenSentence,
    "content/roles/held_apart3.jsonl": WrittenSentence,
    "content/roles/held_apart4.jsonl": WrittenSentence,
    "content/roles/held_apart5.jsonl": WrittenSentence,
    "content/roles/held_apart6.jsonl": WrittenSentence,
    "content/roles/held_apart7.jsonl": WrittenSentence,
    "content/roles/held_apart8.jsonl": WrittenSentence,
    "content/roles/held_apart9.jsonl": WrittenSentence,
    "content/roles/held_apart10.jsonl": WrittenSentence,
    "content/roles/held_apart11.jsonl": WrittenSentence,
    "content/roles/written3.jsonl": WrittenSentence,
    "content/roles/written4.jsonl": WrittenSentence,
    "content/topicality_pairs.jsonl": TopicalityPair,
}
# Every model file and the reader the service loads it with.
MODELS: dict[str, Any] = {
    "intents/model.json": intent_classifier.Model.load,
    "privacy/model.json": privacy_classifier.read,
    "relevance/model.json": relevance.read,
    "relevance/model_first.json": relevance.read,
    "relevance/frequency.json": lambda path: read_json(path, relevance.Frequency),
    "relevance/domain.json": lambda path: read_json(path, domain.DomainFile),
    "relevance/passages.json": lambda path: read_json(path, relevance.PassageCalibration),
    "offline/private_asks.json": lambda path: read_json(path, private_asks.Model),
    "content/roles_model.json": roles.read,
    "content/topicality_model.json": lambda path: read_json(path, topicality.ModelFile),
    "search/acronyms.json": lambda path: read_json(path, acronyms.Acronyms),
}


def test_every_training_set_and_model_has_a_schema():
    found = {str(p.relative_to(DATA)) for p in DATA.rglob("*.jsonl")}
    assert found - {n for n in found if n.startswith("sample/")} == set(SETS)
    assert {str(p.relative_to(DATA)) for p in DATA.rglob("*.json")} == set(MODELS)


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_training_set_validates(name):
    assert read_jsonl(DATA / name, SETS[name])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_validates(name):
    assert MODELS[name](DATA / name)


def test_every_sample_record_validates_against_its_table():
    """data/sample's records are not a training set, but the relevance trainer reads them as
    candidates: each is a record its table's importer takes (``functions.search.importer``)."""
    from functions.search.importer import read_rows, validate
    from functions.search.tables import TABLES

    assert {p.stem for p in (DATA / "sample").glob("*.jsonl")} == set(TABLES)
    refused = [
        f"sample/{name}.jsonl:{number}: {reason}"
        for name, table in TABLES.items()
        for number, row in read_rows(DATA / "sample" / f"{name}.jsonl")
        if isinstance(reason := row if isinstance(row, str) else validate(table, row), str)
    ]
    assert refused == []


# -- the legal labels are the service's ------------------------------------------------------


def test_the_intents_are_the_services_and_the_model_knows_each():
    """The chat group answers with ``common.offline.intents.Intent``; the entities and the
    replies know each; the committed model tells all of them apart, and so does its training
    set (a label the service does not know is refused by ``Example``)."""
    from common.offline.entities import INTENT_KEYS
    from common.offline.reply import OPERATIONS
    from functions.chat import models

    assert models.Intent is Intent
    assert set(INTENT_KEYS) == set(INTENTS)
    assert set(OPERATIONS) == set(INTENTS) - {"GENERAL_CHAT"}
    model = intent_classifier.Model.load(DATA / "intents/model.json")
    assert model.labels == sorted(INTENTS)
    trained = {intent for _, intent in intent_classifier.read_jsonl(DATA / "intents/train.jsonl")}
    assert trained == set(INTENTS)


def test_the_privacy_labels_are_the_screens():
    assert get_args(privacy_classifier.Verdict) == ("none", *LABELS)
    model = privacy_classifier.read(privacy_classifier.MODEL_PATH)
    assert model.labels == ("none", *LABELS)
    labels = {row.label for row in read_jsonl(DATA / "privacy/train.jsonl", Sentence)}
    assert labels == {"none", *LABELS}


# -- a bad row fails here, not in the training ------------------------------------------------

INTENT_ROW = {"text": "Is it legal to film in a barn?", "intent": "LEGAL_HELP"}
PRIVACY_ROW = {"text": "She lives at 4 Elm Road.", "label": "home"}
PAIR_ROW = {
    "request": "sow stalls",
    "mode": "search",
    "candidate": {"doc": "pig-welfare-sow-stalls", "section": "Sow stalls"},
    "label": 2,
    "kind": "keywords",
}


def written(tmp_path: Path, good: dict[str, Any], bad: str) -> Path:
    """A set whose line 3 is ``bad`` (line 2 blank: lines are counted as an editor counts
    them)."""
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + bad + "\n", encoding="utf-8")
    return path


def row(base: dict[str, Any], **changes: Any) -> str:
    return json.dumps({k: v for k, v in {**base, **changes}.items() if v is not ...})


def read_intents(path: Path) -> object:
    return intent_classifier.read_jsonl(path)  # what train.py, the tests and bench/ read


def read_privacy(path: Path) -> object:
    return load_privacy_set(path)  # devtools.train_privacy


def pairs_of(path: Path) -> object:
    return read_pairs([path], {("pig-welfare-sow-stalls", "Sow stalls"): "Sow stalls. A crate."})


@pytest.mark.parametrize(
    ("reader", "bad", "expected"),
    [
        # an unknown label
        (read_intents, row(INTENT_ROW, intent="LEGAL"),
         r"intent: Input should be 'CREATE_CONTENT', .* or 'GENERAL_CHAT' \(got \"LEGAL\"\)"),
        (read_privacy, row(PRIVACY_ROW, label="adress"),
         r"label: Input should be 'none', 'contact', .* \(got \"adress\"\)"),
        (pairs_of, row(PAIR_ROW, label=3), r"label: Input should be 0, 1 or 2 \(got 3\)"),
        (pairs_of, row(PAIR_ROW, kind="keyword"), r"kind: Input should be 'keywords', "),
        # a missing field
        (read_intents, row(INTENT_ROW, text=...), r"text: Field required"),
        (read_privacy, row(PRIVACY_ROW, label=...), r"label: Field required"),
        (pairs_of, row(PAIR_ROW, candidate={"doc": "pig-welfare-sow-stalls"}),
         r"candidate: give doc and section, doc and sentence, or table and id \(not doc\)"),
        # a wrong type
        (read_intents, row(INTENT_ROW, text=42),
         r"text: Input should be a valid string \(got 42\)"),
        (pairs_of, row(PAIR_ROW, label="2"),
         r"label: must be a whole number: 0, 1 or 2 \(got \"2\"\)"),
        (pairs_of, row(PAIR_ROW, label=True),
         r"label: must be a whole number: 0, 1 or 2 \(got true\)"),
        (read_privacy, row(PRIVACY_ROW, text=["a"]), r"text: Input should be a valid string$"),
        # a misspelt key, blank text, a line that is not a JSON object
        (read_intents, row(INTENT_ROW, intnet="LEGAL_HELP"),
         r"intnet: Extra inputs are not permitted"),
        (read_privacy, row(PRIVACY_ROW, text="  "), r"text: must not be blank"),
        (read_intents, '{"text": "a", intent: 1}', r"is not valid JSON \(key must be a string"),
        (pairs_of, "[2]", r"Input should be an object"),
    ],
)  # fmt: skip
def test_a_bad_row_is_refused_naming_the_file_the_line_and_the_field(
    tmp_path, reader, bad, expected
):
    good = {read_intents: INTENT_ROW, read_privacy: PRIVACY_ROW, pairs_of: PAIR_ROW}[reader]
    with pytest.raises(ContentError, match=rf"bad\.jsonl:3: {expected}") as caught:
        reader(written(tmp_path, good, bad))
    assert str(tmp_path / "bad.jsonl") in str(caught.value)


def test_good_rows_are_read_as_written(tmp_path):
    """Text is kept as written (the training reads it), and a pair's candidate is found."""
    path = tmp_path / "good.jsonl"
    path.write_text(json.dumps({"text": "  Two  spaces ", "intent": "GENERAL_CHAT"}) + "\n")
    assert intent_classifier.read_jsonl(path) == [("  Two  spaces ", "GENERAL_CHAT")]
    path.write_text(json.dumps(PAIR_ROW) + "\n")
    assert pairs_of(path) == [("sow stalls", "Sow stalls. A crate.", 2)]


def test_every_bad_row_is_listed_up_to_ten(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(row(INTENT_ROW, intent="CHAT") + "\n" for _ in range(12)))
    with pytest.raises(ContentError) as caught:
        intent_classifier.read_jsonl(path)
    lines = str(caught.value).splitlines()
    assert [line.split(": ")[0].rsplit(":", 1)[1] for line in lines[:10]] == [
        str(n) for n in range(1, 11)
    ]
    assert lines[10] == "(and 2 more bad rows)"


def test_a_pair_whose_candidate_is_not_there_names_its_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    lost = {**PAIR_ROW, "candidate": {"table": "campaigns", "id": "camp-999"}}
    path.write_text(json.dumps(PAIR_ROW) + "\n" + json.dumps(lost) + "\n")
    with pytest.raises(
        ContentError, match=r"pairs\.jsonl:2: candidate: table 'campaigns' has no record 'camp-999'"
    ):
        pairs_of(path)


def test_a_set_that_cannot_be_read_names_the_file(tmp_path):
    with pytest.raises(ContentError, match=r"missing\.jsonl: cannot be read"):
        read_jsonl(tmp_path / "missing.jsonl", Example)
    (tmp_path / "latin.jsonl").write_bytes(b'{"text": "caf\xe9", "intent": "GENERAL_CHAT"}\n')
    with pytest.raises(ContentError, match=r"latin\.jsonl: is not UTF-8"):
        read_jsonl(tmp_path / "latin.jsonl", Example)


# -- a model of the wrong shape fails at load, naming the file ---------------------------------


def _intent_model() -> dict[str, Any]:
    labels = sorted(INTENTS)
    return {
        "labels": labels,
        "bias": [0.0] * 6,
        "temperature": 0.5,
        "weights": {"barn": [0.1] * 6, "cue:legal": [0.2] * 6},
        "meaning": {
            "weights": [[0.0] * 6 for _ in range(384)],
            "bias": [0.0] * 6,
            "mix": 0.5,
            "scale": 4.0,
            "words_sure": 0.98,
        },
        "trainedOn": "abc",
    }


def _privacy_model() -> dict[str, Any]:
    return {
        "about": "a test model",
        "trainedOn": {"file": "t.jsonl", "sha256": "0" * 64, "sentences": 3, "personal": 1},
        "crossValidated": {"folds": 5, "recall": 0.9, "patternsAlone": {"recall": 0.7}},
        "labels": ["none", "home"],
        "threshold": 0.15,
        "alpha": 2.0,
        "vocabulary": ["lives", "t:live"],
        "weights": [[0.0] * 386, [0.0] * 386],
        "bias": [0.0, 0.0],
    }


def _relevance_model() -> dict[str, Any]:
    return json.loads((DATA / "relevance/model.json").read_text(encoding="utf-8"))


def _set(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``document`` with the value at ``path`` ("meaning.weights.3", "labels.1") replaced, or
    removed when ``value`` is ``...``."""
    *parents, last = path.split(".")
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return document


@pytest.mark.parametrize(
    ("reader", "document", "path", "value", "expected"),
    [
        (intent_classifier.Model.load, _intent_model, "labels.1", "CHAT",
         r"labels\[1\]: Input should be 'CREATE_CONTENT', .* \(got \"CHAT\"\)"),
        (intent_classifier.Model.load, _intent_model, "labels.1", "CREATE_CONTENT",
         r"labels: an intent is named twice"),
        (intent_classifier.Model.load, _intent_model, "weights.barn", [0.1] * 5,
         r"weights\.barn: 5 values for 6 labels"),
        (intent_classifier.Model.load, _intent_model, "meaning.weights.3", [0.0] * 7,
         r"meaning\.weights\[3\]: 7 values for 6 labels"),
        (intent_classifier.Model.load, _intent_model, "temperature", ...,
         r"temperature: Field required"),
        (intent_classifier.Model.load, _intent_model, "temperature", "0.5",
         r"temperature: Input should be a valid number \(got \"0\.5\"\)"),
        (privacy_classifier.read, _privacy_model, "labels.0", "home",
         r"labels: 'none' first, then each personal label once"),
        (privacy_classifier.read, _privacy_model, "labels.1", "adress",
         r"labels\[1\]: Input should be 'none', 'contact', .* \(got \"adress\"\)"),
        (privacy_classifier.read, _privacy_model, "weights.1", [0.0] * 385,
         r"weights\[1\]: 385 values, not 386 \(384 for the embedding and 2 for the vocabulary\)"),
        (privacy_classifier.read, _privacy_model, "bias", [0.0],
         r"bias: 1 values for 2 labels"),
        (privacy_classifier.read, _privacy_model, "threshold", 1.0,
         r"threshold: Input should be less than 1"),
        (relevance.read, _relevance_model, "features.2", "pairs",
         rf"features: \['pairs'\] not among the judge's {len(relevance.FEATURES)} features"),
        (relevance.read, _relevance_model, "features.2", "cosine",
         r"features: repeated or out of the judge's order"),
        (relevance.read, _relevance_model, "short.weights", [0.5],
         rf"short\.weights: 1 values for {len(relevance.SHORT_FEATURES)} features"),
        (relevance.read, _relevance_model, "short", ..., r"short: Field required"),
        (relevance.read, _relevance_model, "bias", None,
         r"bias: Input should be a valid number \(got null\)"),
    ],
)  # fmt: skip
def test_a_model_of_the_wrong_shape_is_refused_naming_the_file_and_the_field(
    tmp_path, reader, document, path, value, expected
):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document()), encoding="utf-8")
    assert reader(good)
    bad = tmp_path / "model.json"
    bad.write_text(json.dumps(_set(document(), path, value)), encoding="utf-8")
    with pytest.raises(ContentError, match=rf"model\.json: (.*; )?{expected}"):
        reader(bad)


def test_a_model_that_is_not_json_or_not_there_names_the_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_text('{"labels": [', encoding="utf-8")
    with pytest.raises(ContentError, match=r"model\.json: is not valid JSON"):
        intent_classifier.Model.load(path)
    with pytest.raises(ContentError, match=r"absent\.json: cannot be read"):
        relevance.read(tmp_path / "absent.json")
