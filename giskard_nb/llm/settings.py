"""The default judge model and embedding model used when a check does not name its own.

Judge/generator: ``set_default_generator(Generator(...) | "provider/model" | None)``; otherwise the
``GISKARD_NB_MODEL`` environment variable (a model string), then giskard-checks'
``GISKARD_CHECKS_DEFAULT_MODEL`` (a fallback for ported setups); otherwise nothing: giskard-nb never picks a paid
provider on its own, and ``get_default_generator()`` raises a ``ConfigError`` that says how to configure one.

Embeddings: ``set_default_embedding_model(model | "provider/model" | "offline" | None)``; otherwise
``GISKARD_NB_EMBEDDING_MODEL``, then ``GISKARD_CHECKS_DEFAULT_EMBEDDING_MODEL``; otherwise the offline embedded model (``OfflineEmbeddingModel``, no key, no
network).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.llm.embeddings import BaseEmbeddingModel, EmbeddingModel, OfflineEmbeddingModel
from giskard_nb.llm.generator import Generator

__all__ = [
    "NO_MODEL_MESSAGE",
    "get_default_embedding_model",
    "get_default_generator",
    "resolve_embedding_model",
    "resolve_generator",
    "set_default_embedding_model",
    "set_default_generator",
]

NO_MODEL_MESSAGE = (
    "no judge model is configured: call set_default_generator('openai/gpt-4o-mini') (or pass "
    "generator=Generator(model=...) to the check), or set the GISKARD_NB_MODEL environment variable "
    "(e.g. GISKARD_NB_MODEL=openai/gpt-4o-mini, or ollama/llama3.1 for a local model)"
)
_OFFLINE_NAMES = ("offline", "default", "wordllama")

_lock = threading.Lock()
_state: dict[str, Any] = {"generator": None, "embedding": None}
_from_env: dict[tuple[str, str], Any] = {}


def set_default_generator(generator: Generator | str | None) -> None:
    """Set (or with None, clear) the model LLM checks and simulators use by default."""
    _state["generator"] = _as_generator(generator) if generator is not None else None


def get_default_generator(required: bool = True) -> Generator | None:
    """The configured default generator; ``ConfigError`` (or None if not ``required``) when there is none."""
    generator = _state["generator"]
    if generator is not None:
        return generator
    model = _env("GISKARD_NB_MODEL", "GISKARD_CHECKS_DEFAULT_MODEL")
    if model:
        return _cached_from_env("generator", model, lambda: Generator(model=model))
    if required:
        raise ConfigError(NO_MODEL_MESSAGE)
    return None


def resolve_generator(value: Generator | str | None) -> Generator:
    """A check's own generator when it has one, else the default (``ConfigError`` if none)."""
    if value is not None:
        return _as_generator(value)
    generator = get_default_generator(required=True)
    assert generator is not None
    return generator


def set_default_embedding_model(model: BaseEmbeddingModel | str | None) -> None:
    """Set (or with None, reset to the offline default) the embedding model checks use by default."""
    _state["embedding"] = _as_embedding_model(model) if model is not None else None


def get_default_embedding_model() -> BaseEmbeddingModel:
    """The configured embedding model, ``GISKARD_NB_EMBEDDING_MODEL``, else the offline embedded one."""
    model = _state["embedding"]
    if model is not None:
        return model
    name = _env("GISKARD_NB_EMBEDDING_MODEL", "GISKARD_CHECKS_DEFAULT_EMBEDDING_MODEL")
    if name:
        return _cached_from_env("embedding", name, lambda: _as_embedding_model(name))
    return _cached_from_env("embedding", "offline", OfflineEmbeddingModel)


def _env(*names: str) -> str:
    """The first non-empty of these environment variables (giskard-nb's own first), else ``""``."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return ""


def resolve_embedding_model(value: BaseEmbeddingModel | str | None) -> BaseEmbeddingModel:
    return _as_embedding_model(value) if value is not None else get_default_embedding_model()


def _as_generator(value: Any) -> Generator:
    if isinstance(value, Generator):
        return value
    if isinstance(value, str):
        return Generator(model=value)
    raise GiskardValidationError(
        f"expected a Generator or a model string such as 'openai/gpt-4o-mini', got {type(value).__name__}"
    )


def _as_embedding_model(value: Any) -> BaseEmbeddingModel:
    if isinstance(value, BaseEmbeddingModel):
        return value
    if isinstance(value, str):
        if value.strip().lower() in _OFFLINE_NAMES or value.startswith("wordllama/"):
            return OfflineEmbeddingModel()
        return EmbeddingModel(model=value)
    raise GiskardValidationError(
        "expected an embedding model, 'offline', or a litellm model string such as "
        f"'openai/text-embedding-3-small', got {type(value).__name__}"
    )


def _cached_from_env(kind: str, name: str, build: Any) -> Any:
    key = (kind, name)
    with _lock:
        if key not in _from_env:
            _from_env[key] = build()
        return _from_env[key]
