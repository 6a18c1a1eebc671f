"""Embedding models: ``await model.embed(texts) -> list[list[float]]``.

- ``OfflineEmbeddingModel`` (the default when none is configured): WordLlama 0.4's 256-dimension static
  embeddings, whose weights ship inside the ``wordllama`` wheel. No key, no network (downloads are
  disabled when it loads), ~50 µs per sentence. Good at topical similarity, blind to negation and
  word order: "open on Monday" and "open on Friday" look alike. Use an LLM check for facts.
- ``EmbeddingModel(model="openai/text-embedding-3-small", ...)``: any litellm embedding model, batched,
  with the same retries, rate limits, usage/cost accounting, cache (per text, on by default) and
  record/replay as ``Generator``.

``BaseEmbeddingModel`` is a registered family (kinds ``litellm``, ``offline``, and ``hashing`` for
``giskard_nb.kb.HashingEmbedder``, loaded on first use through ``core.registry.LAZY_KINDS``): a subclass decorated with ``@BaseEmbeddingModel.register("my_kind")``
saves and loads by kind inside the checks that hold it.

Numbers are checked (``check_vectors``): a provider's vectors must be one per text, non-empty lists of
finite numbers of one dimension, or the call raises ``LLMResponseError`` naming the model.
``cosine_similarity`` refuses zero, NaN or infinite vectors and computes huge values without overflow.
"""

from __future__ import annotations

import logging
import math
import threading
from abc import abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer

from giskard_nb.core.registry import Registered
from giskard_nb.core.sync import sync_twin
from giskard_nb.core.usage import Usage
from giskard_nb.errors import ConfigError
from giskard_nb.llm import cache as response_cache
from giskard_nb.llm.errors import LLMReplayMissError, LLMResponseError
from giskard_nb.llm.recording import active_recorder
from giskard_nb.llm.usage import record_usage

__all__ = [
    "BaseEmbeddingModel",
    "EmbeddingModel",
    "Embeddings",
    "OfflineEmbeddingModel",
    "check_vectors",
    "cosine_similarity",
]


class Embeddings(BaseModel):
    """Vectors (one per text, in order) and the usage of the calls that produced them."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    vectors: list[list[float]]
    usage: Usage = Field(default_factory=Usage)
    cached: int = 0


class BaseEmbeddingModel(Registered):
    """Base of embedding models. Subclasses implement ``embed_with_usage`` and register a kind with
    ``@BaseEmbeddingModel.register("my_kind")`` to be saved and loaded by kind."""

    model_config = ConfigDict(defer_build=True, extra="forbid")
    _family: ClassVar[str] = "embedding model"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        return (await self.embed_with_usage(texts)).vectors

    embed_sync = sync_twin(embed)

    @abstractmethod
    async def embed_with_usage(self, texts: list[str]) -> Embeddings:
        """Vectors plus the tokens and cost spent."""

    @property
    def name(self) -> str:
        """The model's name (stored with vectors and shown in results)."""
        return getattr(self, "model", type(self).__name__)


_wordllama: dict[str, Any] = {}
_wordllama_lock = threading.Lock()


@BaseEmbeddingModel.register("offline")
class OfflineEmbeddingModel(BaseEmbeddingModel):
    """WordLlama static embeddings bundled in the ``wordllama`` wheel: offline, instant, free.

    Each text is read from its first ``max_chars`` characters (a mean of word vectors: the rest changes
    little, and WordLlama pads every text of a batch to the longest, so one hostile 1 MB reply took
    6 GB and 11 s)."""

    model: str = "wordllama/l2_supercat-256"
    max_chars: int = 8000

    async def embed_with_usage(self, texts: list[str]) -> Embeddings:
        if not texts:
            return Embeddings(vectors=[])
        clipped = [t[: self.max_chars] for t in texts]
        vectors = _load_wordllama().embed(clipped, return_np=True)
        return Embeddings(vectors=[[float(x) for x in row] for row in vectors])


def _load_wordllama() -> Any:
    """Load the bundled model once, with downloads disabled (its files are inside the package)."""
    model = _wordllama.get("model")
    if model is not None:
        return model
    with _wordllama_lock:
        if "model" not in _wordllama:
            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            try:
                import wordllama
                from wordllama import WordLlama
            except ImportError as exc:  # pragma: no cover - a declared dependency
                raise ConfigError(
                    "the offline embedding model needs the 'wordllama' package: pip install wordllama, "
                    "or configure a litellm model with set_default_embedding_model('openai/text-embedding-3-small')"
                ) from exc
            finally:  # wordllama calls logging.basicConfig(level=INFO) on import: undo it
                for handler in root.handlers[:]:
                    if handler not in handlers:
                        root.removeHandler(handler)
                root.setLevel(level)
            from pathlib import Path

            package_dir = Path(wordllama.__file__).resolve().parent
            _wordllama["model"] = WordLlama.load(cache_dir=package_dir, disable_download=True)
    return _wordllama["model"]


@BaseEmbeddingModel.register("litellm")
class EmbeddingModel(BaseEmbeddingModel):
    """Any litellm embedding model, e.g. ``EmbeddingModel(model="openai/text-embedding-3-small")``."""

    model: str = "openai/text-embedding-3-small"
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    api_base: str | None = None
    dimensions: int | None = Field(default=None, ge=1)
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    retry_base_delay: float = Field(default=1.0, ge=0)
    retry_max_delay: float = Field(default=30.0, ge=0)
    max_concurrency: int = Field(default=16, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    batch_size: int = Field(default=256, ge=1)
    cache: bool = True
    params: dict[str, Any] = Field(default_factory=dict)

    @field_serializer("params")
    def _dump_params(self, value: dict[str, Any]) -> dict[str, Any]:
        from giskard_nb.llm.completion import without_secrets

        return without_secrets(value)

    def _key(self, text: str) -> str:
        payload = {
            "model": self.model,
            "api_base": self.api_base,
            "dimensions": self.dimensions,
            "text": text,
        }
        return response_cache.cache_key("embedding", payload)

    async def embed_with_usage(self, texts: list[str]) -> Embeddings:
        texts = [str(t) for t in texts]
        keys = [self._key(t) for t in texts]
        vectors: list[list[float] | None] = [None] * len(texts)
        recorder = active_recorder()
        use_cache = self.cache and response_cache.cache_enabled()
        for i, key in enumerate(keys):
            stored = recorder.lookup(key) if recorder is not None and recorder.replaying else None
            if stored is None and use_cache:
                stored = response_cache.get(key)
            if stored is not None and isinstance(stored.get("vector"), list):
                vectors[i] = stored["vector"]
        missing = [i for i, v in enumerate(vectors) if v is None]
        if missing and recorder is not None and recorder.mode == "replay":
            raise LLMReplayMissError(
                f"replay: {len(missing)} text(s) were never embedded with {self.model} in "
                f"{recorder.path}; re-record with recording(path, mode='record' or 'auto')",
                model=self.model,
            )
        usage = Usage()
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            got, spent = await self._request([texts[i] for i in batch])
            usage = usage + spent
            for i, vector in zip(batch, got, strict=True):
                vectors[i] = vector
                if use_cache:
                    response_cache.put(
                        keys[i], kind="embedding", model=self.model, value={"vector": vector}
                    )
                if recorder is not None:
                    recorder.record("embedding", keys[i], {"vector": vector})
        cached = len(texts) - len(missing)
        record_usage(usage, cached=cached > 0 and not missing)
        checked = check_vectors(vectors, model=self.model, count=len(texts))  # cached ones too
        return Embeddings(vectors=checked, usage=usage, cached=cached)

    async def _request(self, batch: list[str]) -> tuple[list[list[float]], Usage]:
        from giskard_nb.llm._litellm import connection_kwargs, guarded_call, response_cost
        from giskard_nb.llm.resilience import RetryPolicy, call_with_retries, limiter_for

        conn, secret = connection_kwargs(self.model, self.timeout, self.api_key, self.api_base)
        kwargs: dict[str, Any] = {**self.params, **conn, "input": batch}
        if self.dimensions is not None:
            kwargs["dimensions"] = self.dimensions
        once = guarded_call(
            "aembedding", kwargs, model=self.model, secret=secret, timeout=self.timeout
        )

        response = await call_with_retries(
            once,
            policy=RetryPolicy(self.max_retries, self.retry_base_delay, self.retry_max_delay),
            limiter=limiter_for(
                ("embedding", self.model, self.api_base), self.max_concurrency, self.rpm
            ),
            what=self.model,
        )
        rows = sorted(response.data, key=lambda d: _get(d, "index", 0))
        raw = [_get(d, "embedding", None) for d in rows]
        vectors = check_vectors(raw, model=self.model, count=len(batch))
        u = getattr(response, "usage", None)
        cost = response_cost(response)
        tokens = int(getattr(u, "prompt_tokens", 0) or 0)
        usage = Usage(
            prompt_tokens=tokens,
            total_tokens=int(getattr(u, "total_tokens", 0) or tokens),
            cost_usd=cost or 0.0,
            llm_calls=1,
        )
        return vectors, usage


def _get(obj: Any, name: str, default: Any) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def check_vectors(vectors: Any, *, model: str, count: int | None = None) -> list[list[float]]:
    """``vectors`` as lists of floats, or ``LLMResponseError`` naming ``model``: one vector per text
    (``count``), each a non-empty list of finite real numbers, all of the same dimension. A zero vector is
    allowed here (a text with no word the model knows); ``cosine_similarity`` refuses to compare it."""
    if not isinstance(vectors, list | tuple):
        raise _bad_vectors(model, f"returned {type(vectors).__name__} instead of a list of vectors")
    if count is not None and len(vectors) != count:
        raise _bad_vectors(model, f"returned {len(vectors)} embeddings for {count} texts")
    out = []
    for i, vector in enumerate(vectors):
        if not isinstance(vector, list | tuple) or not vector:
            raise _bad_vectors(model, f"returned an empty or non-list embedding for text {i + 1}")
        if not all(type(x) in (float, int) for x in vector):
            bad = next(x for x in vector if type(x) not in (float, int))
            raise _bad_vectors(
                model, f"returned a non-number ({bad!r}) in the embedding of text {i + 1}"
            )
        row = [float(x) for x in vector]
        if not all(math.isfinite(x) for x in row):
            bad = next(x for x in row if not math.isfinite(x))
            raise _bad_vectors(model, f"returned {bad} in the embedding of text {i + 1}")
        out.append(row)
    sizes = sorted({len(v) for v in out})
    if len(sizes) > 1:
        raise _bad_vectors(
            model, f"returned embeddings of different dimensions ({', '.join(map(str, sizes))})"
        )
    return out


def _bad_vectors(model: str, what: str) -> LLMResponseError:
    return LLMResponseError(
        f"the embedding model {model} {what}: its vectors cannot be compared", raw=None, model=model
    )


def cosine_similarity(a: list[float], b: list[float]) -> float:
    """Cosine of the angle between two vectors, in [-1, 1].

    ValueError for vectors of different sizes, a zero vector, or a NaN or infinite value. Each vector is
    scaled by its largest absolute value first, so huge or tiny (but finite) values neither overflow nor
    underflow: the result is the true cosine, never a NaN clamped to 1.
    """
    if len(a) != len(b):
        raise ValueError(f"vectors of different sizes ({len(a)} and {len(b)})")
    if not a:
        raise ValueError("empty vectors")
    values = [*a, *b]
    if not all(math.isfinite(x) for x in values):
        raise ValueError("a vector holds a NaN or infinite value")
    scale_a, scale_b = max(abs(x) for x in a), max(abs(y) for y in b)
    if scale_a == 0 or scale_b == 0:
        raise ValueError("a text has an all-zero embedding (no word the model knows)")
    a = [x / scale_a for x in a]
    b = [y / scale_b for y in b]
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    value = math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm
    if not -1.0 - 1e-9 <= value <= 1.0 + 1e-9:  # only rounding may leave the range
        raise ValueError(f"the cosine similarity came out as {value}, outside [-1, 1]")
    return max(-1.0, min(1.0, value))
