"""BaseLLMCheck: a check whose verdict comes from a judge model; LLMCheckResult: the default verdict.

Write a custom judge by subclassing (as in the seed README)::

    @Check.register("custom_llm_check")
    class CustomLLMCheck(BaseLLMCheck):
        def get_prompt(self):                        # an inline Jinja string or a TemplateReference
            return TemplateReference(template_name="my_project::checks/custom_check.j2")

        @property
        def output_type(self):                       # the pydantic model the judge must fill
            return CustomResult

        async def _handle_output(self, output_value, template_inputs, trace):
            return CheckResult.success(...) if output_value.score >= 0.8 else CheckResult.failure(...)

``get_inputs(trace)`` (sync or async) returns the template variables; by default ``trace``, ``inputs``,
``outputs`` and ``metadata`` of the last interaction, and ``history`` (the conversation as text).

``run`` never raises for model trouble: no judge configured, a missing input, a template error, a
provider error, or a reply that stays unreadable after the repair request each give an ERROR result whose
message says what to do. The reply is read strictly (``giskard_nb.llm.parsing``: one JSON object matching
``output_type``, no prose, no coercion of ``"true"`` into a boolean); an unreadable reply's text is in
``details["raw_reply"]`` (every reply of the call, first and repaired, in ``details["raw_replies"]``).
A score outside its declared range (``Field(ge=0, le=1)`` on the output type) is an unreadable reply too,
and a metric of the result that is not a finite number is an ERROR. Every result carries
the metrics ``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``cost_usd`` and ``llm_calls`` (also
in ``details``, with ``judge_model`` and ``cached``), which ``SuiteResult.usage`` sums. The judge runs at
temperature 0 (so its replies are cached) unless the generator sets a temperature.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from abc import abstractmethod
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.checks.base import no_value, value_or_key
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import NoMatch
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.usage import USAGE_METRICS, Usage
from giskard_nb.errors import ConfigError, LLMError
from giskard_nb.llm.mixins import WithGeneratorMixin
from giskard_nb.llm.templates import TemplateError, TemplateReference

#: The most judge calls ``samples=`` may ask for one verdict.
MAX_SAMPLES = 25

__all__ = ["BaseLLMCheck", "LLMCheckResult", "MissingInput", "format_history", "non_empty_reason"]


class LLMCheckResult(BaseModel):
    """The default judge verdict: a short justification, then pass/fail."""

    model_config = ConfigDict(defer_build=True)

    reason: str = Field(
        min_length=1, description="One to three sentences citing the decisive evidence."
    )
    passed: bool = Field(
        strict=True, description="true when the evaluated answer meets the criteria."
    )

    @field_validator("reason")
    @classmethod
    def _strip(cls, value: str) -> str:
        return non_empty_reason(value)


def non_empty_reason(value: str) -> str:
    """A judge's ``reason`` without surrounding blanks (``ValueError`` when nothing is left): the
    validator every verdict model shares."""
    value = value.strip()
    if not value:
        raise ValueError("reason must not be empty")
    return value


class MissingInput(Exception):
    """Raised by ``get_inputs`` when a value the prompt needs is absent; ``result`` is the ERROR."""

    def __init__(self, result: CheckResult):
        super().__init__(result.message)
        self.result = result


class BaseLLMCheck(WithGeneratorMixin, Check):
    """Base of LLM-judged checks. ``generator``: a Generator or model string; None = the default one.

    ``samples=k`` asks the judge k times (see ``giskard_nb.checks.llm.sampling``): the majority verdict,
    the agreement fraction as the metric ``judge_agreement``, ``details["unstable"]`` below 0.8.
    """

    samples: int = Field(default=1, ge=1, le=MAX_SAMPLES, strict=True)

    @abstractmethod
    def get_prompt(self) -> str | TemplateReference:
        """The judge prompt: an inline Jinja string or a ``TemplateReference``."""

    @property
    def output_type(self) -> type[BaseModel]:
        """The pydantic model the judge fills (``LLMCheckResult`` unless overridden)."""
        return LLMCheckResult

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        """Template variables: ``trace``, last ``inputs``/``outputs``/``metadata``, ``history``."""
        last = trace.last
        return {
            "trace": trace,
            "inputs": last.inputs if last else None,
            "outputs": last.outputs if last else None,
            "metadata": last.metadata if last else {},
            "history": format_history(trace),
        }

    def build_messages(self, inputs: dict[str, Any]) -> list[dict[str, str]]:
        """Render the prompt into chat messages (override to post-process them)."""
        from giskard_nb.llm.templates import render_messages

        return render_messages(self.get_prompt(), inputs)

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        """Turn the judge's reply into a result: PASS/FAIL from ``passed``, ``reason`` as the message."""
        passed = getattr(output_value, "passed", None)
        reason = getattr(output_value, "reason", None)
        if not isinstance(passed, bool):
            raise TypeError(
                f"{type(self).__name__}.output_type is {type(output_value).__name__}, which has no boolean "
                "'passed' field: override _handle_output to turn it into a CheckResult"
            )
        details = {"reason": reason}
        if passed:
            return CheckResult.success(reason, details=details)
        return CheckResult.failure(reason, details=details)

    def require(self, trace: Trace, value: Any, key: str | None, what: str) -> Any:
        """``value`` if given, else the value at ``key``; a missing one stops the check with an ERROR."""
        found = value_or_key(trace, value, key)
        if isinstance(found, NoMatch) or found is None:
            raise MissingInput(no_value(what, key or "(no key)", named=True))
        return found

    async def run(self, trace: Trace) -> CheckResult:
        try:
            generator = self.get_generator()
        except ConfigError as exc:
            return _with_usage(CheckResult.error(str(exc), details={"error_type": "ConfigError"}))
        try:
            inputs = await _maybe_await(self.get_inputs(trace))
            messages = self.build_messages(inputs)
        except MissingInput as exc:
            return _with_usage(exc.result, model=generator.model)
        except TemplateError as exc:
            return _with_usage(
                CheckResult.error(str(exc), details={"error_type": "TemplateError"}),
                model=generator.model,
            )
        if self.samples == 1:
            params = {} if "temperature" in generator.call_params() else {"temperature": 0}
            return await self._judge_once(generator, messages, inputs, trace, params)
        from giskard_nb.checks.llm.sampling import SAMPLING_TEMPERATURE, combine_samples

        params = {"cache": False}  # k independent calls, never k copies of one cached reply
        if "temperature" not in generator.call_params():
            params["temperature"] = SAMPLING_TEMPERATURE
        results = await asyncio.gather(
            *(
                self._judge_once(generator, messages, inputs, trace, params)
                for _ in range(self.samples)
            )
        )
        combined = combine_samples(list(results))
        return _with_usage(combined, Usage.from_results(results), generator.model)

    async def _judge_once(
        self,
        generator: Any,
        messages: list[dict[str, str]],
        inputs: dict[str, Any],
        trace: Trace,
        params: dict[str, Any],
    ) -> CheckResult:
        """One judge call and its reading into a result (never raises for model trouble)."""
        from giskard_nb.llm.errors import LLMResponseError
        from giskard_nb.llm.structured import ask_structured

        try:
            answer = await ask_structured(generator, messages, self.output_type, **params)
        except LLMError as exc:
            details: dict[str, Any] = {"error_type": type(exc).__name__}
            if isinstance(exc, LLMResponseError):
                details["raw_reply"] = exc.raw
                details["raw_replies"] = exc.raw_replies
            usage = getattr(exc, "usage", None) or Usage()
            message = f"the judge {generator.model} failed: {exc}"
            return _with_usage(CheckResult.error(message, details=details), usage, generator.model)
        completion = answer.completion
        try:
            result = await _maybe_await(self._handle_output(answer.value, inputs, trace))
            if not isinstance(result, CheckResult):
                raise TypeError(
                    f"{type(self).__name__}._handle_output returned {type(result).__name__}, "
                    "not a CheckResult"
                )
            _finite_scores(result)
        except Exception as exc:  # the judge was paid for: keep its usage and reply in the ERROR
            details = {"error_type": type(exc).__name__, "raw_reply": completion.raw_text}
            message = f"reading the judge's reply failed: {type(exc).__name__}: {exc}"
            return _with_usage(
                CheckResult.error(message, details=details), completion.usage, generator.model
            )
        plain = _plain_inputs(inputs)  # also under giskard-checks' name, "inputs"
        extra = {"judge_inputs": plain, "inputs": plain, "cached": completion.cached}
        result = result.model_copy(update={"details": {**extra, **result.details}})
        return _with_usage(result, completion.usage, generator.model)


def _finite_scores(result: CheckResult) -> None:
    """A score a judge's verdict produced must be a finite number (ValueError otherwise)."""
    for metric in result.metrics:
        if not math.isfinite(metric.value):
            raise ValueError(f"the score {metric.name!r} is {metric.value}, not a finite number")
    score = result.details.get("score")
    if isinstance(score, float) and not math.isfinite(score):
        raise ValueError(f"the score is {score}, not a finite number")


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _with_usage(
    result: CheckResult, usage: Usage | None = None, model: str | None = None
) -> CheckResult:
    """Attach the usage metrics (and the same numbers in details) to a result."""
    usage = usage or Usage()
    numbers = {name: getattr(usage, name) for name in USAGE_METRICS}
    metrics = [m for m in result.metrics if m.name not in numbers]
    metrics += [Metric(name=name, value=float(value)) for name, value in numbers.items()]
    details = {**result.details, **numbers, "judge_model": model}
    return result.model_copy(update={"metrics": metrics, "details": details})


def _plain_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """The template inputs worth keeping in a result (data, not the Trace object)."""
    keep = (str, int, float, bool, list, dict, type(None))
    return {
        k: v for k, v in inputs.items() if k not in ("trace", "history") and isinstance(v, keep)
    }


def format_history(trace: Trace, limit: int | None = None) -> str:
    """The conversation as text: ``User: ...`` / ``Assistant: ...`` lines (structured values as JSON)."""
    from giskard_nb.llm.templates import prompt_text

    interactions = trace.interactions[-limit:] if limit else trace.interactions
    lines = []
    for interaction in interactions:
        lines.append(f"User: {prompt_text(interaction.inputs)}")
        lines.append(f"Assistant: {prompt_text(interaction.outputs)}")
    return "\n".join(lines)
