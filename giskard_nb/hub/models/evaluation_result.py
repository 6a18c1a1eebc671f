"""One stored evaluation result: the core ``ScenarioResult`` a test case ran as, wrapped with the Hub's
ids, the conversation sent and the failure category.

Nothing the ScenarioResult already holds is stored twice: ``status``, ``duration_ms``, ``error``,
``tags``, the agent's reply (``agent_output``, from the trace's last interaction), the per-check views
(``checks``), ``reason`` and ``usage`` are read from it (computed fields: they still appear in ``model_dump()``).

Records of schema version 1 (which also stored a copy of each of these) validate into this shape: the
copies are dropped, and the part of their ``usage`` the checks did not spend (the failure classifier's
LLM call) becomes ``failure_category_usage``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, computed_field, model_validator

from giskard_nb.core.check import HINT_KEY, valid_hint
from giskard_nb.core.result import CheckResult
from giskard_nb.core.sanitize import to_safe_data
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.tools import ToolCall
from giskard_nb.core.usage import USAGE_METRICS, Usage
from giskard_nb.hub.models.agent import AgentOutput, ChatMessage
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.hub.models.project import FailureCategory

__all__ = [
    "DERIVED_FIELDS",
    "DETAIL_LIMITS",
    "CheckOutcome",
    "EvaluationResult",
    "ResultStatus",
    "check_view",
    "clip_details",
    "outcome",
    "upgrade_v1",
]

ResultStatus = Literal["pass", "fail", "error", "skip"]

#: What an ``EvaluationResult`` reads from its ScenarioResult (stored copies of them are dropped).
DERIVED_FIELDS = (
    "status",
    "tags",
    "agent_output",
    "error",
    "reason",
    "checks",
    "duration_ms",
    "usage",
)

_DERIVED = frozenset(DERIVED_FIELDS)
_NO_USAGE = Usage()


class CheckOutcome(HubModel):
    """One check's outcome in a result: its status and reason, the score it measured (a similarity,
    a judge's score...) and the threshold it compared it with, when it reports them; ``details``: the
    check's details (untrusted: made JSON-safe and clipped, ``DETAIL_LIMITS``), where a failed check's
    failure-category hint is (``details["check_failure_category"]``, ``category_hint``)."""

    name: str
    kind: str | None = None
    status: ResultStatus
    message: str | None = None
    score: float | None = None
    threshold: float | None = None
    metrics: dict[str, float] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)

    @property
    def category_hint(self) -> str | None:
        """The failure category the check declared for this failure (``Check.failure_category``);
        ``None`` when it declared none or the result was stored before hints were recorded."""
        return valid_hint(self.details.get(HINT_KEY))


#: The caps on a ``CheckOutcome``'s ``details`` (check details hold agent text: hostile, maybe large).
DETAIL_LIMITS = {"max_depth": 6, "max_string": 2_000, "max_items": 50, "max_total": 20_000}


def clip_details(details: Mapping[str, Any]) -> dict[str, Any]:
    """``details`` as bounded JSON-safe data (``giskard_nb.core.sanitize.to_safe_data``); flat
    details of short ASCII strings, booleans, small numbers and ``None`` (the usual case) as they are."""
    if _flat_and_small(details):
        return dict(details)
    safe = to_safe_data(dict(details), **DETAIL_LIMITS)
    return safe if isinstance(safe, dict) else {}


def _flat_and_small(details: Mapping[str, Any]) -> bool:
    if len(details) > DETAIL_LIMITS["max_items"]:
        return False
    budget = DETAIL_LIMITS["max_total"]
    for key, value in details.items():
        kind = type(value)
        if type(key) is not str or not key.isascii():
            return False
        budget -= len(key) + 1
        if kind is str:
            if len(value) > DETAIL_LIMITS["max_string"] or not value.isascii():
                return False
            budget -= len(value)
        elif not (
            value is None
            or kind is bool
            or (kind is int and -(2**53) <= value <= 2**53)
            or (kind is float and math.isfinite(value))
        ):
            return False
    return budget >= 0


def check_view(
    status: str, message: str | None, metrics: Mapping[str, float], details: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields of a ``CheckOutcome`` from one check result's parts (a core ``CheckResult`` or its
    stored JSON): named after the check the runner recorded in ``details``; ``score`` is the first
    number among ``details["score"]``, ``details["similarity"]`` and the ``score`` metric."""
    score = None
    for value in (details.get("score"), details.get("similarity"), metrics.get("score")):
        if _number(value):
            score = float(value)
            break
    threshold = details.get("threshold")
    kind = details.get("check_kind")
    return {
        "name": details.get("check_name") or kind or "check",
        "kind": kind,
        "status": status,
        "message": message,
        "score": score,
        "threshold": float(threshold) if _number(threshold) else None,
        "metrics": dict(metrics),
        "details": clip_details(details),
    }


def _number(value: Any) -> bool:
    return value is not None and isinstance(value, int | float) and not isinstance(value, bool)


def outcome(result: CheckResult) -> CheckOutcome:
    """The ``CheckOutcome`` view of one core ``CheckResult``."""
    metrics = {m.name: m.value for m in result.metrics}
    return CheckOutcome(**check_view(result.status.value, result.message, metrics, result.details))


class EvaluationResult(HubRecord):
    """The outcome for one test case: the core ``ScenarioResult`` it was run as, the conversation sent
    (``messages``) and the failure category of a failed result (set by the classifier or relabelled
    by a user). ``status``, ``checks``, ``agent_output``, ``error``, ``tags``, ``duration_ms`` and
    ``usage`` are read from the ScenarioResult."""

    evaluation_id: str
    test_case_id: str
    #: Which run of its test case this is: 0..k-1 in an evaluation with ``repeats=k`` (else 0).
    repeat: int = Field(default=0, ge=0)
    messages: list[ChatMessage] = Field(default_factory=list)
    scenario_result: ScenarioResult
    failure_category: FailureCategory | None = None
    failure_category_source: Literal["rule", "llm", "user"] | None = None
    failure_category_reason: str | None = None
    #: Tokens and cost of the failure classifier's LLM call (the checks' own are in the trace).
    failure_category_usage: Usage = _NO_USAGE  # shared: frozen (a factory builds one per result)
    #: The role of the agent's reply message (its text is the trace's last output).
    reply_role: Literal["system", "user", "assistant", "tool"] = "assistant"

    @model_validator(mode="before")
    @classmethod
    def _from_older_shapes(cls, data: Any) -> Any:
        if isinstance(data, dict) and not _DERIVED.isdisjoint(data):
            return upgrade_v1(data)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ResultStatus:
        """pass, fail, error or skip: the ScenarioResult's status."""
        return self.scenario_result.status.value  # type: ignore[return-value]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tags(self) -> list[str]:
        """The test case's tags (as the scenario carried them)."""
        return list(self.scenario_result.tags)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def agent_output(self) -> AgentOutput | None:
        """The agent's reply (``None`` when the agent was not reached or did not answer)."""
        last = self.scenario_result.final_trace.last
        if last is None:
            return None
        content = last.outputs if isinstance(last.outputs, str) else str(last.outputs)
        return AgentOutput(
            response=ChatMessage(role=self.reply_role, content=content), metadata=last.metadata
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error(self) -> str | None:
        """Why this test case errored, as one line: what stopped its run (the agent, a timeout...),
        else its first erroring check (``reason``); ``None`` unless the status is error."""
        scenario = self.scenario_result
        return scenario.error or (scenario.reason if scenario.errored else None)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reason(self) -> str | None:
        """Why this test case did not pass, in one bounded line (``None`` when it passed): the
        scenario's ``reason`` (``giskard_nb.core.reasons.case_reason``), what every view shows."""
        return self.scenario_result.reason

    @computed_field  # type: ignore[prop-decorator]
    @property
    def checks(self) -> list[CheckOutcome]:
        """One outcome per check, in order (the scenario's check results, summarized)."""
        return [outcome(r) for r in self.scenario_result.check_results]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def duration_ms(self) -> float:
        """How long the test case ran (milliseconds)."""
        return self.scenario_result.duration_ms

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usage(self) -> Usage:
        """Tokens and cost of the checks' LLM calls plus the failure classifier's."""
        return self.scenario_result.usage + self.failure_category_usage

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The trajectory: every tool call the agent made, in order (``turn`` set); empty for a
        result stored before tool calls were recorded."""
        return self.scenario_result.final_trace.tool_calls

    @property
    def passed(self) -> bool:
        """Whether the result is a pass."""
        return self.status == "pass"

    def __repr__(self) -> str:
        category = f" [{self.failure_category.identifier}]" if self.failure_category else ""
        return f"<EvaluationResult {self.status.upper()}{category} test_case={self.test_case_id}>"

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import result_html, safe_html

        return safe_html(result_html, self)


def upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 record (or a ``model_dump()``) as this model's fields: the derived copies dropped,
    the reply's role kept, the classifier's share of ``usage`` kept as ``failure_category_usage``."""
    out = {k: v for k, v in data.items() if k not in DERIVED_FIELDS}
    output = data.get("agent_output")
    role = _get(_get(output, "response"), "role")
    if role is not None and "reply_role" not in out:
        out["reply_role"] = role
    if data.get("usage") is not None and "failure_category_usage" not in out:
        spent = _usage_dict(data["usage"])
        checks = _scenario_usage(data.get("scenario_result"))
        extra = {k: spent.get(k, 0) - checks.get(k, 0) for k in USAGE_METRICS}
        if any(v > 0 for v in extra.values()):
            out["failure_category_usage"] = {
                k: max(v, 0) if k == "cost_usd" else int(max(v, 0)) for k, v in extra.items()
            }
    return out


def _get(value: Any, key: str) -> Any:
    if value is None:
        return None
    return value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)


def _usage_dict(usage: Any) -> dict[str, float]:
    if isinstance(usage, Usage):
        return usage.model_dump()
    return {k: float(usage.get(k) or 0) for k in USAGE_METRICS} if isinstance(usage, dict) else {}


def _scenario_usage(scenario: Any) -> dict[str, float]:
    if isinstance(scenario, ScenarioResult):
        return scenario.usage.model_dump()
    totals = dict.fromkeys(USAGE_METRICS, 0.0)
    if not isinstance(scenario, dict):
        return totals
    for step in scenario.get("steps") or []:
        for result in step.get("results") or []:
            for metric in result.get("metrics") or []:
                if metric.get("name") in totals:
                    totals[metric["name"]] += metric.get("value") or 0
    return totals
