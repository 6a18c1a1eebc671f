"""WithGeneratorMixin / WithEmbeddingMixin: a field whose None means the default, looked up at use time."""

from __future__ import annotations

import json

import pytest

from giskard_nb import (
    BaseLLMCheck,
    Check,
    CheckResult,
    ConfigError,
    Generator,
    Interaction,
    LLMGenerator,
    SemanticSimilarity,
    Trace,
    UserSimulator,
    WithEmbeddingMixin,
    WithGeneratorMixin,
    set_default_embedding_model,
    set_default_generator,
)
from giskard_nb.kb import HashingEmbedder
from giskard_nb.llm import OfflineEmbeddingModel
from giskard_nb.testing import FakeModel


@pytest.fixture(autouse=True)
def _clean_defaults(monkeypatch):
    for name in ("GISKARD_NB_MODEL", "GISKARD_CHECKS_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    set_default_generator(None)
    set_default_embedding_model(None)
    yield
    set_default_generator(None)
    set_default_embedding_model(None)


@Check.register("test_mixins_shouting")
class Shouting(WithGeneratorMixin, WithEmbeddingMixin, Check):
    """A user check asking its model whether the answer shouts, and embedding it."""

    async def run(self, trace: Trace) -> CheckResult:
        done = await self.get_generator().complete(f"Shouting? {trace.last.outputs}")
        vectors = await self.get_embedding_model().embed([str(trace.last.outputs)])
        details = {"model": self.get_generator().model, "dims": len(vectors[0])}
        if done.text == "yes":
            return CheckResult.failure("it shouts", details=details)
        return CheckResult.success("calm", details=details)


def _trace() -> Trace:
    return Trace(interactions=[Interaction(inputs="hi", outputs="HELLO!!!")])


def test_the_built_ins_use_the_mixins():
    assert issubclass(BaseLLMCheck, WithGeneratorMixin)
    assert issubclass(UserSimulator, WithGeneratorMixin)
    assert issubclass(LLMGenerator, WithGeneratorMixin)
    assert issubclass(SemanticSimilarity, WithEmbeddingMixin)


async def test_none_means_the_default_at_use_time():
    check = Shouting()  # built before any default exists
    with pytest.raises(ConfigError, match="set_default_generator"):
        check.get_generator()
    set_default_generator(FakeModel(replies=["yes"], repeat_last=True))
    set_default_embedding_model(HashingEmbedder(32))
    result = await check.run(_trace())
    assert result.failed and result.details == {"model": "fake/in-process", "dims": 32}
    set_default_embedding_model(None)
    assert isinstance(check.get_embedding_model(), OfflineEmbeddingModel)


def test_the_environment_fallbacks_apply(monkeypatch):
    monkeypatch.setenv("GISKARD_CHECKS_DEFAULT_MODEL", "openai/gpt-4o-mini")
    assert Shouting().get_generator().model == "openai/gpt-4o-mini"
    monkeypatch.setenv("GISKARD_NB_MODEL", "ollama/llama3.1")
    assert Shouting().get_generator().model == "ollama/llama3.1"  # giskard-nb's own variable wins


async def test_own_models_strings_and_round_trip():
    check = Shouting(generator="openai/gpt-4o", embedding_model="offline")
    assert type(check.generator) is Generator and check.generator.model == "openai/gpt-4o"
    assert isinstance(check.embedding_model, OfflineEmbeddingModel)
    own = Shouting(
        generator=FakeModel(replies=["no"], repeat_last=True),
        embedding_model=HashingEmbedder(16),
    )
    restored = Check.model_validate_json(own.model_dump_json())
    assert restored == own
    saved = json.loads(own.model_dump_json())
    assert (
        saved["generator"]["kind"] == "fake_model" and saved["embedding_model"]["kind"] == "hashing"
    )
    result = await restored.run(_trace())
    assert result.passed and result.details["dims"] == 16
    with pytest.raises(ValueError):
        Shouting(generator=42)
