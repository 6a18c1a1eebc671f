"""Latency — kind ``latency``: the target answered within ``max_seconds``.

The time is ``Interaction.latency_s``: the wall-clock seconds a scenario measured around its call to the
target (or to an ``outputs=`` callable) when it produced the interaction. ``scope="last"`` (the default)
checks the latest interaction; ``scope="all"`` checks every interaction of the trace so far, and the
slowest one must be within the limit. An interaction without a measured time (static outputs, a trace
built by hand) cannot be judged: that is an ERROR saying how to get a time, never a PASS.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric

__all__ = ["Latency"]

_HOW = (
    "latency is measured only when the scenario calls the target or an outputs= callable: give "
    "Scenario(target=...), .interact(inputs, my_agent) or run(target=...) instead of static outputs, "
    "or set Interaction(latency_s=...) on an interaction built by hand"
)


@Check.register("latency")
class Latency(Check):
    """PASS when the target's reply took at most ``max_seconds`` (the last one, or every one with
    ``scope="all"``)."""

    max_seconds: float = Field(gt=0, allow_inf_nan=False, description="The slowest reply allowed.")
    scope: Literal["last", "all"] = Field(
        default="last",
        description='"last": the latest interaction; "all": every interaction of the trace so far.',
    )

    def run(self, trace: Trace) -> CheckResult:
        interactions = trace.interactions if self.scope == "all" else trace.interactions[-1:]
        if not interactions:
            return CheckResult.error(
                "Latency needs an interaction in the trace: put the check after an interact()",
                details={"threshold": self.max_seconds},
            )
        offset = len(trace.interactions) - len(interactions)
        timed = [(offset + i, it.latency_s) for i, it in enumerate(interactions)]
        measured = [(i, s) for i, s in timed if _is_seconds(s)]
        missing = [i for i, s in timed if not _is_seconds(s)]
        details = {"threshold": self.max_seconds, "scope": self.scope}
        if self.scope == "all":
            details["latencies_s"] = [s if _is_seconds(s) else None for _, s in timed]
        slow = [(i, s) for i, s in measured if s > self.max_seconds]
        if slow:
            index, seconds = max(slow, key=lambda pair: pair[1])
            details.update(actual_value=seconds, interaction_index=index)
            return CheckResult.failure(
                f"{_where(index, self.scope)} took {seconds:.3f} s, more than the "
                f"{self.max_seconds:g} s allowed",
                details=details,
                metrics=[Metric(name="latency_s", value=seconds)],
            )
        if missing:
            details["unmeasured_interactions"] = missing
            return CheckResult.error(
                f"no latency was recorded for {_which(missing, self.scope)}: {_HOW}",
                details=details,
            )
        index, seconds = max(measured, key=lambda pair: pair[1])
        details.update(actual_value=seconds, interaction_index=index)
        return CheckResult.success(
            f"{_where(index, self.scope)} took {seconds:.3f} s, within {self.max_seconds:g} s",
            details=details,
            metrics=[Metric(name="latency_s", value=seconds)],
        )


def _is_seconds(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _where(index: int, scope: str) -> str:
    return "the reply" if scope == "last" else f"the slowest reply (interaction {index})"


def _which(indexes: list[int], scope: str) -> str:
    if scope == "last":
        return "the last interaction"
    shown = ", ".join(str(i) for i in indexes[:10]) + (", ..." if len(indexes) > 10 else "")
    return f"interaction{'s' if len(indexes) > 1 else ''} {shown} (0-based)"
