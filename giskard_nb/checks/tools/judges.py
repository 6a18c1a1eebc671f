"""Judge-backed tool checks: ``ToolSelectionJudge``, ``ToolArgumentsJudge``, ``ToolGroundingJudge``
and ``TrajectoryJudge`` (``ActionClaimsConsistent`` is in ``claims.py``).

::

    ToolSelectionJudge(tools=specs)            # the right tools for the request, none needlessly
    ToolArgumentsJudge(tools=specs)            # arguments right for the request (no reference)
    ToolGroundingJudge()                       # the reply says only what the tool results support
    TrajectoryJudge(goal="Book the cheapest flight to Lisbon", plan="search, compare, book")

Each judge reads the conversation turn by turn with the numbered tool calls, their arguments, results
and errors (``transcript.py``), and the tools given (``tools``: ``ToolSpec`` objects or OpenAI /
Anthropic / MCP definitions). ``turn`` judges one turn (the conversation up to it is context). They run
through ``BaseLLMCheck``: an unreadable judge reply is an ERROR, never a PASS.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.checks.llm.base import BaseLLMCheck, LLMCheckResult, MissingInput
from giskard_nb.checks.tools.common import ToolCheck, as_specs
from giskard_nb.checks.tools.transcript import numbered_calls, tools_text, transcript
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.tools import ToolSpec
from giskard_nb.llm.templates import TemplateReference

__all__ = [
    "ToolArgumentsJudge",
    "ToolArgumentsVerdict",
    "ToolGroundingJudge",
    "ToolJudge",
    "ToolSelectionJudge",
    "TrajectoryJudge",
    "TrajectoryVerdict",
]


class ToolJudge(BaseLLMCheck, ToolCheck):
    """Base of the tool judges (not registered): ``tools``, ``turn``, and the template inputs
    ``conversation``, ``tools``, ``focus`` (which turn is judged) and ``call_count``."""

    template_file: ClassVar[str] = ""
    needs_calls: ClassVar[bool] = False

    tools: list[ToolSpec] = Field(default_factory=list)

    @field_validator("tools", mode="before")
    @classmethod
    def _specs(cls, value: Any) -> Any:
        return as_specs(value)

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name=f"giskard_nb.checks::{self.template_file}")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        if trace.last is None:
            raise MissingInput(
                CheckResult.error(f"{type(self).__name__} needs at least one interaction")
            )
        index = self.turn_index(trace)
        if isinstance(index, CheckResult):
            raise MissingInput(index)
        calls = numbered_calls(trace, index)
        if self.needs_calls and not [c for c in calls if index is None or c.turn == index]:
            raise MissingInput(
                CheckResult.skip(
                    f"{type(self).__name__}: no tool call {self.where()} to judge",
                    details={"turn": self.turn},
                )
            )
        focus = "the whole conversation" if index is None else f"turn {index}"
        return {
            "trace": trace,
            "conversation": transcript(trace, index),
            "tools": tools_text(self.tools),
            "focus": focus,
            "call_count": len(calls),
        }


@Check.register("tool_selection_judge")
class ToolSelectionJudge(ToolJudge):
    """PASS when the judge finds the agent called the tools the request needed, and no tool it did
    not need (a needed call missing fails too)."""

    failure_category: ClassVar[str | None] = "incorrect_answer"
    template_file: ClassVar[str] = "tool_selection.j2"


class ToolArgumentsVerdict(LLMCheckResult):
    """The judge's verdict on each call's arguments."""

    model_config = ConfigDict(defer_build=True)

    wrong_calls: list[int] = Field(
        default_factory=list, description="Numbers of the tool calls with wrong arguments."
    )


@Check.register("tool_arguments_judge")
class ToolArgumentsJudge(ToolJudge):
    """PASS when the judge finds every call's arguments right for what the user asked (values taken
    from the conversation, nothing invented, nothing missing); no reference needed.
    ``details["wrong_calls"]`` lists the calls it faults. SKIP when no call was made."""

    failure_category: ClassVar[str | None] = "incorrect_answer"
    template_file: ClassVar[str] = "tool_arguments.j2"
    needs_calls: ClassVar[bool] = True

    @property
    def output_type(self) -> type[BaseModel]:
        return ToolArgumentsVerdict

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        count = template_inputs["call_count"]
        numbers = sorted(set(output_value.wrong_calls))
        unknown = [n for n in numbers if not 1 <= n <= count]
        if unknown:  # an incoherent verdict is never read as "all arguments right"
            raise ValueError(
                f"the judge cited call number(s) {unknown}, but the calls are numbered 1 to {count}"
            )
        calls = numbered_calls(trace, self.turn_index(trace))  # type: ignore[arg-type]
        wrong = [str(calls[n - 1]) for n in numbers]
        details = {"reason": output_value.reason, "wrong_calls": wrong}
        if output_value.passed and not wrong:
            return CheckResult.success(output_value.reason, details=details)
        return CheckResult.failure(output_value.reason, details=details)


@Check.register("tool_grounding_judge")
class ToolGroundingJudge(ToolJudge):
    """PASS when the judge finds every fact the reply states about the world supported by the tool
    results of the conversation (and no failed call presented as a result). With no tool call, a
    fact the reply states about the world is unsupported."""

    failure_category: ClassVar[str | None] = "hallucination"
    template_file: ClassVar[str] = "tool_grounding.j2"


class TrajectoryVerdict(BaseModel):
    """The judge's rubric scores (1 to 5) and its justification."""

    model_config = ConfigDict(defer_build=True)

    reason: str = Field(min_length=1, description="One to three sentences citing the evidence.")
    efficiency: int = Field(ge=1, le=5, strict=True, description="1 wasteful … 5 no needless call")
    plan_adherence: int = Field(ge=1, le=5, strict=True, description="1 ignores … 5 follows")
    goal_reached: int = Field(ge=1, le=5, strict=True, description="1 not at all … 5 fully")


@Check.register("trajectory_judge")
class TrajectoryJudge(ToolJudge):
    """The judge scores the trajectory from 1 to 5 on efficiency (no needless or repeated calls),
    plan adherence (``plan``, else a sensible plan) and goal reached (``goal``, else the user's
    request), with ``rubric`` as extra criteria. Metrics: the three scores and ``score`` (their mean
    over 5); PASS when every score is at least ``min_score`` (default 3)."""

    failure_category: ClassVar[str | None] = "incorrect_answer"
    template_file: ClassVar[str] = "trajectory.j2"

    goal: str | None = None
    plan: str | None = None
    rubric: str | None = None
    min_score: int = Field(default=3, ge=1, le=5)

    @property
    def output_type(self) -> type[BaseModel]:
        return TrajectoryVerdict

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        inputs = await super().get_inputs(trace)
        return {**inputs, "goal": self.goal, "plan": self.plan, "rubric": self.rubric}

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        scores = {
            "efficiency": output_value.efficiency,
            "plan_adherence": output_value.plan_adherence,
            "goal_reached": output_value.goal_reached,
        }
        mean = sum(scores.values()) / (5 * len(scores))
        metrics = [Metric(name=k, value=float(v)) for k, v in scores.items()]
        metrics.append(Metric(name="score", value=mean))
        low = [k for k, v in scores.items() if v < self.min_score]
        details = {"reason": output_value.reason, **scores, "score": mean, "below": low}
        text = ", ".join(f"{k} {v}/5" for k, v in scores.items())
        if low:
            return CheckResult.failure(
                f"{output_value.reason} ({text}; below {self.min_score}: {', '.join(low)})",
                details=details,
                metrics=metrics,
            )
        return CheckResult.success(
            f"{output_value.reason} ({text})", details=details, metrics=metrics
        )
