"""Train the classifier of sentence roles (functions/content/roles.py, decisions 0080 and 0085).

Reads ``data/content/roles/corpus.jsonl`` (sentences of ``data/knowledge`` a draft could quote,
each labelled fact, guidance, caveat or other by helpers who read only
``bench/data/roles.brief.md``) and the written sets (``WRITTEN``: sentences helpers wrote about
the guides' topics, labelled the same way; the corpus has few caveats).

The model is all-MiniLM-L6-v2 with its top ``TUNED_LAYERS`` layers fine-tuned, and a softmax
head on its mean-pooled, normalised output: what a sentence is *for* (evidence, a note to
campaigners, a point for the other side) is read from how its words bear on each other, which a
linear model on the frozen embedding and the sentence's words could not see (decision 0085:
caveats kept out 0.54 at best in cross-validation). Class-weighted cross-entropy, AdamW with a
warm-up and cosine decay, ``EPOCHS`` passes, in JAX; the layers below the tuned ones are run
once.

Two thresholds, on P(fact) and on P(caveat), are chosen by five-fold cross-validation over all
the sentences: those that keep the most guidance and caveats out of public copy, the advice
patterns of ``data/content/drafts.toml`` included, with the facts public copy loses at most
``MAX_FACTS_LOST`` over all the sentences and over the corpus's. Two more, stricter, are chosen
the same way with ``MAX_FACTS_SET_ASIDE``: a sentence between the two pairs is a doubtful one,
which public copy quotes only when it has no clear fact left (decision 0087). Then the model is
fitted on everything; the tuned layers are written in float16 to
``data/content/roles_layers.safetensors`` and the head, thresholds, figures and a few sentences'
probabilities (which the NumPy forward pass of the service must reproduce:
tests/unit/test_content_roles.py) to
``data/content/roles_model.json``.

JAX and Optax are needed only here: ``make train-roles`` builds ``.venv-train`` from
``requirements-train.lock`` and runs this (about 25 minutes on two cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from common.datafiles import DATA, NotBlank, Row, read_jsonl
from common.privacy import classifier
from devtools.train_privacy import Bag, fit, linear_body, probabilities, vocabulary
from functions.content import roles
from functions.content.texts import advice

if TYPE_CHECKING:
    from collections.abc import Callable

CORPUS = DATA / "content" / "roles" / "corpus.jsonl"
# Sentences written about the guides' topics, labelled the same way (``WrittenSentence``): two
# helpers' training sets and the held-apart sets of bench/data measured on once (spent), the
# rows their two labellers agreed on: held_apart is roles_holdout (decision 0080), held_apart2
# roles_holdout3 (0084), held_apart3 and 4 roles_holdout4 and 5, held_apart5 roles_holdout2,
# held_apart6, 7 and 8 roles_holdout6, 7 and 8 (0085, 0086, 0087); written3 and 4 two more
# helpers' training sets, written mostly of caveats and the facts nearest them (0086).
WRITTEN = tuple(
    DATA / "content" / "roles" / name
    for name in (
        "written.jsonl",
        "written2.jsonl",
        "held_apart.jsonl",
        "held_apart2.jsonl",
        "held_apart3.jsonl",
        "held_apart4.jsonl",
        "held_apart5.jsonl",
        "held_apart6.jsonl",
        "held_apart7.jsonl",
        "held_apart8.jsonl",
        "written3.jsonl",
        "written4.jsonl",
    )
)
# Of the facts, cross-validated, advice patterns included: over the corpus's sentences and over
# all of them. The goal is 0.02 on a held-apart set (decision 0084).
MAX_FACTS_LOST = 0.02
# A second pair of thresholds marks the sentences public copy quotes only when it has no clearer
# fact left (decision 0087): of the facts, at most this share is set aside so.
MAX_FACTS_SET_ASIDE = 0.10
FOLDS = 5
L2 = 1e-4  # the linear model's, chosen by cross-validation before (decision 0084)
TUNED_LAYERS = 2
EPOCHS = 4
BATCH = 32
RATE = 1e-4
# The sets' longest sentence, with its heading, has 128 tokens: the service reads up to 256
# (``minilm.MAX_TOKENS``), so a longer sentence of a guide is read further than any was here.
MAX_TOKENS = 128
SEED = 7
# A fine-tuned model is sure of most sentences: the thresholds on P(fact) that matter are small.
FACT_THRESHOLDS = np.unique(np.round(np.geomspace(0.0005, 0.6, 80), 4))
CAVEAT_THRESHOLDS = (1.01, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15)  # 1.01: off
OUT_OF_FOLD = DATA.parent / ".local" / "roles_out_of_fold.npy"
CHECKS = 8  # sentences whose probabilities the model file keeps for the service to reproduce


class CorpusSentence(Row):
    """A row of ``corpus.jsonl``: a sentence of a guide, where it stands, its role and why."""

    id: str
    guide: str
    section: str
    sentence: NotBlank
    role: roles.Role
    why: str


class WrittenSentence(Row):
    """A row of a written set: a sentence written about a topic, and its role."""

    id: str
    topic: str
    sentence: NotBlank
    role: roles.Role


def figures(y: np.ndarray, out: np.ndarray) -> dict[str, float]:
    fact, guidance, caveat = (roles.ROLES.index(r) for r in ("fact", "guidance", "caveat"))
    return {
        "factsLost": round(float(out[y == fact].mean()), 4),
        "guidanceKeptOut": round(float(out[y == guidance].mean()), 4),
        "caveatsKeptOut": round(float(out[y == caveat].mean()), 4),
    }


def choose(
    y: np.ndarray,
    rule_hit: np.ndarray,
    p: np.ndarray,
    corpus: int,
    bound: float = MAX_FACTS_LOST,
    within: tuple[float, float] = (0.0, 1.01),
) -> tuple[tuple[float, float], dict[str, dict[str, float]]]:
    """((fact threshold, caveat threshold), figures over all rows and over the first
    ``corpus``): the most guidance and caveats kept out together, with the facts lost within
    ``bound`` over both, and no laxer than the pair ``within``. A sentence is kept out when the
    patterns match it, its P(fact) is under the first threshold or its P(caveat) reaches the
    second."""
    fact, caveat = roles.ROLES.index("fact"), roles.ROLES.index("caveat")
    best: tuple[tuple[float, float], dict[str, dict[str, float]]] = ((0.0, 1.01), {})
    best_score = -1.0
    for t in (t for t in FACT_THRESHOLDS if t >= within[0]):
        for c in (c for c in CAVEAT_THRESHOLDS if c <= within[1]):
            out = rule_hit | (p[:, fact] < t) | (p[:, caveat] >= c)
            every, own = figures(y, out), figures(y[:corpus], out[:corpus])
            if max(every["factsLost"], own["factsLost"]) > bound:
                continue
            score = every["guidanceKeptOut"] + every["caveatsKeptOut"]
            if score > best_score:
                best_score = score
                best = ((round(float(t), 4), c), {"all": every, "corpus": own})
    return best


class Tuner:
    """MiniLM's forward pass in JAX (as ``common.language.minilm`` computes it in NumPy), the
    layers under the tuned ones run once for every sentence, and the fine-tuning."""

    def __init__(self, texts: list[str | tuple[str, str]]) -> None:
        import jax
        import jax.numpy as jnp
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        from common.language import minilm

        self.jax, self.jnp = jax, jnp
        directory = minilm._model_directory()
        config = json.loads((directory / "config.json").read_text())
        self.heads, self.eps = int(config["num_attention_heads"]), float(config["layer_norm_eps"])
        self.layers = int(config["num_hidden_layers"])
        self.first = self.layers - TUNED_LAYERS
        self.base = {
            k: jnp.asarray(v) for k, v in load_file(directory / "model.safetensors").items()
        }
        self.tuned_names = [
            name
            for name in self.base
            if any(name.startswith(f"encoder.layer.{i}.") for i in range(self.first, self.layers))
        ]
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]", length=MAX_TOKENS)  # noqa: S106
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings])
        types = np.array([e.type_ids for e in encodings])
        self.mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        self.lengths = self.mask.sum(axis=1).astype(int)
        bottom = jax.jit(self._bottom)
        self.hidden = np.concatenate(
            [
                np.asarray(bottom(ids[i : i + 64], types[i : i + 64], self.mask[i : i + 64]))
                for i in range(0, len(ids), 64)
            ]
        )

    def _norm(self, x: Any, prefix: str, w: dict[str, Any]) -> Any:
        mean = x.mean(-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / self.jnp.sqrt(variance + self.eps) * w[prefix + ".weight"] + w[
            prefix + ".bias"
        ]

    @staticmethod
    def _linear(x: Any, prefix: str, w: dict[str, Any]) -> Any:
        return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]

    def _layer(self, x: Any, mask: Any, i: int, w: dict[str, Any]) -> Any:
        jax, jnp = self.jax, self.jnp
        p = f"encoder.layer.{i}."
        batch, tokens, hidden = x.shape
        size = hidden // self.heads

        def split(t: Any) -> Any:
            return t.reshape(batch, tokens, self.heads, size).transpose(0, 2, 1, 3)

        q, k, v = (
            split(self._linear(x, p + f"attention.self.{n}", w)) for n in ("query", "key", "value")
        )
        scores = jnp.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(size)
        scores = scores + ((1.0 - mask) * -1e9)[:, None, None, :]
        attended = jnp.einsum("bhts,bhsd->bthd", jax.nn.softmax(scores, -1), v)
        attended = attended.reshape(batch, tokens, hidden)
        x = self._norm(
            x + self._linear(attended, p + "attention.output.dense", w),
            p + "attention.output.LayerNorm",
            w,
        )
        inner = jax.nn.gelu(self._linear(x, p + "intermediate.dense", w), approximate=False)
        return self._norm(x + self._linear(inner, p + "output.dense", w), p + "output.LayerNorm", w)

    def _bottom(self, ids: Any, types: Any, mask: Any) -> Any:
        w = self.base
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm", w)
        for i in range(self.first):
            x = self._layer(x, mask, i, w)
        return x

    def _forward(self, w: dict[str, Any], x: Any, mask: Any) -> Any:
        jnp = self.jnp
        for i in range(self.first, self.layers):
            x = self._layer(x, mask, i, w)
        pooled = (x * mask[:, :, None]).sum(1) / jnp.maximum(mask.sum(1, keepdims=True), 1e-9)
        pooled = pooled / jnp.maximum(jnp.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)
        return pooled @ w["head.weight"].T + w["head.bias"]

    def _batch(self, rows: np.ndarray) -> tuple[Any, Any]:
        """The rows' hidden states and mask, cut to the batch's longest (a multiple of 16, so
        that few shapes are compiled)."""
        tokens = min(MAX_TOKENS, -(-int(self.lengths[rows].max()) // 16) * 16)
        return self.jnp.asarray(self.hidden[rows, :tokens]), self.jnp.asarray(
            self.mask[rows, :tokens]
        )

    def fit(self, rows: np.ndarray, y: np.ndarray, log: Callable[[str], None]) -> dict[str, Any]:
        import optax

        jax, jnp = self.jax, self.jnp
        rng = np.random.default_rng(SEED)
        w = {name: self.base[name] for name in self.tuned_names}
        w["head.weight"] = jnp.asarray(
            rng.normal(0.0, 0.02, (len(roles.ROLES), 384)), dtype=jnp.float32
        )
        w["head.bias"] = jnp.zeros(len(roles.ROLES), dtype=jnp.float32)
        counts = np.bincount(y[rows], minlength=len(roles.ROLES))
        class_weight = jnp.asarray(
            len(rows) / (len(roles.ROLES) * np.maximum(counts, 1)), dtype=jnp.float32
        )
        steps = EPOCHS * (len(rows) // BATCH)
        optimiser = optax.adamw(
            optax.warmup_cosine_decay_schedule(0.0, RATE, max(steps // 10, 1), steps),
            weight_decay=0.01,
        )
        state = optimiser.init(w)

        def loss(w: dict[str, Any], x: Any, mask: Any, labels: Any) -> Any:
            # The head's logits are scaled: a unit vector's products are small.
            logits = 10.0 * self._forward(w, x, mask)
            lost = -jax.nn.log_softmax(logits)[jnp.arange(labels.shape[0]), labels]
            weights = class_weight[labels]
            return (lost * weights).sum() / weights.sum()

        @jax.jit
        def step(w: dict[str, Any], state: Any, x: Any, mask: Any, labels: Any) -> Any:
            value, gradient = jax.value_and_grad(loss)(w, x, mask, labels)
            updates, state = optimiser.update(gradient, state, w)
            return optax.apply_updates(w, updates), state, value

        for epoch in range(EPOCHS):
            order = rng.permutation(rows)
            total = 0.0
            for start in range(0, len(order) - BATCH + 1, BATCH):
                batch = order[start : start + BATCH]
                x, mask = self._batch(batch)
                w, state, value = step(w, state, x, mask, jnp.asarray(y[batch]))
                total += float(value)
            log(f"  epoch {epoch + 1}/{EPOCHS}: loss {total / max(len(order) // BATCH, 1):.3f}")
        w["head.weight"] = w["head.weight"] * 10.0
        w["head.bias"] = w["head.bias"] * 10.0
        return w

    def probabilities(self, w: dict[str, Any], rows: np.ndarray) -> np.ndarray:
        forward = self.jax.jit(self._forward)
        found = []
        for start in range(0, len(rows), 64):
            x, mask = self._batch(rows[start : start + 64])
            found.append(np.asarray(self.jax.nn.softmax(forward(w, x, mask), -1)))
        return np.concatenate(found) if found else np.zeros((0, len(roles.ROLES)))


class Linear:
    """The linear model: the sentence's embedding beside its words and its section's
    (``roles.features``), a class-weighted softmax regression (the privacy trainer's)."""

    def __init__(self, sentences: list[str], sections: list[str]) -> None:
        self.x = classifier.embed(sentences)
        self.grams = [roles.features(a, b) for a, b in zip(sentences, sections, strict=True)]

    def fit(self, rows: np.ndarray, y: np.ndarray) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
        vocab = vocabulary([self.grams[i] for i in rows])
        w, b = fit(self.x[rows], Bag.of(self.grams, rows, vocab), y[rows], len(roles.ROLES), L2)
        return vocab, w, b

    def probabilities(
        self, fitted: tuple[dict[str, int], np.ndarray, np.ndarray], rows: np.ndarray
    ) -> np.ndarray:
        vocab, w, b = fitted
        return probabilities(self.x[rows], Bag.of(self.grams, rows, vocab), w, b)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:6.0f} s] {message}", flush=True)

    corpus = read_jsonl(CORPUS, CorpusSentence)
    written = [row for path in WRITTEN for row in read_jsonl(path, WrittenSentence)]
    sentences = [r.sentence for r in corpus] + [r.sentence for r in written]
    sections = [r.section for r in corpus] + ["" for _ in written]
    y = np.array([roles.ROLES.index(r.role) for r in (*corpus, *written)])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in (CORPUS, *WRITTEN))).hexdigest()
    linear = Linear(sentences, sections)
    tuner = Tuner([roles.encoded(a, b) for a, b in zip(sentences, sections, strict=True)])
    log(f"{len(sentences)} sentences embedded; the layers under the tuned ones run")
    n = len(corpus)
    rule_hit = np.array([advice().search(s.lower()) is not None for s in sentences])
    folds = np.arange(len(sentences)) % FOLDS
    np.random.default_rng(SEED).shuffle(folds)
    p_linear = np.zeros((len(sentences), len(roles.ROLES)))
    p_tuned = np.zeros((len(sentences), len(roles.ROLES)))
    for fold in range(FOLDS):
        train, held = np.where(folds != fold)[0], np.where(folds == fold)[0]
        log(f"fold {fold + 1}/{FOLDS}")
        p_linear[held] = linear.probabilities(linear.fit(train, y), held)
        p_tuned[held] = tuner.probabilities(tuner.fit(train, y, log), held)
    OUT_OF_FOLD.parent.mkdir(exist_ok=True)
    # For reading the choice again without training (not committed).
    np.save(OUT_OF_FOLD, np.stack([p_linear, p_tuned]))
    p = roles.combined(p_linear, p_tuned)
    (threshold, caveat_threshold), chosen = choose(y, rule_hit, p, n)
    if not chosen:
        raise SystemExit(f"no thresholds keep the facts lost within {MAX_FACTS_LOST}")
    within = (threshold, caveat_threshold)
    (clear, clear_caveat), set_aside = choose(y, rule_hit, p, n, MAX_FACTS_SET_ASIDE, within)
    if not set_aside:
        raise SystemExit(f"no stricter thresholds set aside at most {MAX_FACTS_SET_ASIDE}")
    alone = {
        "linearAlone": choose(y, rule_hit, p_linear, n)[1]["all"],
        "tunedAlone": choose(y, rule_hit, p_tuned, n)[1]["all"],
        "patternsAlone": figures(y, rule_hit),
    }
    for bound in (0.01, 0.02, 0.03):
        log(f"facts lost within {bound:.2f}: {choose(y, rule_hit, p, n, bound)}")
    log(f"each alone, facts lost within {MAX_FACTS_LOST}: {alone}")
    log("fitting on every sentence")
    every = np.arange(len(sentences))
    fitted = linear.fit(every, y)
    w = tuner.fit(every, y, log)
    # Written in float16; the probabilities the file keeps are the stored weights'.
    w = {
        name: tuner.jnp.asarray(np.asarray(value, dtype=np.float16), dtype=tuner.jnp.float32)
        for name, value in w.items()
    }
    checks = np.linspace(0, len(sentences) - 1, CHECKS).astype(int)
    checked = tuner.probabilities(w, checks)
    write(
        fitted,
        w,
        tuner.tuned_names,
        {
            "files": [str(p.relative_to(DATA.parent)) for p in (CORPUS, *WRITTEN)],
            "sha256": digest,
            "sentences": len(sentences),
        },
        {
            "folds": FOLDS,
            "l2": L2,
            **chosen,
            **alone,
            **{f"clear{part.title()}": found for part, found in set_aside.items()},
        },
        (threshold, caveat_threshold, clear, clear_caveat),
        [(sentences[i], sections[i], checked[k]) for k, i in enumerate(checks)],
    )
    log(f"chosen thresholds {threshold} {caveat_threshold}: {chosen}")
    log(f"clear thresholds {clear} {clear_caveat}: {set_aside}")
    return 0


def write(
    fitted: tuple[dict[str, int], np.ndarray, np.ndarray],
    w: dict[str, Any],
    tuned_names: list[str],
    trained_on: dict[str, Any],
    cross_validated: dict[str, Any],
    thresholds: tuple[float, float, float, float],
    checks: list[tuple[str, str, np.ndarray]],
) -> None:
    from safetensors.numpy import save_file

    save_file(
        {name: np.asarray(w[name], dtype=np.float16) for name in tuned_names},
        str(roles.LAYERS_PATH),
    )
    vocab, weights, bias = fitted
    model = {
        "about": "data/content/roles_model.json: written by `make train-roles`",
        "trainedOn": trained_on,
        "crossValidated": cross_validated,
        "labels": list(roles.ROLES),
        "threshold": thresholds[0],
        "caveatThreshold": thresholds[1],
        "clearThreshold": thresholds[2],
        "clearCaveatThreshold": thresholds[3],
        **linear_body(vocab, weights, bias),
        "tuned": {
            "file": roles.LAYERS_PATH.name,
            "sha256": hashlib.sha256(roles.LAYERS_PATH.read_bytes()).hexdigest(),
            "names": sorted(tuned_names),
            "weights": np.round(np.asarray(w["head.weight"], dtype=np.float64), 6).tolist(),
            "bias": np.round(np.asarray(w["head.bias"], dtype=np.float64), 6).tolist(),
            "checks": [
                {
                    "sentence": sentence,
                    "section": section,
                    "probabilities": [round(float(v), 5) for v in found],
                }
                for sentence, section, found in checks
            ],
        },
    }
    roles.MODEL_PATH.write_text(json.dumps(model, indent=None) + "\n", encoding="utf-8")
    written = (path.relative_to(DATA.parent) for path in (roles.MODEL_PATH, roles.LAYERS_PATH))
    print("wrote {} and {}".format(*written))


if __name__ == "__main__":
    sys.exit(main())
