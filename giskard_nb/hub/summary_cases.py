"""The test cases of a Hub evaluation over their repeats, and the 95 % intervals of its pass rates.

A *case* is one test case: its stored results share a ``test_case_id`` (with ``repeats=k`` it has up to
k of them, ``repeat`` 0…k-1). Per case: the counts of its run statuses, its pass fraction with Wilson's
interval over its runs, pass^k (every run passed), pass@k (at least one passed) and whether it is flaky
(core ``CaseSummary``). Pooled rates (overall, per check, per tag, a failure category's share of the
failures) get Wilson's interval when every case has one result and the seeded bootstrap over cases
when some case has several (core ``group_rates`` / ``rate_interval``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from giskard_nb.core.pass_rate import PassRate, rate_interval
from giskard_nb.core.repeats import CaseSummary, GroupRate, group_rates
from giskard_nb.stats.intervals import Interval

__all__ = ["CaseStats", "RateInterval", "RepeatTally", "case_label", "case_stats"]


class RateInterval(BaseModel):
    """A stored confidence interval of a rate: ``[low, high]`` at ``confidence``, by ``method``
    (``"wilson"``, or ``"bootstrap"`` over cases)."""

    model_config = ConfigDict(frozen=True)

    low: float
    high: float
    confidence: float = 0.95
    method: str = "wilson"

    @classmethod
    def of(cls, interval: Interval | None) -> RateInterval | None:
        if interval is None:
            return None
        return cls(
            low=interval.low,
            high=interval.high,
            confidence=interval.confidence,
            method=interval.method,
        )

    def to_interval(self) -> Interval:
        return Interval(self.low, self.high, self.confidence, self.method)

    def text(self, digits: int = 0) -> str:
        """``"95% CI 63%–80%"``."""
        return self.to_interval().text(digits)


class CaseStats(BaseModel):
    """One test case over its runs (see the module docstring); ``low``/``high``: Wilson's 95 %
    interval of ``pass_fraction`` over its runs (None when nothing was judged)."""

    model_config = ConfigDict(frozen=True)

    test_case_id: str
    label: str
    runs: int
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    pass_fraction: float | None = None
    low: float | None = None
    high: float | None = None
    pass_all: bool = False
    pass_any: bool = False
    flaky: bool = False

    @classmethod
    def of(cls, test_case_id: str, label: str, case: CaseSummary) -> CaseStats:
        interval = case.interval()
        return cls(
            test_case_id=test_case_id,
            label=label,
            runs=case.runs,
            passed=case.rate.passed,
            failed=case.rate.failed,
            errored=case.rate.errored,
            skipped=case.rate.skipped,
            pass_fraction=case.pass_fraction,
            low=interval.low if interval else None,
            high=interval.high if interval else None,
            pass_all=case.pass_all,
            pass_any=case.pass_any,
            flaky=case.flaky,
        )


def case_label(row: dict[str, Any]) -> str:
    """A test case's label: its last user message (else its id), clipped to 120 characters."""
    messages = row.get("messages") or []
    question = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
    label = str(question or row["test_case_id"])
    return label if len(label) <= 120 else label[:119] + "…"


class RepeatTally:
    """Statuses per test case, per check and per tag, and failure categories per case, collected
    row by row (``add``); then the cases and the interval of every pooled rate."""

    def __init__(self) -> None:
        self.statuses: dict[str, list[str]] = {}
        self.labels: dict[str, str] = {}
        self.checks: dict[str, dict[str | None, list[str]]] = {}
        self.tags: dict[str, dict[str | None, list[str]]] = {}
        self.categories: dict[str, dict[str, int]] = {}

    def add(self, row: dict[str, Any]) -> None:
        tc, status = row["test_case_id"], row["status"]
        if tc not in self.statuses:
            self.statuses[tc] = []
            self.labels[tc] = case_label(row)
            self.checks[tc], self.tags[tc], self.categories[tc] = {}, {}, {}
        self.statuses[tc].append(status)
        for tag in row.get("tags") or []:
            self.tags[tc].setdefault(tag, []).append(status)
        for check in row.get("checks") or []:
            self.checks[tc].setdefault(check["name"], []).append(check["status"])
        category = row.get("failure_category")
        if status == "fail":
            ident = category["identifier"] if category else ""
            self.categories[tc][ident] = self.categories[tc].get(ident, 0) + 1

    @property
    def repeated(self) -> bool:
        """Whether some test case has several results (then intervals bootstrap over cases)."""
        return any(len(s) > 1 for s in self.statuses.values())

    def cases(self) -> list[CaseStats]:
        return [
            CaseStats.of(tc, self.labels[tc], CaseSummary(i, tc, len(s), PassRate.from_statuses(s)))
            for i, (tc, s) in enumerate(self.statuses.items())
        ]

    def overall(self) -> RateInterval | None:
        rates = [PassRate.from_statuses(s) for s in self.statuses.values()]
        return RateInterval.of(rate_interval(rates, repeated=self.repeated))

    def by_check(self) -> dict[str | None, RateInterval | None]:
        return _intervals(group_rates(self.checks.values(), repeated=self.repeated))

    def by_tag(self) -> dict[str | None, RateInterval | None]:
        return _intervals(group_rates(self.tags.values(), repeated=self.repeated))

    def category_share(self, identifier: str) -> RateInterval | None:
        """The interval of a category's share of the failed results (its failures "pass", the
        other failures "fail", per case)."""
        shares = []
        for counts in self.categories.values():
            mine = counts.get(identifier, 0)
            shares.append(PassRate(passed=mine, failed=sum(counts.values()) - mine))
        return RateInterval.of(rate_interval(shares, repeated=self.repeated))


def _intervals(groups: list[GroupRate]) -> dict[str | None, RateInterval | None]:
    return {g.name: RateInterval.of(g.interval) for g in groups}


def case_stats(rows: Iterable[dict[str, Any]]) -> list[CaseStats]:
    """A ``CaseStats`` per test case of result rows (``test_case_id``, ``status``, ``messages``), in
    the order test cases first appear."""
    tally = RepeatTally()
    for row in rows:
        tally.add(row)
    return tally.cases()
