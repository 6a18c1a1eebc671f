"""Default generator and embedding model: explicit setting, environment, and the no-model remedy."""

from __future__ import annotations

import pytest

from giskard_nb import (
    ConfigError,
    EmbeddingModel,
    Generator,
    get_default_embedding_model,
    get_default_generator,
    set_default_embedding_model,
    set_default_generator,
)
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm import OfflineEmbeddingModel


def test_no_model_configured_raises_with_the_remedy():
    with pytest.raises(ConfigError) as info:
        get_default_generator()
    message = str(info.value)
    assert (
        "set_default_generator('openai/gpt-4o-mini')" in message and "GISKARD_NB_MODEL" in message
    )
    assert get_default_generator(required=False) is None


def test_set_by_instance_or_string_and_clear():
    gen = Generator(model="openai/gpt-4o", temperature=0.1)
    set_default_generator(gen)
    assert get_default_generator() is gen
    set_default_generator("anthropic/claude-3-5-haiku-latest")
    assert get_default_generator().model == "anthropic/claude-3-5-haiku-latest"
    set_default_generator(None)
    assert get_default_generator(required=False) is None
    with pytest.raises(GiskardValidationError):
        set_default_generator(42)


def test_environment_variable_is_the_fallback(monkeypatch):
    monkeypatch.setenv("GISKARD_NB_MODEL", "ollama/llama3.1")
    gen = get_default_generator()
    assert gen.model == "ollama/llama3.1"
    assert get_default_generator() is gen  # built once
    set_default_generator("openai/gpt-4o-mini")
    assert get_default_generator().model == "openai/gpt-4o-mini"  # an explicit setting wins


def test_embedding_default_is_offline_then_configurable(monkeypatch):
    assert isinstance(get_default_embedding_model(), OfflineEmbeddingModel)
    set_default_embedding_model("openai/text-embedding-3-small")
    model = get_default_embedding_model()
    assert isinstance(model, EmbeddingModel) and model.model == "openai/text-embedding-3-small"
    set_default_embedding_model("offline")
    assert isinstance(get_default_embedding_model(), OfflineEmbeddingModel)
    set_default_embedding_model(None)
    monkeypatch.setenv("GISKARD_NB_EMBEDDING_MODEL", "ollama/nomic-embed-text")
    assert get_default_embedding_model().model == "ollama/nomic-embed-text"
    with pytest.raises(GiskardValidationError):
        set_default_embedding_model(3.14)
