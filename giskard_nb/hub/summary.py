"""Pass rates of an evaluation: overall, per check, per failure category and per tag, each with its
95 % interval, and per test case over its repeats (pass^k, pass@k, flaky).

Every pass rate here is ``giskard_nb.core.pass_rate``'s: passed / (passed + failed + errored), skips left
out, ``None`` when nothing was judged ("all results errored"). Skipped test cases (no checks, or every
check skipped) are counted and listed with their reason. The intervals are Wilson's when every test case
has one result and the seeded bootstrap over cases when some has several (``hub.summary_cases``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.reasons import case_reason
from giskard_nb.core.testcase import NO_CHECKS
from giskard_nb.core.usage import USAGE_METRICS, Usage
from giskard_nb.hub.summary_cases import CaseStats, RepeatTally, case_label
from giskard_nb.hub.upload_columns import NO_CHECK_ADVICE
from giskard_nb.stats.intervals import Interval

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CaseStats",
    "CategoryCount",
    "CheckStats",
    "EvaluationSummary",
    "SkippedCase",
    "summarize",
]

#: What the summary says about test cases that have no checks.
NO_CHECKS_ADVICE = f"add checks to judge them: {NO_CHECK_ADVICE}"


class CheckStats(BaseModel):
    """Outcomes of one check (by name) across an evaluation; ``pass_rate`` ignores skipped runs."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: str | None = None
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    #: The 95 % interval of ``pass_rate`` (None when nothing was judged).
    interval: Interval | None = None

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored

    @property
    def rate(self) -> PassRate:
        return PassRate(self.passed, self.failed, self.errored, self.skipped)

    @property
    def pass_rate(self) -> float | None:
        return self.rate.value


class CategoryCount(BaseModel):
    model_config = ConfigDict(frozen=True)

    identifier: str
    title: str
    count: int
    share: float  # of the failed results
    #: The 95 % interval of ``share``.
    share_interval: Interval | None = None


class SkippedCase(BaseModel):
    """A test case whose result is SKIP, and why (``"no checks"``, or the first skip message)."""

    model_config = ConfigDict(frozen=True)

    test_case_id: str
    label: str
    reason: str


class EvaluationSummary(BaseModel):
    """Totals, pass rate (passed / (passed + failed + errored), see ``giskard_nb.core.pass_rate``),
    per-check and per-category figures, the skipped test cases, and usage."""

    model_config = ConfigDict(frozen=True)

    evaluation_id: str
    name: str
    total: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    missing: int = 0
    by_check: list[CheckStats] = Field(default_factory=list)
    by_category: list[CategoryCount] = Field(default_factory=list)
    by_tag: dict[str, dict[str, int]] = Field(default_factory=dict)
    skipped_cases: list[SkippedCase] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    #: How many times each test case was to run (the evaluation's ``repeats``).
    repeats: int = 1
    #: The 95 % interval of ``pass_rate``; ``interval.method``: "wilson" or "bootstrap" (over cases).
    interval: Interval | None = None
    #: The 95 % interval of each tag's pass rate (keys as ``by_tag``).
    tag_intervals: dict[str, Interval | None] = Field(default_factory=dict)
    #: Each test case over its runs, in the order they were first stored.
    cases: list[CaseStats] = Field(default_factory=list)
    #: Test cases whose every run passed (pass^k), at least one passed (pass@k), and flaky ones.
    n_pass_all: int = 0
    n_pass_any: int = 0
    n_flaky: int = 0

    @property
    def runs_per_case(self) -> int:
        """The ``k`` of pass^k: the evaluation's ``repeats``, or more if a case has more results."""
        return max([self.repeats, *(c.runs for c in self.cases)])

    @property
    def flaky_cases(self) -> list[CaseStats]:
        """The test cases whose runs disagree (some passed, some failed or errored)."""
        return [c for c in self.cases if c.flaky]

    @property
    def rate(self) -> PassRate:
        """The counts behind ``pass_rate`` and its wording (``rate.text()``)."""
        return PassRate(self.passed, self.failed, self.errored, self.skipped)

    @property
    def pass_rate(self) -> float | None:
        return self.rate.value

    @property
    def no_checks(self) -> list[SkippedCase]:
        """The skipped test cases that have no (enabled) check."""
        return [c for c in self.skipped_cases if c.reason == NO_CHECKS]

    def to_dataframe(
        self, by: Literal["check", "category", "tag", "case"] = "check"
    ) -> pd.DataFrame:
        """Per-check (default), per-failure-category, per-tag or per-test-case (``by="case"``)
        figures as a DataFrame, with the 95 % intervals (``pass_rate_low``, ``pass_rate_high``,
        ``interval_method``; a category's ``share_low``, ``share_high``)."""
        import pandas as pd

        from giskard_nb.frames.rates import hub_cases_frame

        if by not in ("check", "category", "tag", "case"):
            from giskard_nb.errors import GiskardValidationError

            raise GiskardValidationError(
                f"by must be 'check', 'category', 'tag' or 'case', got {by!r}"
            )
        if by == "case":
            return hub_cases_frame(self.cases)
        bounds = ["pass_rate_low", "pass_rate_high", "interval_method"]
        if by == "check":
            rows: list[dict[str, Any]] = [
                {
                    **c.model_dump(exclude={"interval"}),
                    "total": c.total,
                    "pass_rate": c.pass_rate,
                    **_bounds(c.interval),
                }
                for c in self.by_check
            ]
            columns = ["name", "kind", "total", "passed", "failed", "errored", "skipped"]
            return _typed(pd.DataFrame(rows, columns=[*columns, "pass_rate", *bounds]))
        if by == "category":
            rows = [
                {
                    **c.model_dump(exclude={"share_interval"}),
                    **_bounds(c.share_interval, "share"),
                }
                for c in self.by_category
            ]
            columns = ["identifier", "title", "count", "share", "share_low", "share_high"]
            return _typed(pd.DataFrame(rows, columns=columns))
        rows = [
            {
                "tag": tag,
                **counts,
                "pass_rate": PassRate.from_counts(counts).value,
                **_bounds(self.tag_intervals.get(tag)),
            }
            for tag, counts in sorted(self.by_tag.items())
        ]
        columns = ["tag", "pass", "fail", "error", "skip", "pass_rate", *bounds]
        return _typed(pd.DataFrame(rows, columns=columns))

    def __str__(self) -> str:
        lines = [
            f"Evaluation {self.name!r}: {self.total} results ({self.passed} passed, {self.failed} "
            f"failed, {self.errored} errored, {self.skipped} skipped"
            + (f", {self.missing} not run yet" if self.missing else "")
            + f"), {self.rate.text(interval=self.interval)}"
        ]
        if self.runs_per_case > 1:
            k = self.runs_per_case
            lines.append(
                f"  Repeats: {k} per case; pass^{k} {self.n_pass_all}/{len(self.cases)} cases, "
                f"pass@{k} {self.n_pass_any}/{len(self.cases)}, {self.n_flaky} flaky"
            )
            lines.extend(
                f"    - flaky: {c.label} ({c.passed}/{c.runs} passed)"
                for c in self.flaky_cases[:20]
            )
            if self.n_flaky > 20:
                lines.append(f"    … and {self.n_flaky - 20} more flaky")
        if self.by_check:
            lines.append("  Checks:")
            width = max(len(c.name) for c in self.by_check)
            for c in self.by_check:
                pr = c.rate.percent()
                shown = f" [{c.interval.low:.0%}–{c.interval.high:.0%}]" if c.interval else ""
                lines.append(
                    f"    {c.name:<{width}}  {pr:>4}{shown}  ({c.passed}/{c.total} passed"
                    + (f", {c.errored} errors" if c.errored else "")
                    + ")"
                )
        if self.skipped_cases:
            lines.append(f"  Skipped (not judged): {len(self.skipped_cases)}")
            if self.no_checks:
                lines.append(f"    {len(self.no_checks)} with no checks: {NO_CHECKS_ADVICE}")
            lines.extend(f"    - {c.label} ({c.reason})" for c in self.skipped_cases[:20])
            if len(self.skipped_cases) > 20:
                lines.append(f"    … and {len(self.skipped_cases) - 20} more")
        if self.by_category:
            lines.append("  Failure categories:")
            for cat in self.by_category:
                lines.append(f"    {cat.title} ({cat.identifier}): {cat.count} ({cat.share:.0%})")
        if self.usage.llm_calls:
            lines.append(
                f"  LLM usage: {self.usage.llm_calls} calls, {self.usage.total_tokens} tokens, "
                f"${self.usage.cost_usd:.4f}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<EvaluationSummary {self.name!r} {self.total} results, {self.rate.text()}>"

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import safe_html, summary_html

        return safe_html(summary_html, self)


def summarize(
    evaluation: Any, rows: Iterable[dict[str, Any]], n_test_cases: int | None = None
) -> EvaluationSummary:
    """An ``EvaluationSummary`` from stored result rows (plain JSON dicts, see ``iter_raw``)."""
    statuses = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    checks: dict[str, dict[str, Any]] = {}
    categories: dict[str, tuple[str, int]] = {}
    tags: dict[str, dict[str, int]] = {}
    usage = dict.fromkeys(USAGE_METRICS, 0.0)
    skipped: list[SkippedCase] = []
    tally = RepeatTally()
    for row in rows:
        tally.add(row)
        status = row["status"]
        if status == "skip":
            skipped.append(_skipped_case(row))
        statuses[status] = statuses.get(status, 0) + 1
        for tag in row.get("tags") or []:
            tags.setdefault(tag, {"pass": 0, "fail": 0, "error": 0, "skip": 0})[status] += 1
        for check in row.get("checks") or []:
            entry = checks.setdefault(
                check["name"], {"name": check["name"], "kind": check.get("kind"), "counts": {}}
            )
            entry["counts"][check["status"]] = entry["counts"].get(check["status"], 0) + 1
        category = row.get("failure_category")
        if status == "fail" and category:
            title, count = categories.get(category["identifier"], (category["title"], 0))
            categories[category["identifier"]] = (title, count + 1)
        for key, value in (row.get("usage") or {}).items():
            if key in usage:
                usage[key] += value or 0
    failed = statuses["fail"]
    total = sum(statuses.values())
    repeats = int(getattr(evaluation, "repeats", 1) or 1)
    cases = tally.cases()
    check_intervals = tally.by_check(
        {name: PassRate.from_counts(e["counts"]) for name, e in checks.items()}
    )
    tag_intervals = tally.by_tag({tag: PassRate.from_counts(c) for tag, c in tags.items()})
    return EvaluationSummary(
        evaluation_id=evaluation.id,
        name=evaluation.name,
        total=total,
        passed=statuses["pass"],
        failed=failed,
        errored=statuses["error"],
        skipped=statuses["skip"],
        missing=max((n_test_cases or 0) * repeats - total, 0),
        by_check=[
            CheckStats(
                name=e["name"],
                kind=e["kind"],
                passed=e["counts"].get("pass", 0),
                failed=e["counts"].get("fail", 0),
                errored=e["counts"].get("error", 0),
                skipped=e["counts"].get("skip", 0),
                interval=check_intervals.get(e["name"]),
            )
            for e in checks.values()
        ],
        by_category=sorted(
            (
                CategoryCount(
                    identifier=ident,
                    title=title,
                    count=count,
                    share=count / failed if failed else 0,
                    share_interval=tally.category_share(ident, count, failed),
                )
                for ident, (title, count) in categories.items()
            ),
            key=lambda c: (-c.count, c.identifier),
        ),
        by_tag=tags,
        skipped_cases=skipped,
        usage=Usage(**{k: (int(v) if k != "cost_usd" else v) for k, v in usage.items()}),
        repeats=repeats,
        interval=tally.overall(),
        tag_intervals={str(k): v for k, v in tag_intervals.items()},
        cases=cases,
        n_pass_all=sum(c.pass_all for c in cases),
        n_pass_any=sum(c.pass_any for c in cases),
        n_flaky=sum(c.flaky for c in cases),
    )


def _skipped_case(row: dict[str, Any]) -> SkippedCase:
    reason = row.get("reason") or case_reason(
        "skip",
        checks=[
            (c.get("name"), c.get("status"), c.get("message")) for c in row.get("checks") or []
        ],
    )
    return SkippedCase(
        test_case_id=row["test_case_id"], label=case_label(row), reason=str(reason)[:300]
    )


def _bounds(stored: Interval | None, prefix: str = "pass_rate") -> dict[str, Any]:
    """``{prefix}_low``, ``{prefix}_high`` (and for a pass rate ``interval_method``) of an interval."""
    out: dict[str, Any] = {
        f"{prefix}_low": stored.low if stored else None,
        f"{prefix}_high": stored.high if stored else None,
    }
    if prefix == "pass_rate":
        out["interval_method"] = stored.method if stored else None
    return out


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """Rates and bounds as floats (NaN when missing), the method as text."""
    for column in (
        "pass_rate",
        "pass_rate_low",
        "pass_rate_high",
        "share",
        "share_low",
        "share_high",
    ):
        if column in df.columns:
            df[column] = df[column].astype(float)
    if "interval_method" in df.columns:
        df["interval_method"] = df["interval_method"].astype("string")
    return df
