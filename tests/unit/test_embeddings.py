"""Embeddings: the offline encoder against reference vectors, and the Vertex AI adapter
against a loopback fake of its REST API."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from common import container
from common.errors import EmbeddingsUnavailable
from common.search import embeddings
from common.search.embeddings import OfflineEmbedder, VertexEmbedder
from tests.fakes.vertex_server import FakeVertexServer

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_offline_encoder_computes_what_the_reference_implementation_computes():
    """The NumPy forward pass against vectors made with transformers + PyTorch (the file says
    how), over texts of every kind: short, long (truncated at 256 tokens), accented."""
    reference = json.loads(REFERENCE.read_text())

    vectors = OfflineEmbedder().embed(reference["texts"], "document")

    assert len(vectors) == len(reference["vectors"])
    for mine, theirs in zip(vectors, reference["vectors"], strict=True):
        assert len(mine) == 384
        assert max(abs(x - y) for x, y in zip(mine, theirs, strict=True)) < 1e-5
        assert math.isclose(math.sqrt(cosine(mine, mine)), 1.0, abs_tol=1e-5)


def test_the_offline_encoder_places_paraphrases_closer_than_unrelated_text():
    question, answer, unrelated = OfflineEmbedder().embed(
        [
            "Is it legal to secretly film inside a farm?",
            "Ag-gag laws make it a crime to record video on agricultural premises without consent.",
            "Preheat the oven and bake the lasagne for forty minutes.",
        ],
        "query",
    )
    assert cosine(question, answer) > cosine(question, unrelated) + 0.3


def test_the_offline_encoder_keeps_order_whatever_the_lengths():
    texts = ["a much longer text about cage-free egg pledges and hens " * 5, "hens", "fur"]
    together = OfflineEmbedder().embed(texts, "document")  # batched, shortest first, reordered
    for text, vector in zip(texts, together, strict=True):
        alone = OfflineEmbedder().embed([text], "document")[0]
        assert max(abs(x - y) for x, y in zip(alone, vector, strict=True)) < 1e-5


def test_a_tuned_copy_changes_only_the_weights_it_names_and_reads_pairs_as_two_segments():
    """``embed_tuned`` (the roles model's fine-tuned layers, decision 0085): weights it names
    replace the base's for that call alone; a pair is BERT's two segments, not the texts
    joined."""
    from common.language.minilm import get_model, prepared

    model = get_model()
    name = "encoder.layer.5.output.dense.bias"
    own = prepared({name: model.weights[name].copy()})
    import numpy as np

    noise = np.random.default_rng(0).normal(0.0, 0.5, model.weights[name].shape)
    changed = {name: (model.weights[name] + noise).astype(np.float32)}
    text = "Sows in stalls cannot turn around."
    base = model.embed([text])[0]
    assert (
        max(abs(x - y) for x, y in zip(model.embed_tuned([text], own)[0], base, strict=True)) < 1e-6
    )
    moved = model.embed_tuned([text], changed)[0]
    assert max(abs(x - y) for x, y in zip(moved, base, strict=True)) > 1e-3
    assert model.embed([text])[0] == base  # the base model is unchanged
    pair = model.embed_tuned([("Closing ask", text)], own)[0]
    joined = model.embed_tuned([f"Closing ask {text}"], own)[0]
    assert max(abs(x - y) for x, y in zip(pair, joined, strict=True)) > 1e-3


@pytest.fixture
def vertex() -> Iterator[FakeVertexServer]:
    with FakeVertexServer() as fake:
        yield fake


def embedder(
    fake: FakeVertexServer, dimension: int = 16, deadline_s: float = 5.0
) -> VertexEmbedder:
    return VertexEmbedder(
        fake.origin,
        "proj-1",
        "europe-west1",
        "text-embedding-005",
        dimension,
        auth="none",
        timeout_s=2.0,
        deadline_s=deadline_s,
    )


def test_vertex_requests_carry_the_retrieval_task_and_dimension_in_batches(vertex):
    texts = [f"passage number {i}" for i in range(40)]

    stored = embedder(vertex).embed(texts, "document")
    asked = embedder(vertex).embed(["a question"], "query")

    assert len(stored) == 40
    assert all(len(v) == 16 for v in stored)
    assert len(asked) == 1
    bodies = [r["body"] for r in vertex.requests]
    assert [len(b["instances"]) for b in bodies] == [32, 8, 1]
    assert {i["task_type"] for b in bodies[:2] for i in b["instances"]} == {"RETRIEVAL_DOCUMENT"}
    assert bodies[2]["instances"][0]["task_type"] == "RETRIEVAL_QUERY"
    assert all(b["parameters"]["outputDimensionality"] == 16 for b in bodies)
    assert vertex.requests[0]["path"] == (
        "/v1/projects/proj-1/locations/europe-west1/publishers/google/models/"
        "text-embedding-005:predict"
    )
    assert "Authorization" not in vertex.requests[0]["headers"]
    assert embedder(vertex).model_id == "vertex:text-embedding-005@16"


def test_vertex_overload_is_retried(vertex, monkeypatch):
    monkeypatch.setattr(embeddings.time, "sleep", lambda _s: None)
    vertex.fail_next(503, count=2)

    assert len(embedder(vertex).embed(["hens"], "query")[0]) == 16
    assert len(vertex.requests) == 3


@pytest.mark.parametrize("status", [400, 403])
def test_vertex_refusals_are_a_backend_failure_and_not_retried(vertex, status):
    vertex.fail_next(status)

    with pytest.raises(EmbeddingsUnavailable, match=f"HTTP {status}"):
        embedder(vertex).embed(["hens"], "query")
    assert len(vertex.requests) == 1


def test_vertex_vectors_of_the_wrong_size_are_refused(vertex, monkeypatch):
    wrong = embedder(vertex, dimension=16)
    monkeypatch.setattr(wrong, "dimension", 32)  # asks for 32, the answer has 16... as a bug

    with pytest.raises(EmbeddingsUnavailable, match="vectors"):
        wrong._vectors({"predictions": [{"embeddings": {"values": [0.1] * 16}}]}, 1)
    with pytest.raises(EmbeddingsUnavailable, match="nonsense"):
        wrong._vectors({"predictions": [{"oops": 1}]}, 1)


def test_vertex_unreachable_is_a_backend_failure_within_the_deadline(monkeypatch):
    monkeypatch.setattr(embeddings.time, "sleep", lambda _s: None)
    gone = VertexEmbedder(
        "http://127.0.0.1:9", "p", "l", "m", 8, auth="none", timeout_s=0.5, deadline_s=2.0
    )

    with pytest.raises(EmbeddingsUnavailable, match="unreachable"):
        gone.embed(["hens"], "query")


def test_the_backend_follows_the_settings(settings_env, vertex):
    container.reset(embeddings.EMBEDDER)
    settings_env(EMBEDDINGS_BACKEND="offline")
    assert embeddings.get_embedder().model_id == "offline:all-MiniLM-L6-v2@384"
    container.reset(embeddings.EMBEDDER)
    settings_env(
        EMBEDDINGS_BACKEND="vertex",
        EMBEDDINGS_BASE_URL=vertex.origin,
        EMBEDDINGS_AUTH="none",
        EMBEDDINGS_DIMENSION="8",
    )
    assert embeddings.get_embedder().model_id == "vertex:text-embedding-005@8"
    container.reset(embeddings.EMBEDDER)
