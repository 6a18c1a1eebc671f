"""Numbers are checked: hostile embedding vectors and out-of-range judge scores are ERRORs, never PASS."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel, Field

from giskard_nb import BaseLLMCheck, CheckResult, Interaction, Metric, SemanticSimilarity, Trace
from giskard_nb.core.testcase import run_check
from giskard_nb.llm import BaseEmbeddingModel, Embeddings, LLMResponseError
from giskard_nb.llm.embeddings import check_vectors, cosine_similarity
from giskard_nb.testing import FakeLLMServer

ANSWER, REFERENCE = "The parcel arrives on Monday.", "Our shop sells garden furniture."


def trace(outputs: str = ANSWER) -> Trace:
    return Trace(interactions=[Interaction(inputs="q", outputs=outputs)])


def served(answer_vector, reference_vector):
    """An embed function for FakeLLMServer: one vector for the answer, another for the reference."""
    return lambda text: answer_vector if text == ANSWER else reference_vector


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("answer", "reference", "fragment"),
    [
        ([NAN] * 8, [1.0] * 8, "returned nan"),
        ([1.0] * 8, [NAN, *[1.0] * 7], "returned nan"),
        ([INF] * 8, [1.0] * 8, "returned inf"),
        ([1.0] * 8, [-INF] * 8, "returned -inf"),
        ([1.0] * 8, [1.0] * 16, "different dimensions (8, 16)"),
        ([0.0] * 8, [1.0] * 8, "all-zero embedding"),
        ([1.0] * 8, [0.0] * 8, "all-zero embedding"),
    ],
)
async def test_hostile_vectors_from_a_provider_are_errors_naming_the_model(
    answer, reference, fragment
):
    with FakeLLMServer(embed=served(answer, reference)) as server:
        model = server.embedding_model(cache=False, max_retries=0)
        check = SemanticSimilarity(reference_text=REFERENCE, threshold=0.5, embedding_model=model)
        result = await run_check(check, trace())
    assert result.errored, (result.status, result.message)
    assert fragment in result.message and "openai/text-embedding-3-small" in result.message
    assert result.metric("semantic_similarity") is None and "similarity" not in result.details


async def test_huge_vectors_give_the_true_cosine_not_one():
    # 1e200² overflows a float: the old formula computed inf - inf = NaN, clamped to a similarity of 1.0
    huge, other = [1e200, 1e200, 0.0, 0.0], [1e200, -1e200, 0.0, 0.0]
    with FakeLLMServer(embed=served(huge, other)) as server:
        model = server.embedding_model(cache=False)
        check = SemanticSimilarity(reference_text=REFERENCE, embedding_model=model)
        result = await run_check(check, trace())
        same = await run_check(
            SemanticSimilarity(reference_text=ANSWER, embedding_model=model), trace()
        )
    assert result.failed and result.details["similarity"] == pytest.approx(0.0, abs=1e-12)
    assert same.passed and same.details["similarity"] == pytest.approx(1.0)


class Scripted(BaseEmbeddingModel):
    """A user's own embedding model that answers whatever it was given."""

    model: str = "my/scripted-embedder"
    vectors: list[list[float]]

    async def embed_with_usage(self, texts: list[str]) -> Embeddings:
        return Embeddings(vectors=self.vectors)


@pytest.mark.parametrize(
    ("vectors", "fragment"),
    [
        ([[NAN, 1.0], [1.0, 1.0]], "returned nan"),
        ([[1.0, INF], [1.0, 1.0]], "returned inf"),
        ([[1.0, 1.0], [1.0, 1.0, 1.0]], "different dimensions"),
        ([[1.0, 1.0]], "1 embeddings for 2 texts"),
        ([[1.0], [1.0], [1.0]], "3 embeddings for 2 texts"),
        ([[], []], "empty or non-list embedding"),
        ([[0.0, 0.0], [1.0, 1.0]], "all-zero"),
    ],
)
async def test_a_custom_embedding_model_is_checked_the_same_way(vectors, fragment):
    check = SemanticSimilarity(reference_text=REFERENCE, embedding_model=Scripted(vectors=vectors))
    result = await run_check(check, trace())
    assert result.errored and fragment in result.message
    assert "my/scripted-embedder" in result.message


def test_check_vectors_and_cosine_similarity():
    assert check_vectors([[1, 2.5]], model="m", count=1) == [[1.0, 2.5]]
    for bad in ([[True, 1.0]], [["1.0"]], [[None]], "nope", [[1.0], "x"]):
        with pytest.raises(LLMResponseError, match="embedding model m"):
            check_vectors(bad, model="m")
    assert cosine_similarity([1e-320, 0.0], [1e-320, 0.0]) == pytest.approx(1.0)
    assert cosine_similarity([3.0, 4.0], [-3.0, -4.0]) == pytest.approx(-1.0)
    for a, b in (([NAN], [1.0]), ([1.0], [INF]), ([0.0], [1.0]), ([1.0], [1.0, 2.0]), ([], [])):
        with pytest.raises(ValueError):
            cosine_similarity(a, b)


async def test_nan_and_huge_vectors_never_reach_the_response_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GISKARD_NB_HOME", str(tmp_path))
    with FakeLLMServer(embed=lambda text: [NAN, 1.0]) as server:
        model = server.embedding_model(max_retries=0)
        with pytest.raises(LLMResponseError, match="returned nan"):
            await model.embed(["a"])
        server.embed = lambda text: [1.0, 2.0]
        assert await model.embed(["a"]) == [[1.0, 2.0]]  # asked again: nothing bad was cached
        assert len(server.embedding_requests) == 2


# -- judge scores ----------------------------------------------------------------------------------


class Scored(BaseModel):
    reason: str
    score: float = Field(ge=0, le=1, description="How polite the answer is, from 0 to 1.")


class PolitenessScore(BaseLLMCheck):
    """A user's scoring judge: PASS when the score is at least 0.5."""

    def get_prompt(self) -> str:
        return "Rate the politeness of: {{ outputs }}"

    @property
    def output_type(self) -> type[BaseModel]:
        return Scored

    async def _handle_output(self, output_value, template_inputs, trace) -> CheckResult:
        metrics = [Metric(name="politeness", value=output_value.score)]
        details = {"score": output_value.score}
        if output_value.score >= 0.5:
            return CheckResult.success(output_value.reason, metrics=metrics, details=details)
        return CheckResult.failure(output_value.reason, metrics=metrics, details=details)


class Unbounded(BaseLLMCheck):
    """A judge whose own arithmetic can produce an infinite metric."""

    def get_prompt(self) -> str:
        return "Judge: {{ outputs }}"

    async def _handle_output(self, output_value, template_inputs, trace) -> CheckResult:
        ratio = math.inf if output_value.passed else 0.0
        return CheckResult.success("ok", metrics=[Metric(name="ratio", value=ratio)])


@pytest.mark.parametrize(
    "reply",
    [
        '{"reason": "very polite", "score": 7}',
        '{"reason": "very polite", "score": -0.2}',
        '{"reason": "very polite", "score": "0.9"}',
        '{"reason": "very polite", "score": NaN}',
        '{"reason": "very polite", "score": 1e999}',
        '{"reason": "very polite", "score": null}',
    ],
)
async def test_a_judge_score_outside_its_range_is_an_error(reply):
    with FakeLLMServer(reply=reply) as server:
        check = PolitenessScore(generator=server.generator(cache=False, max_retries=0))
        result = await run_check(check, trace())
    assert result.errored and "not a valid Scored" in result.message
    assert result.details["raw_reply"] == reply


async def test_scores_in_range_are_judged_and_a_non_finite_metric_is_an_error():
    with FakeLLMServer(reply='{"reason": "polite", "score": 0.75}') as server:
        gen = server.generator(cache=False)
        scored = await run_check(PolitenessScore(generator=gen), trace())
        server.reply = '{"reason": "fine", "passed": true}'
        infinite = await run_check(Unbounded(generator=gen), trace())
    assert scored.passed and scored.metric("politeness") == 0.75
    assert infinite.errored and "not a finite number" in infinite.message
