"""Sentence roles (decisions 0080 and 0085): the model public copy reads to keep out guidance
for campaigners, trained on the sets as they are, run by the service as the trainer ran it, and
its use in a draft's choice of facts."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace

import pytest

from common.datafiles import ContentError
from devtools.train_roles import CORPUS, WRITTEN
from functions.content import roles
from functions.content.compose import Passage, Spec, compose, facts
from functions.content.texts import advice

# Written here, in none of the training sets: advice the patterns of drafts.toml do not catch,
# and a fact.
GUIDANCE = (
    "A short, friendly reminder a week before the deadline usually gets a faster reply than a "
    "long letter."
)
FACT = "In 2012 the EU banned barren battery cages for laying hens across all member states."


def test_the_model_was_trained_on_the_sets_as_they_are():
    trained = json.loads(roles.MODEL_PATH.read_text())["trainedOn"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in (CORPUS, *WRITTEN))).hexdigest()
    assert trained["sha256"] == digest, "retrain: make train-roles"


def test_the_service_computes_what_the_trainer_computed():
    """The tuned layers run in the service's NumPy forward pass (``MiniLM.embed_tuned``), not
    in the trainer's JAX: the probabilities the trainer wrote for a few of its sentences (some
    with a section, read as a first segment) come out the same, so the thresholds
    cross-validation chose mean here what they meant there."""
    checks = json.loads(roles.MODEL_PATH.read_text())["tuned"]["checks"]
    found = roles.model().fine_tuned([(c["sentence"], c["section"]) for c in checks])
    for check, probabilities in zip(checks, found, strict=True):
        assert list(probabilities) == pytest.approx(check["probabilities"], abs=2e-3)


def test_layers_that_are_not_the_models_are_refused(tmp_path):
    shutil.copy(roles.MODEL_PATH, tmp_path / roles.MODEL_PATH.name)
    changed = bytearray(roles.LAYERS_PATH.read_bytes())
    changed[-1] ^= 1
    (tmp_path / roles.LAYERS_PATH.name).write_bytes(bytes(changed))
    with pytest.raises(ContentError, match="not the file"):
        roles.read(tmp_path / roles.MODEL_PATH.name)


def test_public_copy_may_quote_a_fact_and_not_guidance_the_patterns_miss():
    assert advice().search(GUIDANCE.lower()) is None
    assert roles.quotable([(GUIDANCE, ""), (FACT, ""), (GUIDANCE, "")]) == [False, True, False]


def test_a_draft_leaves_out_guidance_an_answer_keeps_it():
    passage = Passage(
        text=f"{FACT} {GUIDANCE}",
        title="Laying hens",
        url="https://example.org/hens",
        section="Laying hens > Cages",
    )
    topic = "battery cages: a letter before the deadline"
    drafted = [f.text for f in facts(topic, [passage], public=True)]
    answered = [f.text for f in facts(topic, [passage])]
    assert drafted == [FACT]
    assert len(answered) == 2


def test_a_post_no_judged_fact_fits_cuts_one_before_it_quotes_guidance():
    """The roles model keeps guidance out while a draft can be made without it: a post no
    whole fact fits quotes a fact's main clause (decision 0079) before the guidance the
    patterns let through."""
    long_fact = Passage(
        text=(
            "In 2012 the EU banned barren battery cages for laying hens across all member "
            "states, after a twelve-year transition that began with the 1999 directive and set "
            "minimum space and nest and perch and litter rules that every enriched cage and barn "
            "and free-range system had to meet by the deadline with national inspections "
            "checking compliance and reporting to the Commission each year."
        ),
        title="Laying hens",
        url="https://example.org/hens",
        section="Laying hens > Cages",
        score=0.9,
    )
    guidance = Passage(
        text=GUIDANCE.replace("the deadline", "the battery cages deadline"),
        title="Letters",
        url="https://example.org/letters",
        section="Follow-up",
        score=0.5,
    )
    spec = Spec(topic="battery cages deadline", content_type="social_post", platform="x")
    draft = compose(spec, [long_fact, guidance])
    assert draft is not None
    assert "banned barren battery cages for laying hens across all member states" in draft.content
    assert "friendly reminder" not in draft.content


def test_a_sentence_is_clear_doubtful_or_kept_out_by_two_pairs_of_thresholds():
    model = replace(
        roles.model(),
        threshold=0.1,
        caveat_threshold=0.9,
        clear_threshold=0.3,
        clear_caveat_threshold=0.5,
    )
    assert model.verdict((0.8, 0.1)) == "clear"
    assert model.verdict((0.2, 0.1)) == "doubtful"  # P(fact) between the two thresholds
    assert model.verdict((0.4, 0.6)) == "doubtful"  # P(caveat) between its two
    assert model.verdict((0.05, 0.0)) == "out"
    assert model.verdict((0.95, 0.9)) == "out"


def test_clear_thresholds_laxer_than_the_others_are_refused(tmp_path):
    data = json.loads(roles.MODEL_PATH.read_text())
    data["clearThreshold"] = data["threshold"] / 2
    (tmp_path / roles.MODEL_PATH.name).write_text(json.dumps(data))
    shutil.copy(roles.LAYERS_PATH, tmp_path / roles.LAYERS_PATH.name)
    with pytest.raises(ContentError, match="clearThreshold"):
        roles.read(tmp_path / roles.MODEL_PATH.name)


@pytest.mark.parametrize("doubtful", [0, 1])
def test_a_draft_quotes_a_doubtful_fact_only_after_every_clear_one(monkeypatch, doubtful):
    sentences = [
        "In 2012 the EU banned barren battery cages for laying hens in every member state.",
        "Hens in enriched cages still cannot dust-bathe properly.",
    ]
    passage = Passage(
        text=" ".join(sentences),
        title="Laying hens",
        url="https://example.org/hens",
        section="Laying hens > Cages",
    )
    verdicts = {s: "doubtful" if i == doubtful else "clear" for i, s in enumerate(sentences)}
    monkeypatch.setattr(roles, "judged", lambda rows: [verdicts[s] for s, _ in rows])
    drafted = [f.text for f in facts("battery cages for hens", [passage], public=True)]
    assert drafted == [sentences[1 - doubtful], sentences[doubtful]]


def test_judgements_are_shared_safely_between_threads():
    """The server answers on many threads: ``quotable``'s remembered judgements are one dict
    under a lock, and every thread gets the same answers as one thread alone."""
    from concurrent.futures import ThreadPoolExecutor

    rows = [(GUIDANCE, ""), (FACT, ""), (f"{FACT} Again.", "Laying hens"), (GUIDANCE, "Tips")]
    alone = roles.quotable(rows)
    roles._known.clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: roles.quotable(rows), range(32)))
    assert all(answer == alone for answer in answers)
    assert len(roles._known) == len(rows)
