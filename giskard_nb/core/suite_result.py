"""SuiteResult (all scenario results of a suite run), with per-tag grouping and JUnit export."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, computed_field

from giskard_nb.core.generic import Parametrizable, Params
from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.usage import Usage

__all__ = ["GroupStats", "GroupedSuiteResult", "SuiteResult"]


class GroupStats(BaseModel):
    """Counts of one group of scenarios (one tag value)."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str | None
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0

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


class SuiteResult(Parametrizable[*Params], BaseModel):
    """Every ScenarioResult of a suite run, in the order the scenarios were given."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str = "Suite"
    results: list[ScenarioResult] = Field(default_factory=list)
    duration_ms: float = 0.0

    _counts: dict[CheckStatus, int] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self._counts = dict(Counter(r.status for r in self.results))

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
        buckets: dict[str | None, dict[str, int]] = {}
        for r in self.results:
            values = {_tag_value(t, key) for t in r.tags} - {None} or {None}
            for v in values:
                counts = buckets.setdefault(
                    v, {"passed": 0, "failed": 0, "errored": 0, "skipped": 0}
                )
                counts[
                    {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}[
                        r.status.value
                    ]
                ] += 1
        groups = {k: GroupStats(name=k, **v) for k, v in buckets.items()}
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
        """A pandas DataFrame: one row per scenario (``level="scenarios"``), or per ``"checks"`` (long
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
            f"<SuiteResult {self.name!r} {len(self.results)} scenarios: {self.passed_count} passed, "
            f"{self.failed_count} failed, {self.errored_count} errored, {self.skipped_count} skipped "
            f"({self.rate.text()})>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import safe_html, suite_html

        return safe_html(suite_html, self)


def _tag_value(tag: str, key: str) -> str | None:
    name, sep, value = tag.partition(":")
    if name.strip() != key:
        return None
    return value.strip() if sep else "true"


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
