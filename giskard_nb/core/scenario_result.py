"""ScenarioResult: the outcome of one scenario run (its steps, final trace, timing)."""

from __future__ import annotations

import sys
from functools import cached_property
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, computed_field

from giskard_nb.core.generic import Parametrizable, Params
from giskard_nb.core.interaction import Trace
from giskard_nb.core.reasons import case_reason
from giskard_nb.core.result import CheckResult, CheckStatus, roll_up
from giskard_nb.core.testcase import NO_CHECKS, TestCaseResult
from giskard_nb.core.usage import Usage

__all__ = ["ScenarioResult", "ScenarioStatus"]

ScenarioStatus = CheckStatus


class ScenarioResult(Parametrizable[*Params], BaseModel):
    """What ``Scenario.run()`` returns. ``status``: ERROR if any step errored, else FAIL if any failed,
    else PASS if a check passed, else SKIP (every check was skipped, or the scenario has no checks:
    ``skip_reason`` says which). In a run with repeats (``Suite.run(repeats=k)``), ``case_index`` is the
    scenario's position in the suite and ``repeat`` the run's number (0…k-1); both None otherwise."""

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    scenario_name: str
    steps: list[TestCaseResult] = Field(default_factory=list)
    duration_ms: float = 0.0
    final_trace: SerializeAsAny[Trace] = Field(default_factory=Trace)
    multiple_runs: int = 1
    runs_executed: int = 1
    tags: list[str] = Field(default_factory=list)
    case_index: int | None = None
    repeat: int | None = None

    def model_copy(
        self, *, update: dict[str, Any] | None = None, deep: bool = False
    ) -> ScenarioResult:
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("status", None)  # recomputed from the (possibly updated) fields
        return copy

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def status(self) -> CheckStatus:
        return roll_up(s.status for s in self.steps)

    @property
    def passed(self) -> bool:
        return self.status is CheckStatus.PASS

    @property
    def failed(self) -> bool:
        return self.status is CheckStatus.FAIL

    @property
    def errored(self) -> bool:
        return self.status is CheckStatus.ERROR

    @property
    def skipped(self) -> bool:
        return self.status is CheckStatus.SKIP

    @property
    def check_results(self) -> list[CheckResult]:
        """Every check result of every step, in order."""
        return [r for step in self.steps for r in step.results]

    @property
    def failures_and_errors(self) -> list[TestCaseResult]:
        return [s for s in self.steps if s.status in (CheckStatus.FAIL, CheckStatus.ERROR)]

    @property
    def error(self) -> str | None:
        """The first step error (target, input generation, timeout...), as a one-line summary."""
        return next((s.error.summary() for s in self.steps if s.error), None)

    @property
    def skip_reason(self) -> str | None:
        """Why the scenario is SKIP: ``"no checks"`` when none of its steps has a check, else the
        first skip message."""
        if not self.skipped:
            return None
        if not self.check_results:
            return NO_CHECKS
        return next((s.skip_reason for s in self.steps if s.results), "every check was skipped")

    @property
    def reason(self) -> str | None:
        """Why this scenario did not pass, in one bounded line (``None`` when it passed): the step
        error, else the first failing or erroring check as ``"<check>: <message>"``, else the skip
        reason. Decided by ``giskard_nb.core.reasons.case_reason``, as everywhere a reason is shown."""
        return case_reason(
            self.status.value,
            error=self.error,
            checks=((r.check_name, r.status.value, r.message) for r in self.check_results),
        )

    @property
    def usage(self) -> Usage:
        """Tokens and cost of the LLM calls made by this scenario's checks."""
        return Usage.from_results(self.check_results)

    def format_failures(self) -> list[str]:
        """Readable lines: which step, which check, and why."""
        lines = []
        for i, step in enumerate(self.steps, 1):
            lines.extend(
                f"step {i}: {line}" for line in step.format_failures(include_skipped=False)
            )
        return lines

    def assert_passed(self) -> None:
        """Raise AssertionError listing every failing or erroring check, unless the scenario passed; a
        scenario where nothing passed because every check was skipped (or it has none) raises too."""
        if self.status is CheckStatus.SKIP:
            raise AssertionError(
                f"scenario {self.scenario_name!r} SKIP: nothing passed, every check was skipped "
                f"({self.skip_reason})"
            )
        if self.status in (CheckStatus.FAIL, CheckStatus.ERROR):
            details = "\n".join(f"  - {line}" for line in self.format_failures())
            raise AssertionError(
                f"scenario {self.scenario_name!r} {self.status.value.upper()}:\n{details}"
            )

    def print_report(self, file: TextIO | None = None) -> None:
        from giskard_nb.core.render import scenario_report

        print(scenario_report(self), file=file or sys.stdout)

    # -- DataFrames and charts (pandas/plotly are imported only when these are called) ---------------

    def to_dataframe(self, *, level: str = "checks") -> Any:
        """A pandas DataFrame: one row per check result (``level="checks"``), or per ``"steps"``,
        ``"interactions"`` or ``"scenarios"``; columns documented in ``giskard_nb.frames.results``."""
        from giskard_nb.frames import to_dataframe

        return to_dataframe(self, level=level)

    def plot_pass_rate(self, **kwargs: Any) -> Any:
        """A Plotly figure: each check's status (see ``giskard_nb.charts.plot_pass_rate``)."""
        from giskard_nb.charts import plot_pass_rate

        return plot_pass_rate(self, **kwargs)

    def plot_latency(self, **kwargs: Any) -> Any:
        """A Plotly figure of check durations (see ``giskard_nb.charts.plot_latency``)."""
        from giskard_nb.charts import plot_latency

        return plot_latency(self, **{"level": "checks", **kwargs})

    def __repr__(self) -> str:
        return (
            f"<ScenarioResult {self.scenario_name!r} {self.status.value.upper()} "
            f"steps={len(self.steps)} {self.duration_ms:.0f} ms>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import safe_html, scenario_html

        return safe_html(scenario_html, self)
