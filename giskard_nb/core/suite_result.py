"""SuiteResult (all scenario results of a suite run), with per-tag grouping and JUnit export."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, computed_field

from giskard_nb.core.generic import Parametrizable, Params
from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.repeats import CaseSummary, GroupRate, case_summaries, compare_runs, rates_by
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.sync import sync_twin
from giskard_nb.core.usage import Usage

if TYPE_CHECKING:
    from giskard_nb.core.check import Check
    from giskard_nb.core.scenario import Scenario
    from giskard_nb.stats.intervals import Interval
    from giskard_nb.stats.paired import PairedTest

__all__ = ["GroupStats", "GroupedSuiteResult", "SuiteResult"]


class GroupStats(BaseModel):
    """Counts of one group of scenarios (one tag value), with the 95 % interval of its pass rate."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str | None
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    pass_rate_low: float | None = None
    pass_rate_high: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.skipped

    @property
    def rate(self) -> PassRate:
        return PassRate(self.passed, self.failed, self.errored, self.skipped)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed + errored); None when nothing was judged (see ``PassRate``)."""
        return self.rate.value

    @property
    def interval(self) -> Interval | None:
        """The 95 % interval of ``pass_rate`` (None when there is none)."""
        if self.pass_rate_low is None or self.pass_rate_high is None:
            return None
        from giskard_nb.stats.intervals import Interval

        return Interval(self.pass_rate_low, self.pass_rate_high)


class SuiteResult(Parametrizable[*Params], BaseModel):
    """Every ScenarioResult of a suite run, in the order the scenarios were given (with
    ``repeats=k``, the k runs of each scenario in a row, each with its ``case_index`` and ``repeat``).

    Pass rates count every run; ``pass_rate_interval()`` is their 95 % interval (Wilson for one run of
    each case, the bootstrap over cases for repeats); ``cases`` gives pass^k, pass@k, the pass
    fraction and a ``flaky`` flag per case; ``compare(other)`` says whether a change is larger than
    the noise; ``rescore(checks=..., generator=...)`` re-runs checks on the stored traces."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str = "Suite"
    results: list[ScenarioResult] = Field(default_factory=list)
    duration_ms: float = 0.0
    repeats: int = 1

    _counts: dict[CheckStatus, int] = PrivateAttr(default_factory=dict)
    _scenarios: list[Scenario] | None = PrivateAttr(default=None)
    _intervals: dict[float, Interval | None] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self._counts = dict(Counter(r.status for r in self.results))
        self._intervals = {}

    def model_copy(
        self, *, update: dict[str, Any] | None = None, deep: bool = False
    ) -> SuiteResult:
        copy = super().model_copy(update=update, deep=deep)
        if update:
            copy.model_post_init(None)
        return copy

    def _count(self, status: CheckStatus) -> int:
        return self._counts.get(status, 0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed_count(self) -> int:
        return self._count(CheckStatus.PASS)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed_count(self) -> int:
        return self._count(CheckStatus.FAIL)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def errored_count(self) -> int:
        return self._count(CheckStatus.ERROR)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def skipped_count(self) -> int:
        return self._count(CheckStatus.SKIP)

    @property
    def rate(self) -> PassRate:
        """The counts behind ``pass_rate``, and its wording (``rate.text()``)."""
        return PassRate(
            self.passed_count, self.failed_count, self.errored_count, self.skipped_count
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed + errored): skips left out, errors count as not passed; None
        when nothing was judged (no scenario, only skips, or every scenario errored)."""
        return self.rate.value

    def pass_rate_interval(self, confidence: float = 0.95) -> Interval | None:
        """The interval of ``pass_rate``: Wilson's when each case ran once, the seeded bootstrap over
        cases with repeats; None when there is no rate."""
        if confidence not in self._intervals:  # computed once: the repr, report and HTML show it
            found = rates_by(self.results, confidence=confidence) if self.results else []
            self._intervals[confidence] = found[0].interval if found else None
        return self._intervals[confidence]

    def pass_rates(self, *, by: str = "check", tag_key: str | None = None) -> list[GroupRate]:
        """The pass rate with its 95 % interval per ``"check"``, per ``"tag"`` (the values of
        ``tag_key``, or whole tags) or ``"overall"``; ``pass_rates_frame`` for a DataFrame."""
        return rates_by(self.results, by=by, tag_key=tag_key)

    def pass_rates_frame(self, *, by: str = "check", tag_key: str | None = None) -> Any:
        """``pass_rates`` as a pandas DataFrame (``group``, counts, ``pass_rate``, ``pass_rate_low``,
        ``pass_rate_high``, ``interval_method``)."""
        from giskard_nb.frames import rates_frame

        return rates_frame(self.pass_rates(by=by, tag_key=tag_key), by=by)

    @property
    def cases(self) -> list[CaseSummary]:
        """One summary per case: runs, pass fraction, pass^k (``pass_all``), pass@k (``pass_any``),
        ``flaky``."""
        return case_summaries(self.results)

    @property
    def pass_hat_k(self) -> float | None:
        """pass^k: the share of cases whose every run passed (None without cases)."""
        cases = self.cases
        return sum(c.pass_all for c in cases) / len(cases) if cases else None

    @property
    def pass_at_k(self) -> float | None:
        """pass@k: the share of cases where at least one run passed (None without cases)."""
        cases = self.cases
        return sum(c.pass_any for c in cases) / len(cases) if cases else None

    @property
    def flaky(self) -> list[CaseSummary]:
        """The cases whose runs disagree."""
        return [c for c in self.cases if c.flaky]

    def compare(self, other: SuiteResult, *, confidence: float = 0.95) -> PairedTest:
        """How ``other`` (the newer run) does against this one, case by case: the exact sign test
        on the cases whose pass fraction changed; ``str()`` says it in words."""
        return compare_runs(
            self.results,
            other.results,
            old_name=self.name,
            new_name=other.name if other.name != self.name else f"{other.name} (new)",
            confidence=confidence,
        )

    @property
    def scenarios(self) -> list[Scenario] | None:
        """The scenarios that produced this result (set by ``Suite.run``; None for a result that was
        loaded or built): what ``rescore()`` re-runs when given no checks."""
        return self._scenarios

    async def rescore(
        self,
        checks: list[Check] | None = None,
        *,
        generator: Any = None,
        name: str | None = None,
        max_concurrency: int = 10,
    ) -> SuiteResult:
        """Re-run checks on the stored traces, without calling the agent: ``checks`` on each final
        trace, or (None) the suite's own checks, step by step; ``generator`` replaces the judge of
        every LLM check; ``name`` names the new result. See ``giskard_nb.core.rescore``."""
        from giskard_nb.core.rescore import rescore_suite

        rescored = await rescore_suite(
            self, checks, generator=generator, max_concurrency=max_concurrency
        )
        return rescored if name is None else rescored.model_copy(update={"name": name})

    rescore_sync = sync_twin(rescore)

    @property
    def passed(self) -> bool:
        """True when no scenario failed or errored."""
        return self.failed_count == 0 and self.errored_count == 0

    @property
    def failures(self) -> list[ScenarioResult]:
        """Scenarios that failed or errored."""
        return [r for r in self.results if r.status in (CheckStatus.FAIL, CheckStatus.ERROR)]

    failures_and_errors = failures

    @property
    def usage(self) -> Usage:
        """Tokens and cost of every LLM call made by the checks, summed."""
        return Usage.from_results(c for r in self.results for c in r.check_results)

    def group_by(self, key: str) -> GroupedSuiteResult:
        """Counts per value of tag ``key`` (tags ``"key:value"``; a bare ``"key"`` tag counts as "true")."""
        groups = {}
        for g in rates_by(self.results, by="tag", tag_key=key):
            low, high = (g.interval.low, g.interval.high) if g.interval else (None, None)
            groups[g.name] = GroupStats(
                name=g.name,
                passed=g.rate.passed,
                failed=g.rate.failed,
                errored=g.rate.errored,
                skipped=g.rate.skipped,
                pass_rate_low=low,
                pass_rate_high=high,
            )
        return GroupedSuiteResult(suite_result=self, key=key, groups=groups)

    def assert_passed(self) -> None:
        """Raise AssertionError listing every failing scenario and why; also when scenarios ran but
        none passed because every one was skipped (no checks, or every check skipped)."""
        if self.results and self.skipped_count == len(self.results):
            reasons = sorted({r.skip_reason or "skipped" for r in self.results})
            raise AssertionError(
                f"nothing passed: all {len(self.results)} scenarios were skipped ({'; '.join(reasons)})"
            )
        if self.passed:
            return
        lines = []
        for r in self.failures:
            lines.append(f"- {r.scenario_name} ({r.status.value.upper()})")
            lines.extend(f"    {line}" for line in r.format_failures())
        raise AssertionError(
            f"{len(self.failures)} of {len(self.results)} scenarios did not pass:\n"
            + "\n".join(lines)
        )

    def to_junit_xml(self, path: str | Path | None = None) -> str:
        """JUnit XML (one testcase per scenario); written to ``path`` when given (atomically: a
        failure leaves the previous report as it was)."""
        from giskard_nb.core.files import write_text_atomic
        from giskard_nb.core.junit import suite_to_junit

        xml = suite_to_junit(self)
        if path is not None:
            write_text_atomic(path, xml)
        return xml

    def to_hub_format(self) -> dict[str, Any]:
        """This result as plain JSON data (fields and computed counts; ``pass_rate`` None when
        nothing was judged), the payload of a Hub upload. Values JSON cannot hold are made safe."""
        from giskard_nb.core.sanitize import to_safe_data

        return self.model_dump(mode="json", fallback=to_safe_data)

    def print_report(self, file: TextIO | None = None, group_by: str | None = None) -> None:
        from giskard_nb.core.render import suite_report

        print(suite_report(self, group_by=group_by), file=file or sys.stdout)

    # -- DataFrames and charts (pandas/plotly are imported only when these are called) ---------------

    def to_dataframe(self, *, level: str = "scenarios") -> Any:
        """A pandas DataFrame: one row per scenario run (``level="scenarios"``), or per ``"cases"``
        (a scenario over its repeats, with ``pass_rate_low``/``pass_rate_high``), ``"checks"`` (long
        format), ``"steps"`` or ``"interactions"``; columns documented in ``giskard_nb.frames.results``."""
        from giskard_nb.frames import to_dataframe

        return to_dataframe(self, level=level)

    def plot_pass_rate(self, *, by: str = "check", tag_key: str | None = None) -> Any:
        """A Plotly figure: status counts and pass rate per ``"check"``, ``"check_kind"``, ``"tag"``
        (only the values of ``tag_key`` when given) or ``"scenario"``."""
        from giskard_nb.charts import plot_pass_rate

        return plot_pass_rate(self, by=by, tag_key=tag_key)

    def plot_latency(self, *, level: str = "scenarios") -> Any:
        """A Plotly figure: scenario durations by status, or per check (``level="checks"``)."""
        from giskard_nb.charts import plot_latency

        return plot_latency(self, level=level)

    def plot_cost(self) -> Any:
        """A Plotly figure: LLM cost (or tokens) per scenario, from the checks' usage metrics."""
        from giskard_nb.charts import plot_cost

        return plot_cost(self)

    def __repr__(self) -> str:
        return (
            f"<SuiteResult {self.name!r} {self._size()}: {self.passed_count} passed, "
            f"{self.failed_count} failed, {self.errored_count} errored, {self.skipped_count} skipped "
            f"({self.rate.text(interval=self.pass_rate_interval())}){self.repeats_note()}>"
        )

    __str__ = __repr__

    def _size(self) -> str:
        """``"20 scenarios"``, or ``"100 runs (20 scenarios × 5 repeats)"`` with repeats."""
        if self.repeats <= 1:
            return f"{len(self.results)} scenarios"
        return f"{len(self.results)} runs ({len(self.cases)} scenarios × {self.repeats} repeats)"

    def repeats_note(self) -> str:
        """``" | 3 repeats: pass^k 60%, pass@k 90%, 2 flaky"`` for a run with repeats, else ``""``."""
        if self.repeats <= 1:
            return ""
        hat, at = self.pass_hat_k, self.pass_at_k
        return (
            f" | {self.repeats} repeats: pass^k {_pct(hat)}, pass@k {_pct(at)}, "
            f"{len(self.flaky)} flaky"
        )

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import safe_html, suite_html

        return safe_html(suite_html, self)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


class GroupedSuiteResult(BaseModel):
    """A SuiteResult's counts per value of one tag key."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    suite_result: SuiteResult
    key: str
    groups: dict[str | None, GroupStats]

    def __repr__(self) -> str:
        rows = ", ".join(
            f"{k or '(untagged)'}: {g.passed}/{g.total - g.skipped}" for k, g in self.groups.items()
        )
        return f"<GroupedSuiteResult by {self.key!r}: {rows}>"

    def print_report(self, file: TextIO | None = None) -> None:
        self.suite_result.print_report(file=file, group_by=self.key)
