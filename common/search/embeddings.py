"""Text embeddings: the port the search and knowledge groups embed with, and its two adapters.

``EMBEDDINGS_BACKEND=offline`` (local runs and tests) runs all-MiniLM-L6-v2 in process with
NumPy (``common.language.minilm``): no network, no download. ``vertex`` calls Vertex AI's text
embedding models (e.g. ``text-embedding-005``) over REST with the retrieval task types
(``RETRIEVAL_DOCUMENT`` for what is stored, ``RETRIEVAL_QUERY`` for questions), authenticated
with the runtime's Application Default Credentials; tests run it against a loopback fake.

Every vector is stored with its embedder's ``model_id`` (model and dimension): Firestore's vector
search silently returns nothing for a query vector of another dimension, and vectors of two
models are not comparable, so searches and imports refuse to mix them (see functions.search).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Literal, Protocol

from common import container
from common.config import get_settings
from common.errors import EmbeddingsUnavailable

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger("ars.embeddings")

Purpose = Literal["document", "query"]
VERTEX_BATCH = 32  # instances per request (Vertex allows 250 texts and 20,000 tokens)
_RETRYABLE = {429, 500, 502, 503, 504}


class Embedder(Protocol):
    model_id: str  # "<backend>:<model>@<dimension>": stored with every vector
    dimension: int

    def embed(self, texts: list[str], purpose: Purpose) -> list[list[float]]: ...


class OfflineEmbedder:
    """all-MiniLM-L6-v2 in process. The model is symmetric: ``purpose`` makes no difference."""

    dimension = 384
    model_id = f"offline:all-MiniLM-L6-v2@{dimension}"

    def embed(self, texts: list[str], purpose: Purpose) -> list[list[float]]:
        from common.language.minilm import get_model

        return get_model().embed(texts) if texts else []


class VertexEmbedder:
    """Vertex AI text embeddings (``:predict`` of a publisher model), with retries on 429/5xx
    and timeouts, within one deadline per call."""

    def __init__(
        self,
        base_url: str,
        project: str,
        location: str,
        model: str,
        dimension: int,
        *,
        auth: str,
        timeout_s: float,
        deadline_s: float,
    ) -> None:
        import httpx

        self.dimension = dimension
        self.model_id = f"vertex:{model}@{dimension}"
        self._url = (
            f"{base_url.rstrip('/')}/v1/projects/{project}/locations/{location}"
            f"/publishers/google/models/{model}:predict"
        )
        self._token = _google_token_source() if auth == "google" else None
        self._timeout_s = timeout_s
        self._deadline_s = deadline_s
        self._client: httpx.Client = httpx.Client(timeout=timeout_s)

    def embed(self, texts: list[str], purpose: Purpose) -> list[list[float]]:
        task = "RETRIEVAL_DOCUMENT" if purpose == "document" else "RETRIEVAL_QUERY"
        vectors: list[list[float]] = []
        for start in range(0, len(texts), VERTEX_BATCH):
            batch = texts[start : start + VERTEX_BATCH]
            body = {
                "instances": [{"content": text, "task_type": task} for text in batch],
                "parameters": {"outputDimensionality": self.dimension, "autoTruncate": True},
            }
            vectors += self._vectors(self._post(body), len(batch))
        return vectors

    def _post(self, body: dict[str, Any]) -> Any:
        import httpx

        deadline = time.monotonic() + self._deadline_s
        attempt = 0
        while True:
            attempt += 1
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EmbeddingsUnavailable("The embedding provider did not answer in time.")
            try:
                response = self._client.post(
                    self._url,
                    json=body,
                    headers=self._headers(),
                    timeout=min(self._timeout_s, remaining),
                )
            except httpx.TimeoutException:
                failure = "timeout"
            except httpx.TransportError:
                failure = "unreachable"
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError:
                        raise EmbeddingsUnavailable(
                            "The embedding provider answered nonsense."
                        ) from None
                if response.status_code not in _RETRYABLE:
                    logger.warning("embeddings refused", extra={"status": response.status_code})
                    raise EmbeddingsUnavailable(
                        f"The embedding provider refused the request (HTTP {response.status_code})."
                    )
                failure = f"HTTP {response.status_code}"
            wait = min(0.5 * 2 ** (attempt - 1), 4.0)
            if attempt >= 4 or time.monotonic() + wait >= deadline:
                logger.warning("embeddings failed", extra={"error": failure, "attempts": attempt})
                raise EmbeddingsUnavailable(f"The embedding provider failed ({failure}).")
            time.sleep(wait)

    def _headers(self) -> dict[str, str]:
        if self._token is None:
            return {}
        try:
            token = self._token()
        except Exception as exc:  # credential libraries raise many types
            logger.warning(
                "embeddings credentials unavailable", extra={"error": type(exc).__name__}
            )
            token = None
        if not token:
            raise EmbeddingsUnavailable("The embedding provider's credentials failed.")
        return {"Authorization": f"Bearer {token}"}

    def _vectors(self, answer: Any, expected: int) -> list[list[float]]:
        try:
            vectors = [p["embeddings"]["values"] for p in answer["predictions"]]
        except (KeyError, TypeError):
            raise EmbeddingsUnavailable("The embedding provider answered nonsense.") from None
        if len(vectors) != expected or any(
            not isinstance(v, list)
            or len(v) != self.dimension
            or not all(isinstance(x, int | float) for x in v)
            for v in vectors
        ):
            raise EmbeddingsUnavailable(
                f"The embedding provider did not return {expected} vectors of "
                f"{self.dimension} numbers."
            )
        return [[float(x) for x in v] for v in vectors]


def _google_token_source() -> Any:
    from common.adapters.llm import google_token_source

    return google_token_source()


def get_embedder() -> Embedder:
    """The process's embedder (EMBEDDINGS_BACKEND), built on first use;
    ``container.reset(EMBEDDER)`` forgets it (tests change the settings)."""
    return _embedder.get()


EMBEDDER = "search.embedder"
_embedder: container.Entry[Embedder] = container.register(EMBEDDER, lambda: _build())


def _build() -> Embedder:
    settings = get_settings()
    if settings.embeddings_backend == "offline":
        return OfflineEmbedder()
    base = settings.embeddings_base_url or (
        f"https://{settings.embeddings_location}-aiplatform.googleapis.com"
    )
    return VertexEmbedder(
        base,
        settings.google_cloud_project,
        settings.embeddings_location,
        settings.embeddings_model,
        settings.embeddings_dimension,
        auth=settings.embeddings_auth,
        timeout_s=settings.embeddings_timeout_s,
        deadline_s=settings.embeddings_deadline_s,
    )
