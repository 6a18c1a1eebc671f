"""``ActionClaimsConsistent``: every action the agent's reply claims to have done matches a successful
tool call with the right arguments.

The judge only reads: it lists the actions each reply claims (the quote, the tool that would perform
it, the arguments the reply states). The matching is Python: a claim holds when a call of that tool,
made in that turn or before it, succeeded (``status="ok"``; ``unknown`` too with
``accept_unknown_status=True``) and its arguments contain the stated ones (compared as data, case
and whitespace ignored). A claim with no tool, an unknown tool, a failed call or other arguments fails.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.checks.llm.base import non_empty_reason
from giskard_nb.checks.tools.common import args_diff, normalise_args, short
from giskard_nb.checks.tools.judges import ToolJudge
from giskard_nb.checks.tools.transcript import numbered_calls
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.tools import ToolCall

__all__ = ["ActionClaimsConsistent", "ClaimedAction", "ClaimsVerdict", "match_claim"]


class ClaimedAction(BaseModel):
    """One action a reply claims was done."""

    model_config = ConfigDict(defer_build=True)

    turn: int = Field(
        strict=True, description="The [Turn n] whose assistant reply makes the claim."
    )
    quote: str = Field(min_length=1, description="The words of the reply that claim the action.")
    tool: str | None = Field(
        default=None, description="The tool that performs this action, or null if no tool does."
    )
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The values the reply states for the action (may be {})."
    )


class ClaimsVerdict(BaseModel):
    """The actions the replies claim, and a short justification."""

    model_config = ConfigDict(defer_build=True)

    reason: str = Field(min_length=1, description="One sentence on what the replies claim.")
    claims: list[ClaimedAction] = Field(
        description="Every action claimed as done ([] when none is: required, never implied)."
    )

    @field_validator("reason")
    @classmethod
    def _strip(cls, value: str) -> str:
        return non_empty_reason(value)


def match_claim(
    claim: ClaimedAction, calls: list[ToolCall], *, accept_unknown: bool = False
) -> tuple[ToolCall | None, str]:
    """The successful call that backs ``claim`` (or ``None``) and why."""
    if not claim.tool:
        return None, "no tool performs this action"
    same = [c for c in calls if c.name == claim.tool.strip() and (c.turn or 0) <= claim.turn]
    if not same:
        return None, f"{claim.tool!r} was never called"
    ok = {"ok", "unknown"} if accept_unknown else {"ok"}
    done = [c for c in same if c.status in ok]
    if not done:
        return None, f"every call of {claim.tool!r} failed or has no result"
    want = normalise_args(claim.arguments, casefold=True)
    diffs = []
    for call in done:
        diff = args_diff(want, normalise_args(call.arguments, casefold=True))
        if not diff:
            return call, "matched"
        diffs.append(diff)
    first = diffs[0][0]
    return None, (
        f"no successful call of {claim.tool!r} has the stated arguments "
        f"({first['argument']} {first['problem']})"
    )


@Check.register("action_claims_consistent")
class ActionClaimsConsistent(ToolJudge):
    """PASS when every action a reply claims (listed by the judge) matches a successful call of the
    right tool with the stated arguments, made in that turn or before (``match_claim``). A reply
    claiming nothing passes. ``details["claims"]`` has each claim, its call and the verdict."""

    failure_category: ClassVar[str | None] = "hallucination"
    template_file: ClassVar[str] = "action_claims.j2"

    accept_unknown_status: bool = False

    @property
    def output_type(self) -> type[BaseModel]:
        return ClaimsVerdict

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        index = self.turn_index(trace)
        last = len(trace.interactions) - 1 if index is None else index
        first = 0 if index is None else index
        claims = output_value.claims
        wrong_turn = sorted({c.turn for c in claims if not first <= c.turn <= last})
        if wrong_turn:  # an incoherent verdict: never read as "nothing claimed"
            raise ValueError(
                f"the judge cited turn(s) {wrong_turn}, but the judged turns are {first} to {last}"
            )
        calls = numbered_calls(trace, index)  # type: ignore[arg-type]
        report, unbacked = [], []
        for claim in claims:
            call, why = match_claim(claim, calls, accept_unknown=self.accept_unknown_status)
            entry = {
                "turn": claim.turn,
                "quote": claim.quote[:300],
                "tool": claim.tool,
                "arguments": claim.arguments,
                "call": short([call])[0] if call else None,
                "consistent": call is not None,
                "why": why,
            }
            report.append(entry)
            if call is None:
                unbacked.append(entry)
        details = {"reason": output_value.reason, "claims": report[:50], "turn": self.turn}
        consistent = len(report) - len(unbacked)
        metrics = [
            Metric(name="claims", value=float(len(report))),
            Metric(name="consistent_claims", value=float(consistent)),
        ]
        if unbacked:
            first_bad = unbacked[0]
            return CheckResult.failure(
                f"{len(unbacked)} of {len(report)} claimed action(s) match no successful tool call: "
                f"{first_bad['quote'][:120]!r} ({first_bad['why']}).",
                details=details,
                metrics=metrics,
            )
        message = (
            f"All {len(report)} claimed action(s) match a successful tool call."
            if report
            else "The replies claim no action."
        )
        return CheckResult.success(message, details=details, metrics=metrics)
