"""Generators and embedding models save and load by registered kind, inside the checks and scenarios
holding them; old dumps without a kind still load; unknown kinds are clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import ValidationError

from giskard_nb import (
    BaseEmbeddingModel,
    Check,
    EmbeddingModel,
    Generator,
    Interaction,
    LLMGenerator,
    LLMJudge,
    Scenario,
    SemanticSimilarity,
    Trace,
    UnknownKindError,
    UserSimulator,
)
from giskard_nb.kb import HashingEmbedder
from giskard_nb.llm import OfflineEmbeddingModel
from giskard_nb.llm.embeddings import Embeddings
from giskard_nb.testing import FakeModel


@Generator.register("test_kinds_always_yes")
class AlwaysYes(Generator):
    """An in-process judge: every verdict passes, with its own reason."""

    model: str = "inproc/always-yes"
    cache: bool | None = False
    reason: str = "looks fine"

    async def _call_model(self, messages, params):
        return json.dumps({"reason": self.reason, "passed": True})


@BaseEmbeddingModel.register("test_kinds_constant")
class Constant(BaseEmbeddingModel):
    """Every text embeds to the same vector."""

    model: str = "inproc/constant"
    vector: list[float] = [1.0, 0.0]

    async def embed_with_usage(self, texts):
        return Embeddings(vectors=[list(self.vector) for _ in texts])


def _trace() -> Trace:
    return Trace(interactions=[Interaction(inputs="hi", outputs="Hello!")])


def test_built_in_classes_have_kinds():
    assert Generator().kind == "litellm"
    assert FakeModel(replies=["x"]).kind == "fake_model"
    assert EmbeddingModel().kind == "litellm" and OfflineEmbeddingModel().kind == "offline"
    assert HashingEmbedder().kind == "hashing"
    assert {"litellm", "fake_model", "test_kinds_always_yes"} <= Generator.kinds()
    assert {"litellm", "offline", "hashing", "test_kinds_constant"} <= BaseEmbeddingModel.kinds()


async def test_a_check_holding_a_custom_generator_round_trips_and_runs():
    check = LLMJudge(prompt="Is it polite?", generator=AlwaysYes(reason="polite enough"))
    text = check.model_dump_json()
    saved = json.loads(text)["generator"]
    assert saved["kind"] == "test_kinds_always_yes" and saved["reason"] == "polite enough"
    restored = Check.model_validate_json(text)
    assert type(restored) is LLMJudge and type(restored.generator) is AlwaysYes
    assert restored.generator.reason == "polite enough" and restored == check
    result = await restored.run(_trace())
    assert result.passed and result.message == "polite enough"


def test_a_scenario_holding_custom_generators_round_trips():
    scenario = (
        Scenario("custom")
        .interact(UserSimulator(persona="helpful_user", generator=AlwaysYes()), "ok")
        .interact(LLMGenerator(prompt="Say hi.", generator=FakeModel(replies=["a", "b"])), "ok")
        .check(LLMJudge(prompt="Polite?", generator=AlwaysYes(reason="r")))
    )
    restored = Scenario.model_validate_json(scenario.model_dump_json())
    first, second = (spec.inputs for spec in restored.steps[0].interacts)
    assert type(first.generator) is AlwaysYes
    assert type(second.generator) is FakeModel and second.generator.replies == ["a", "b"]
    assert type(restored.steps[0].checks[0].generator) is AlwaysYes
    assert restored.model_dump() == scenario.model_dump()


async def test_a_check_holding_a_custom_embedding_model_round_trips():
    check = SemanticSimilarity(reference_text="anything", embedding_model=Constant(vector=[0, 2]))
    restored = Check.model_validate_json(check.model_dump_json())
    assert type(restored.embedding_model) is Constant and restored.embedding_model.vector == [0, 2]
    assert (await restored.run(_trace())).passed
    hashing = SemanticSimilarity(reference_text="x", embedding_model=HashingEmbedder(64))
    again = Check.model_validate(hashing.model_dump())
    assert type(again.embedding_model) is HashingEmbedder and again.embedding_model.dimensions == 64


def test_with_params_keeps_the_subclass():
    copy = AlwaysYes(reason="kept").with_params(temperature=0.3, top_p=0.5)
    assert type(copy) is AlwaysYes and copy.reason == "kept"
    assert copy.temperature == 0.3 and copy.params == {"top_p": 0.5}


def test_old_dumps_without_a_kind_still_load():
    judge = Check.model_validate(
        {"kind": "llm_judge", "prompt": "p", "generator": {"model": "openai/gpt-4o", "timeout": 9}}
    )
    assert type(judge.generator) is Generator and judge.generator.timeout == 9
    assert type(Generator.model_validate({"model": "ollama/llama3"})) is Generator
    offline = Check.model_validate(
        {
            "kind": "semantic_similarity",
            "reference_text": "r",
            "embedding_model": {"model": "wordllama/l2_supercat-256"},
        }
    )
    assert type(offline.embedding_model) is OfflineEmbeddingModel
    litellm = SemanticSimilarity.model_validate(
        {"reference_text": "r", "embedding_model": {"model": "openai/text-embedding-3-small"}}
    )
    assert type(litellm.embedding_model) is EmbeddingModel


def test_an_unknown_kind_names_it_and_the_registered_kinds():
    with pytest.raises((UnknownKindError, ValidationError)) as info:
        LLMJudge(prompt="p", generator={"kind": "no_such_generator", "model": "x/y"})
    text = str(info.value)
    assert "no_such_generator" in text and "litellm" in text and "fake_model" in text
    assert "@Generator.register('no_such_generator')" in text
    with pytest.raises((UnknownKindError, ValidationError)) as info:
        BaseEmbeddingModel.model_validate({"kind": "no_such_embedder"})
    text = str(info.value)
    assert "no_such_embedder" in text and "hashing" in text and "offline" in text
    assert "@BaseEmbeddingModel.register" in text


def test_an_unregistered_subclass_is_saved_without_a_kind_and_says_how_to_fix_it():
    class Unnamed(Generator):
        async def _call_model(self, messages, params):
            return "{}"

    dumped = LLMJudge(prompt="p", generator=Unnamed()).model_dump()
    assert dumped["generator"]["kind"] is None
    with pytest.raises((UnknownKindError, ValidationError), match="register\\('my_kind'\\)"):
        Check.model_validate(dumped)


def test_a_lazily_imported_built_in_kind_loads_in_a_fresh_process():
    code = (
        "import sys, giskard_nb\n"
        "assert 'giskard_nb.kb.embedding' not in sys.modules\n"
        "check = giskard_nb.Check.model_validate({'kind': 'semantic_similarity', "
        "'reference_text': 'r', 'embedding_model': {'kind': 'hashing', 'dimensions': 32}})\n"
        "print(type(check.embedding_model).__name__, check.embedding_model.dimensions)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["HashingEmbedder", "32"]


def test_embedding_model_means_one_thing_everywhere():
    from giskard_nb import kb, llm
    from giskard_nb.kb import embedding

    assert kb.EmbeddingModel is llm.EmbeddingModel is embedding.EmbeddingModel is EmbeddingModel
    assert isinstance(HashingEmbedder(), BaseEmbeddingModel)

    class Duck:
        async def embed(self, texts):
            return [[1.0] for _ in texts]

    assert isinstance(Duck(), kb.SupportsEmbed) and isinstance(HashingEmbedder(), kb.SupportsEmbed)
    assert repr(HashingEmbedder(64)) == "HashingEmbedder(dimensions=64)"
