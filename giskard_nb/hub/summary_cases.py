"""The test cases of a Hub evaluation over their repeats, and the 95 % intervals of its pass rates.

A *case* is one test case: its stored results share a ``test_case_id`` (with ``repeats=k`` it has up to
k of them, ``repeat`` 0…k-1). Per case: the counts of its run statuses, its pass fraction with Wilson's
interval over its runs, pass^k (every run passed), pass@k (at least one passed) and whether it is flaky
(core ``CaseSummary``). Pooled rates (overall, per check, per tag, a failure category's share of the
failures) get Wilson's interval when every case has one result and the seeded bootstrap over cases
when some case has several (core ``group_rates`` / ``rate_interval``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from giskard_nb.core.pass_rate import PassRate, rate_interval
from giskard_nb.core.repeats import CaseSummary, GroupRate, group_rates
from giskard_nb.stats.intervals import Interval

__all__ = ["CaseStats", "RepeatTally", "case_label", "case_stats"]


@dataclass(frozen=True, slots=True)
class CaseStats:
    """One test case over its runs (see the module docstring); ``low``/``high``: Wilson's 95 %
    interval of ``pass_fraction`` over its runs (None when nothing was judged). A plain dataclass:
    an evaluation has one per test case, built fast."""

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
    def of(cls, test_case_id: str, label: str, counts: tuple[int, int, int, int]) -> CaseStats:
        """From a case's (passed, failed, errored, skipped) counts over its runs (the figures of
        core's ``CaseSummary``, computed once per distinct counts)."""
        return cls(test_case_id, label, *_figures(*counts))


@lru_cache(maxsize=4096)
def _figures(passed: int, failed: int, errored: int, skipped: int) -> tuple[Any, ...]:
    rate = PassRate(passed, failed, errored, skipped)
    case = CaseSummary(0, "", passed + failed + errored + skipped, rate)
    interval = case.interval()
    return (
        case.runs,
        passed,
        failed,
        errored,
        skipped,
        case.pass_fraction,
        interval.low if interval else None,
        interval.high if interval else None,
        case.pass_all,
        case.pass_any,
        case.flaky,
    )


def case_label(row: dict[str, Any]) -> str:
    """A test case's label: its last user message (else its id), clipped to 120 characters."""
    question = None
    for m in reversed(row.get("messages") or ()):
        if m.get("role") == "user":
            question = m.get("content")
            break
    label = str(question or row["test_case_id"])
    return label if len(label) <= 120 else label[:119] + "…"


_STATUS_INDEX = {"pass": 0, "fail": 1, "error": 2, "skip": 3}

#: One stored result as the tally keeps it: test case, status, (check name, status) pairs, tags and
#: failure category identifier ("" for an uncategorized failure, None when it did not fail).
_Run = tuple[str, str, tuple[tuple[str, str], ...], tuple[str, ...], str | None]


class RepeatTally:
    """Each test case's status counts and label, and a compact copy of every result (``add``, row by
    row); then the cases and the interval of every pooled rate. One result per case: Wilson's
    interval of the pooled counts; several: the bootstrap over cases from each case's statuses."""

    def __init__(self) -> None:
        self._cases: dict[str, list[Any]] = {}  # test case id -> [label, passed, failed, ...]
        self._runs: list[_Run] = []

    def add(self, row: dict[str, Any]) -> None:
        tc, status = row["test_case_id"], row["status"]
        case = self._cases.get(tc)
        if case is None:
            case = self._cases[tc] = [case_label(row), 0, 0, 0, 0]
        case[1 + _STATUS_INDEX.get(status, 3)] += 1
        category = row.get("failure_category") if status == "fail" else None
        self._runs.append(
            (
                tc,
                status,
                tuple((c["name"], c["status"]) for c in row.get("checks") or ()),
                tuple(row.get("tags") or ()),
                (category or {}).get("identifier", "") if status == "fail" else None,
            )
        )

    @property
    def repeated(self) -> bool:
        """Whether some test case has several results (then intervals bootstrap over cases)."""
        return len(self._runs) > len(self._cases)

    def cases(self) -> list[CaseStats]:
        return [
            CaseStats.of(tc, label, tuple(counts))  # type: ignore[arg-type]
            for tc, (label, *counts) in self._cases.items()
        ]

    def overall(self) -> Interval | None:
        if not self.repeated:  # Wilson's interval of the pooled counts
            total = [sum(c) for c in zip(*(case[1:] for case in self._cases.values()), strict=True)]
            return PassRate(*total).interval() if total else None
        rates = [PassRate(*counts) for _, *counts in self._cases.values()]
        return rate_interval(rates, repeated=True)

    def by_check(self, pooled: dict[str, PassRate]) -> dict[str | None, Interval | None]:
        """Per check name; ``pooled``: each check's counts over every result."""
        return self._groups(pooled, lambda run: [(name, st) for name, st in run[2]])

    def by_tag(self, pooled: dict[str, PassRate]) -> dict[str | None, Interval | None]:
        """Per tag; ``pooled``: each tag's counts over every result."""
        return self._groups(pooled, lambda run: [(tag, run[1]) for tag in run[3]])

    def _groups(
        self, pooled: dict[str, PassRate], statuses: Any
    ) -> dict[str | None, Interval | None]:
        if not self.repeated:
            return {name: rate.interval() for name, rate in pooled.items()}
        per_case: dict[str, dict[str | None, list[str]]] = {}
        for run in self._runs:
            groups = per_case.setdefault(run[0], {})
            for name, status in statuses(run):
                groups.setdefault(name, []).append(status)
        return _intervals(group_rates(per_case.values(), repeated=True))

    def category_share(self, identifier: str, count: int, failed: int) -> Interval | None:
        """The interval of a category's share (``count`` of the ``failed`` results): its failures
        "pass", the other failures "fail" (per case with repeats)."""
        if not self.repeated:
            return PassRate(count, failed - count).interval()
        shares: dict[str, list[int]] = {}
        for tc, _, _, _, ident in self._runs:
            if ident is not None:
                mine = shares.setdefault(tc, [0, 0])
                mine[0 if ident == identifier else 1] += 1
        rates = [PassRate(mine, other) for mine, other in shares.values()]
        return rate_interval(rates, repeated=True)


def _intervals(groups: list[GroupRate]) -> dict[str | None, Interval | None]:
    return {g.name: g.interval for g in groups}


def case_stats(rows: Iterable[dict[str, Any]]) -> list[CaseStats]:
    """A ``CaseStats`` per test case of result rows (``test_case_id``, ``status``, ``messages``), in
    the order test cases first appear."""
    tally = RepeatTally()
    for row in rows:
        tally.add(row)
    return tally.cases()
