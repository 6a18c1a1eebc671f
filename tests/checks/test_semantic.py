"""SemanticSimilarity with the offline default and with a litellm embedding model."""

from __future__ import annotations

import pytest

from giskard_nb import (
    Interaction,
    Scenario,
    SemanticSimilarity,
    Trace,
    set_default_embedding_model,
)
from giskard_nb.core.testcase import run_check
from giskard_nb.llm import EmbeddingModel, OfflineEmbeddingModel
from giskard_nb.testing import FakeLLMServer


@pytest.fixture(autouse=True)
def _clean_default():
    set_default_embedding_model(None)
    yield
    set_default_embedding_model(None)


def trace(outputs, **metadata):
    return Trace(interactions=[Interaction(inputs="q", outputs=outputs, metadata=metadata)])


async def test_offline_default_passes_paraphrases_and_fails_unrelated_text():
    check = SemanticSimilarity(reference_text="Paris is the capital of France.")
    close = await run_check(check, trace("The capital of France is Paris."))
    assert close.passed
    assert close.details["similarity"] >= 0.8 and close.details["threshold"] == 0.8
    assert close.metric("semantic_similarity") == close.details["similarity"]
    assert close.details["embedding_model"].startswith("wordllama/")
    assert close.metric("llm_calls") == 0 and close.metric("cost_usd") == 0
    far = await run_check(check, trace("I enjoy hiking with my dog on weekends."))
    assert far.failed and far.details["similarity"] < 0.5
    assert "< threshold" in far.message


async def test_reference_from_metadata_key_and_answer_key_alias():
    check = SemanticSimilarity(answer_key="trace.last.outputs.text", threshold=0.5)
    result = await run_check(
        check,
        trace(
            {"text": "Refunds within 30 days."}, reference_text="Refunds are possible for 30 days."
        ),
    )
    assert result.passed


@pytest.mark.parametrize(
    ("outputs", "metadata", "reference", "fragment"),
    [
        ("x", {}, None, "reference text"),
        ("x", {"reference_text": ""}, None, "reference text"),
        (None, {}, "ref", "(the answer)"),
        (["a", "b"], {}, "ref", "single text"),
        ("x", {}, {"k": 1}, "single text"),
    ],
)
async def test_missing_or_wrong_values_are_errors(outputs, metadata, reference, fragment):
    kwargs = {"reference_text": reference} if reference is not None else {}
    result = await run_check(SemanticSimilarity(**kwargs), trace(outputs, **metadata))
    assert result.errored and fragment in result.message
    assert result.metric("llm_calls") == 0


async def test_an_all_zero_embedding_is_an_error_not_a_crash():
    with FakeLLMServer(embed=lambda text: [0.0] * 8) as server:
        check = SemanticSimilarity(reference_text="a", embedding_model=server.embedding_model())
        result = await run_check(check, trace("b"))
    assert result.errored and "cannot compare" in result.message
    assert result.metric("llm_calls") == 1


async def test_litellm_embedding_model_reports_usage():
    with FakeLLMServer() as server:
        check = SemanticSimilarity(
            reference_text="alpha beta gamma",
            embedding_model=server.embedding_model(),
            threshold=0.9,
        )
        same = await run_check(check, trace("alpha beta gamma"))
        assert same.passed and same.details["similarity"] == pytest.approx(1.0)
        assert same.metric("llm_calls") == 1 and same.metric("prompt_tokens") > 0
        assert server.embedding_requests[0].inputs == ["alpha beta gamma", "alpha beta gamma"]
        set_default_embedding_model(server.embedding_model())
        other = await run_check(SemanticSimilarity(reference_text="delta"), trace("epsilon zeta"))
        assert other.failed
        server.stop()
        down = await run_check(
            SemanticSimilarity(
                reference_text="new text",
                embedding_model=EmbeddingModel(
                    api_base="http://127.0.0.1:9/v1", api_key="k", max_retries=0
                ),
            ),
            trace("never embedded"),
        )
    assert down.errored and down.details["error_type"] == "LLMConnectionError"


def test_round_trip_and_model_strings():
    scenario = (
        Scenario("s")
        .interact("q", "a")
        .check(
            SemanticSimilarity(reference_text="a", embedding_model="openai/text-embedding-3-small")
        )
        .check(SemanticSimilarity(reference_text="b", embedding_model="offline"))
        .check(SemanticSimilarity(reference_text="c"))
    )
    dumped = scenario.model_dump(mode="json")
    restored = Scenario.model_validate(dumped)
    first, second, third = restored.steps[0].checks
    assert isinstance(first.embedding_model, EmbeddingModel)
    assert first.embedding_model.model == "openai/text-embedding-3-small"
    assert isinstance(second.embedding_model, OfflineEmbeddingModel)
    assert third.embedding_model is None
    assert restored.model_dump(mode="json") == dumped
    with pytest.raises(ValueError):
        SemanticSimilarity(reference_text="a", threshold=1.5)
