"""``WithGeneratorMixin`` and ``WithEmbeddingMixin``: a model field plus "else the default" at use time.

::

    @Check.register("polite")
    class Polite(WithGeneratorMixin, Check):
        async def run(self, trace):
            generator = self.get_generator()     # its own, else set_default_generator / GISKARD_NB_MODEL
            ...

``generator`` accepts a ``Generator`` (any registered subclass, such as an in-process model overriding
``_call_model``), a model string (``"openai/gpt-4o-mini"``) or None; ``embedding_model`` accepts an
embedding model, a litellm model string, ``"offline"`` or None. None is resolved when the object is used,
not when it is built, so ``set_default_generator`` called later still applies. Both fields save with the
model's ``kind`` and load back to the same class; a saved model without a ``kind`` (written before kinds
existed) loads as the built-in class it describes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializeAsAny, field_validator

from giskard_nb.llm.embeddings import BaseEmbeddingModel, EmbeddingModel, OfflineEmbeddingModel
from giskard_nb.llm.generator import Generator
from giskard_nb.llm.settings import resolve_embedding_model, resolve_generator

__all__ = ["WithEmbeddingMixin", "WithGeneratorMixin"]


class WithGeneratorMixin(BaseModel):
    """Adds ``generator`` (None = the default generator, looked up by ``get_generator()`` at use time)."""

    model_config = ConfigDict(defer_build=True)
    generator: SerializeAsAny[Generator] | None = None

    @field_validator("generator", mode="before")
    @classmethod
    def _model_string(cls, value: Any) -> Any:
        return Generator(model=value) if isinstance(value, str) else value

    def get_generator(self) -> Generator:
        """This object's generator, else the configured default (``ConfigError`` saying how to set one)."""
        return resolve_generator(self.generator)


class WithEmbeddingMixin(BaseModel):
    """Adds ``embedding_model`` (None = the default model, looked up by ``get_embedding_model()``)."""

    model_config = ConfigDict(defer_build=True)
    embedding_model: SerializeAsAny[BaseEmbeddingModel] | None = None

    @field_validator("embedding_model", mode="before")
    @classmethod
    def _as_model(cls, value: Any) -> Any:
        return _embedding_model(value)

    def get_embedding_model(self) -> BaseEmbeddingModel:
        """This object's embedding model, else the configured default (offline when none is set)."""
        return resolve_embedding_model(self.embedding_model)


def _embedding_model(value: Any) -> Any:
    """A model string or a saved model (with or without ``kind``) as an embedding model; other values
    are left for validation to accept or reject."""
    if isinstance(value, str):
        return resolve_embedding_model(value)
    if isinstance(value, dict) and "kind" not in value:  # saved before embedding models had kinds
        if str(value.get("model", "")).startswith("wordllama/"):
            return OfflineEmbeddingModel.model_validate(value)
        return EmbeddingModel.model_validate(value)
    if isinstance(value, dict):
        return BaseEmbeddingModel.model_validate(value)
    return value
