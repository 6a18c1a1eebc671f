"""The report of one scheduled run: the summary and what changed, per test case, since the last run.

``report_changes(comparison.cases)`` lists the changes found by ``hub.evaluations.compare``:
``regressed`` (passed before, not now), ``fixed`` (the reverse), ``changed`` (another status change, e.g.
fail → error), ``new`` and ``removed`` test cases. ``RunReport`` renders as an e-mail subject, plain text and HTML (every value escaped: test case
names and error messages can hold agent output).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.pass_rate import PassRate

__all__ = ["ReportChange", "RunReport", "report_changes", "run_failure"]

Status = Literal["pass", "fail", "error", "skip"]
ChangeKind = Literal["regressed", "fixed", "changed", "new", "removed"]
_ORDER = {"regressed": 0, "changed": 1, "new": 2, "fixed": 3, "removed": 4}
_COLORS = {"regressed": "#c62828", "changed": "#ef6c00", "new": "#1565c0", "fixed": "#2e7d32"}


class ReportChange(BaseModel):
    """A test case whose outcome differs from the previous run."""

    model_config = ConfigDict(frozen=True)

    test_case_id: str
    label: str
    kind: ChangeKind
    before: Status | None
    after: Status | None
    failure_category: str | None = None


def report_changes(cases: Iterable[Any]) -> list[ReportChange]:
    """The changed cases of a comparison, regressions first.

    ``cases`` are per-case pairs with ``test_case_id``, ``before`` and ``after`` statuses (``None``: no
    result on that side), and optionally ``question`` and ``category_after`` — the ``cases`` of
    ``hub.evaluations.compare(previous_id, current_id)``."""
    changes = []
    for case in cases:
        before, after = case.before, case.after
        if before == after:
            continue
        if before is None:
            kind: ChangeKind = "new"
        elif after is None:
            kind = "removed"
        elif before == "pass":
            kind = "regressed"
        elif after == "pass":
            kind = "fixed"
        else:
            kind = "changed"
        changes.append(
            ReportChange(
                test_case_id=case.test_case_id,
                label=getattr(case, "question", None) or case.test_case_id,
                kind=kind,
                before=before,
                after=after,
                failure_category=getattr(case, "category_after", None),
            )
        )
    return sorted(changes, key=lambda c: (_ORDER[c.kind], c.label))


def run_failure(evaluation: Any, first_error: str | None = None) -> str | None:
    """Why a scheduled run is not a ``success`` (``None`` when it is): a run succeeds only when its
    evaluation finished and not every result errored. ``evaluation`` has ``status``, ``error`` and
    ``counts`` (a Hub ``Evaluation``); ``first_error`` is the message of one errored result."""
    status = getattr(evaluation, "status", None)
    if status != "finished":
        detail = getattr(evaluation, "error", None)
        return f"the evaluation did not finish (status {status!r})" + (
            f": {detail}" if detail else ""
        )
    rate = PassRate.from_counts(evaluation.counts or {})
    if rate.all_errored:
        total = rate.errored + rate.skipped
        return f"all results errored ({rate.errored} of {total}): nothing was judged" + (
            f"; first error: {first_error}" if first_error else ""
        )
    if rate.counted + rate.skipped == 0:
        return "the evaluation stored no result"
    return None


class RunReport(BaseModel):
    """What a scheduled run did, for the notification."""

    model_config = ConfigDict(frozen=True)

    schedule_name: str
    schedule_id: str
    evaluation_name: str | None = None
    evaluation_id: str | None = None
    agent_name: str = ""
    dataset_name: str = ""
    started_at: datetime
    finished_at: datetime | None = None
    status: Literal["success", "error"] = "success"
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    previous_pass_rate: float | None = None
    first_run: bool = True
    changes: list[ReportChange] = Field(default_factory=list)
    next_run_at: datetime | None = None

    @property
    def rate(self) -> PassRate:
        return PassRate.from_counts(self.counts)

    @property
    def pass_rate(self) -> float | None:
        """See ``giskard_nb.core.pass_rate``: skips left out, errors count as not passed."""
        return self.rate.value

    def count(self, kind: ChangeKind) -> int:
        return sum(c.kind == kind for c in self.changes)

    def _tail(self) -> list[str]:
        tail = []
        if self.count("regressed"):
            tail.append(f"{self.count('regressed')} regressed")
        if self.count("fixed"):
            tail.append(f"{self.count('fixed')} fixed")
        return tail

    def subject(self) -> str:
        if self.status == "error":
            reason = (self.error or "unknown error").split(":", 1)[0][:80]
            tail = "".join(f", {t}" for t in self._tail())
            return f"[giskard-nb] {self.schedule_name}: the scheduled evaluation failed ({reason}){tail}"
        rate = (
            f"{self.rate.percent()} passed ({self.rate.errored} errored)"
            if self.pass_rate is not None
            else f"no pass rate ({self.rate.note()})"
        )
        tail = self._tail()
        return f"[giskard-nb] {self.schedule_name}: {rate}" + (
            f", {', '.join(tail)}" if tail else ""
        )

    def _headline(self) -> list[tuple[str, str]]:
        rows = [
            ("Schedule", self.schedule_name),
            ("Evaluation", f"{self.evaluation_name or '-'} ({self.evaluation_id or '-'})"),
            ("Agent", self.agent_name or "-"),
            ("Dataset", self.dataset_name or "-"),
            ("Started", f"{self.started_at:%Y-%m-%d %H:%M} UTC"),
        ]
        counts = ", ".join(f"{v} {k}" for k, v in self.counts.items() if v) or "no result"
        if self.status == "error":
            rows.append(("Error", self.error or "unknown error"))
            if any(self.counts.values()):
                rows.append(("Results", counts))
            return rows
        rows.append(("Results", counts))
        rate = f"{self.rate.percent(1)} ({self.rate.note()})"
        if self.pass_rate is not None and self.previous_pass_rate is not None:
            delta = (self.pass_rate - self.previous_pass_rate) * 100
            rate += f", previous run {self.previous_pass_rate:.1%}, {delta:+.1f} points"
        rows.append(("Pass rate", rate))
        if self.next_run_at is not None:
            rows.append(("Next run", f"{self.next_run_at:%Y-%m-%d %H:%M} UTC"))
        return rows

    def _change_note(self) -> str:
        if self.status == "error" and not self.changes:
            return "No result to compare."
        if self.first_run:
            return "First run of this schedule: nothing to compare yet."
        if not self.changes:
            return "No change since the previous run."
        return f"{len(self.changes)} test case(s) changed since the previous run:"

    def text(self) -> str:
        """The plain-text body."""
        lines = [f"{label}: {value}" for label, value in self._headline()]
        lines += ["", self._change_note()]
        for c in self.changes:
            category = (
                f" [{c.failure_category}]" if c.failure_category and c.after != "pass" else ""
            )
            lines.append(
                f"  - {c.kind.upper():9} {c.label}: {c.before or '-'} -> {c.after or '-'}{category}"
            )
        return "\n".join(lines) + "\n"

    def html(self) -> str:
        """The HTML body (every value escaped)."""
        e = html.escape
        rows = "".join(
            f"<tr><th align='left'>{e(label)}</th><td>{e(value)}</td></tr>"
            for label, value in self._headline()
        )
        items = "".join(
            f"<tr><td style='color:{_COLORS.get(c.kind, '#555')}'><b>{e(c.kind)}</b></td>"
            f"<td>{e(c.label)}</td><td>{e(c.before or '-')} → {e(c.after or '-')}</td>"
            f"<td>{e(c.failure_category or '')}</td></tr>"
            for c in self.changes
        )
        table = (
            "<table cellpadding='4'><tr><th>change</th><th>test case</th><th>status</th>"
            f"<th>failure category</th></tr>{items}</table>"
            if items
            else ""
        )
        return (
            f"<html><body><h2>{e(self.subject())}</h2><table cellpadding='4'>{rows}</table>"
            f"<p>{e(self._change_note())}</p>{table}</body></html>"
        )
