"""Embedding documents and queries: the default model and a deterministic embedder.

The knowledge base embeds with a ``giskard_nb.llm`` embedding model (``BaseEmbeddingModel``: the offline
one, ``EmbeddingModel`` for litellm models, ``HashingEmbedder`` here, or your own subclass); any other
object with ``async embed(texts) -> list[list[float]]`` works too (``SupportsEmbed``, the duck-typed
protocol). ``EmbeddingModel`` is re-exported here under its old import path: it is the litellm model
class of ``giskard_nb.llm``, the same everywhere. ``default_embedding_model()`` is the configured one
(``giskard_nb.llm.get_default_embedding_model()``, offline by default). ``HashingEmbedder`` (kind
``hashing``) is a deterministic, dependency-free embedder (signed feature hashing of stemmed words, word
pairs and character trigrams): exact and reproducible, useful for tests and as a lexical-semantic
fallback. ``embed_matrix`` embeds in batches and returns unit-length rows, so a dot product is a cosine.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
from pydantic import Field

from giskard_nb.errors import GiskardValidationError, LLMError
from giskard_nb.kb.text import terms, words
from giskard_nb.llm.embeddings import BaseEmbeddingModel, EmbeddingModel, Embeddings

__all__ = [
    "EmbeddingModel",
    "HashingEmbedder",
    "SupportsEmbed",
    "default_embedding_model",
    "embed_matrix",
    "model_name",
]


@runtime_checkable
class SupportsEmbed(Protocol):
    """Any object the knowledge base can embed with: ``async embed(texts) -> list[list[float]]``."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@BaseEmbeddingModel.register("hashing")
class HashingEmbedder(BaseEmbeddingModel):
    """Deterministic embeddings by signed feature hashing (no model, no network, same output everywhere).

    Features: stemmed words (weight 1), consecutive word pairs (0.5) and character trigrams of each word
    (0.5 shared per word), with sub-linear counts. Texts that share words or word pieces are close.
    """

    dimensions: int = Field(default=1024, ge=16)

    def __init__(self, dimensions: int | None = None, /, **data: Any):
        if dimensions is not None:
            data["dimensions"] = dimensions
        value = data.get("dimensions", 1024)
        if isinstance(value, int) and value < 16:
            raise GiskardValidationError(f"dimensions must be at least 16, got {value}")
        super().__init__(**data)

    @property
    def name(self) -> str:
        """``hashing-<dimensions>``: stored with the vectors, to notice a change of model."""
        return f"hashing-{self.dimensions}"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text (computed here, no call)."""
        return [self.vector(text).tolist() for text in texts]

    async def embed_with_usage(self, texts: list[str]) -> Embeddings:
        """The vectors of ``embed`` (nothing is spent: usage is zero)."""
        return Embeddings.model_construct(vectors=await self.embed(texts))

    def vector(self, text: str) -> np.ndarray:
        """The unit-length embedding of one text, as a numpy array."""
        features: Counter[str] = Counter()
        stems = terms(text)
        for term in stems:
            features["w:" + term] += 1.0
        for left, right in itertools.pairwise(stems):
            features[f"b:{left} {right}"] += 0.5
        for word in words(text):
            padded = f"<{word}>"
            grams = [padded[i : i + 3] for i in range(len(padded) - 2)]
            for gram in grams:
                features["c:" + gram] += 0.5 / len(grams)
        vector = np.zeros(self.dimensions, dtype=np.float64)
        for feature, count in features.items():
            index, sign = _bucket(feature, self.dimensions)
            vector[index] += sign * (1.0 + math.log(count)) if count >= 1 else sign * count
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimensions={self.dimensions})"


@lru_cache(maxsize=262144)
def _bucket(feature: str, dimensions: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dimensions, (1.0 if value >> 63 else -1.0)


def default_embedding_model() -> Any:
    """The configured embedding model (``giskard_nb.llm.get_default_embedding_model()``); a configured
    model that fails to load raises its own error."""
    from giskard_nb.llm import get_default_embedding_model

    return get_default_embedding_model()


def model_name(model: Any) -> str:
    """A stable name for an embedding model (stored with the vectors, to notice a change of model)."""
    for attribute in ("name", "model", "model_name"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__qualname__


async def embed_matrix(model: Any, texts: Sequence[str], *, batch_size: int = 256) -> np.ndarray:
    """The unit-length embeddings of ``texts`` as a ``(len(texts), dim)`` float32 array."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        try:
            vectors = await model.embed(batch)
        except LLMError:
            raise
        except Exception as exc:
            raise LLMError(
                f"the embedding model {model_name(model)!r} failed: {type(exc).__name__}: {exc}"
            ) from exc
        if len(vectors) != len(batch):
            raise LLMError(
                f"the embedding model {model_name(model)!r} returned {len(vectors)} vectors for "
                f"{len(batch)} texts"
            )
        rows.extend(vectors)
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except ValueError:
        raise LLMError(
            f"the embedding model {model_name(model)!r} returned vectors of different sizes"
        ) from None
    if matrix.ndim != 2 or not np.isfinite(matrix).all():
        raise LLMError(f"the embedding model {model_name(model)!r} returned invalid vectors")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
