"""Sentiment — kind ``sentiment``: the judge reads the text's sentiment and it is one of those expected.

::

    Sentiment(expected="positive")
    Sentiment(expected=["positive", "neutral"], min_confidence=0.7)
    Sentiment(expected="neutral", key="trace.last.inputs")   # the user's message instead of the reply

The text is ``text=`` or the value at ``target_key`` (default ``trace.last.outputs``), in any language:
the judge decides, nothing in the check depends on the language. The judge answers a label among
``SENTIMENTS`` (``positive``, ``neutral``, ``negative``), its confidence (0 to 1) and a reason. PASS when
the label is expected and the confidence is at least ``min_confidence``; FAIL otherwise; an unreadable
reply or a missing judge is an ERROR, as for every LLM check. ``details`` holds ``label``,
``confidence``, ``expected``, ``min_confidence`` and ``reason``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.checks.base import target_key_field
from giskard_nb.checks.llm.base import BaseLLMCheck, non_empty_reason
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.templates import TemplateReference

__all__ = ["SENTIMENTS", "Sentiment", "SentimentLabel", "SentimentVerdict"]

SentimentLabel = Literal["positive", "neutral", "negative"]
SENTIMENTS: tuple[str, ...] = get_args(SentimentLabel)


class SentimentVerdict(BaseModel):
    """The judge's reading of a text: a reason, then the label and how sure it is."""

    model_config = ConfigDict(defer_build=True)

    reason: str = Field(
        min_length=1, description="One to three sentences citing the words that decide the label."
    )
    label: SentimentLabel = Field(description="The overall sentiment the text expresses.")
    confidence: float = Field(
        ge=0, le=1, description="How sure the label is, from 0 (a guess) to 1 (unmistakable)."
    )

    @field_validator("reason")
    @classmethod
    def _strip(cls, value: str) -> str:
        return non_empty_reason(value)


@Check.register("sentiment")
class Sentiment(BaseLLMCheck):
    """PASS when the judge finds the text's sentiment among ``expected`` (with at least
    ``min_confidence``)."""

    expected: list[SentimentLabel]
    text: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    min_confidence: float = Field(default=0.0, ge=0, le=1)

    def __init__(self, expected: Any = MISSING, /, **data: Any):
        if expected is not MISSING:
            data["expected"] = expected
        super().__init__(**data)

    @field_validator("expected", mode="before")
    @classmethod
    def _labels(cls, value: Any) -> Any:
        labels = [value] if isinstance(value, str) else value
        if not isinstance(labels, list | tuple | set | frozenset) or not labels:
            raise GiskardValidationError(
                f"Sentiment needs expected= one of {', '.join(SENTIMENTS)} or a list of them, "
                f"got {value!r:.100}"
            )
        cleaned = [v.strip().lower() if isinstance(v, str) else v for v in labels]
        unknown = [v for v in cleaned if v not in SENTIMENTS]
        if unknown:
            raise GiskardValidationError(
                f"unknown sentiment {unknown[0]!r:.50}: choose among {', '.join(SENTIMENTS)}"
            )
        return list(dict.fromkeys(cleaned))

    @property
    def output_type(self) -> type[BaseModel]:
        return SentimentVerdict

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name="giskard_nb.checks::sentiment.j2")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        text = self.require(trace, self.text, self.target_key, "the text")
        return {"trace": trace, "text": text}

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        label, confidence = output_value.label, output_value.confidence
        details = {
            "label": label,
            "confidence": confidence,
            "expected": list(self.expected),
            "min_confidence": self.min_confidence,
            "reason": output_value.reason,
        }
        metrics = [Metric(name="sentiment_confidence", value=confidence)]
        wanted = " or ".join(self.expected)
        if label not in self.expected:
            message = f"the sentiment is {label}, expected {wanted}: {output_value.reason}"
            return CheckResult.failure(message, details=details, metrics=metrics)
        if confidence < self.min_confidence:
            message = (
                f"the sentiment is {label} but the judge is only {confidence:.2f} sure "
                f"(min_confidence {self.min_confidence:g}): {output_value.reason}"
            )
            return CheckResult.failure(message, details=details, metrics=metrics)
        message = f"the sentiment is {label} ({confidence:.2f}): {output_value.reason}"
        return CheckResult.success(message, details=details, metrics=metrics)
