"""SemanticSimilarity — kind ``semantic_similarity``: the answer means roughly the same as a reference text.

::

    SemanticSimilarity(reference_text="Paris is the capital of France.", threshold=0.8)

The reference is ``reference_text=`` or the value at ``reference_text_key`` (default
``trace.last.metadata.reference_text``); the answer is the value at ``target_key`` (also
``answer_key``/``text_key``/``key``, default ``trace.last.outputs``). Both are embedded in one call and
compared by cosine similarity: PASS when it is at least ``threshold``. The numbers are checked first: an
embedding with NaN or infinite values, a zero vector, or two vectors of different dimensions is an ERROR
naming the embedding model (never a similarity); huge values are scaled, so the cosine is exact. ``details["similarity"]`` and the
metric ``semantic_similarity`` carry the score; litellm models also report tokens and cost.

``embedding_model``: an embedding model, a litellm model string (``"openai/text-embedding-3-small"``),
``"offline"``, or None for the default (``set_default_embedding_model``; otherwise the offline WordLlama
model, which needs no key and no network). The default threshold 0.8 suits the offline model (paraphrases
score ~0.9+, unrelated text ~0); large provider models score higher overall, so raise it for them. Static
embeddings miss negations and swapped facts ("open Monday" vs "open Friday"): use Correctness for facts.
"""

from __future__ import annotations

from pydantic import Field

from giskard_nb.checks.base import no_value, target_key_field, value_or_key, wrong_type
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.usage import USAGE_METRICS, Usage
from giskard_nb.errors import ConfigError, LLMError
from giskard_nb.llm.embeddings import check_vectors, cosine_similarity
from giskard_nb.llm.mixins import WithEmbeddingMixin

__all__ = ["SemanticSimilarity"]


@Check.register("semantic_similarity")
class SemanticSimilarity(WithEmbeddingMixin, Check):
    """PASS when the cosine similarity of answer and reference embeddings is >= ``threshold``.

    A failure scoring below half the threshold hints ``off_topic``; a closer miss, an incorrect answer.
    """

    reference_text: Value = MISSING
    reference_text_key: JSONPathStr = "trace.last.metadata.reference_text"
    target_key: JSONPathStr = target_key_field()
    threshold: float = Field(default=0.8, ge=-1.0, le=1.0)

    def failure_hint(self, result: CheckResult) -> str | None:
        similarity = result.details.get("similarity")
        if isinstance(similarity, int | float) and similarity < self.threshold / 2:
            return "off_topic"
        return None

    async def run(self, trace: Trace) -> CheckResult:
        reference = value_or_key(trace, self.reference_text, self.reference_text_key)
        if isinstance(reference, NoMatch) or reference in (None, ""):
            return _with_usage(no_value("the reference text", self.reference_text_key))
        actual = value_or_key(trace, MISSING, self.target_key)
        if isinstance(actual, NoMatch) or actual in (None, ""):
            return _with_usage(no_value("the answer", self.target_key))
        for what, value in (("the answer", actual), ("the reference text", reference)):
            if isinstance(value, list | tuple | set | dict):
                return _with_usage(wrong_type(what, "a single text", value))
        try:
            model = self.get_embedding_model()
            embedded = await model.embed_with_usage([str(actual), str(reference)])
        except (LLMError, ConfigError) as exc:
            return _with_usage(
                CheckResult.error(
                    f"embedding failed: {exc}", details={"error_type": type(exc).__name__}
                ),
                getattr(exc, "usage", None),
            )
        try:
            similarity = _similarity(embedded.vectors, model.name)
        except (LLMError, ValueError) as exc:
            return _with_usage(
                CheckResult.error(
                    f"cannot compare the texts with {model.name}: {exc}",
                    details={"error_type": type(exc).__name__, "embedding_model": model.name},
                ),
                embedded.usage,
            )
        details = {
            "similarity": similarity,
            "threshold": self.threshold,
            "actual_answer": str(actual),
            "reference_text": str(reference),
            "embedding_model": model.name,
        }
        metrics = [Metric(name="semantic_similarity", value=similarity)]
        verdict = f"similarity {similarity:.3f} {{}} threshold {self.threshold:g}"
        if similarity >= self.threshold:
            result = CheckResult.success(verdict.format(">="), details=details, metrics=metrics)
        else:
            result = CheckResult.failure(verdict.format("<"), details=details, metrics=metrics)
        return _with_usage(result, embedded.usage)


def _similarity(vectors: list[list[float]], model: str) -> float:
    """The cosine of the two vectors, after checking them (any model, a user's own included)."""
    answer, reference = check_vectors(vectors, model=model, count=2)
    return cosine_similarity(answer, reference)


def _with_usage(result: CheckResult, usage: Usage | None = None) -> CheckResult:
    usage = usage or Usage()
    numbers = {name: getattr(usage, name) for name in USAGE_METRICS}
    metrics = [*result.metrics, *(Metric(name=n, value=float(v)) for n, v in numbers.items())]
    return result.model_copy(update={"metrics": metrics, "details": {**result.details, **numbers}})
