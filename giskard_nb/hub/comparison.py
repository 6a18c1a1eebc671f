"""Comparing two evaluations of the same dataset, test case by test case.

With repeats (several results per test case) a case's ``before``/``after`` is its verdict over its runs
("pass" when every judged run passed, "error" when all errored, "skip" when all skipped, else "fail"),
its ``*_fraction`` the share of its runs that passed (errors count as not passed, skips left out), and
``significance()`` pairs those fractions. With one run of each case nothing changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.stats.paired import PairedTest, paired_test

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CaseChange", "EvaluationComparison", "compare_rows"]


class CaseChange(BaseModel):
    """One test case in both runs: ``before``/``after`` its verdict (``None`` if it has no result
    there), ``*_runs`` its number of results and ``*_fraction`` the share of them that passed
    (passed / (passed + failed + errored); None when none was judged)."""

    model_config = ConfigDict(frozen=True)

    test_case_id: str
    question: str | None = None
    before: str | None = None
    after: str | None = None
    category_before: str | None = None
    category_after: str | None = None
    before_runs: int = 0
    after_runs: int = 0
    before_fraction: float | None = None
    after_fraction: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_run(cls, data: Any) -> Any:
        """A case given only its statuses is one run on each side that has one."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for side in ("before", "after"):
            status = data.get(side)
            if status is not None and not data.get(f"{side}_runs"):
                data[f"{side}_runs"] = 1
                data.setdefault(f"{side}_fraction", _fraction([{"status": status}]))
        return data

    @property
    def change(self) -> str:
        """``"pass→fail"`` (a regression), ``"fail→pass"`` (a fix), ``"unchanged"``, ``"new"``,
        ``"missing"``, or another ``"a→b"`` transition involving errors or skips."""
        if self.before is None:
            return "new"
        if self.after is None:
            return "missing"
        if self.before == self.after:
            return "unchanged"
        return f"{self.before}→{self.after}"


class EvaluationComparison(BaseModel):
    """``before`` vs ``after``: per-case changes, regressions (pass→fail) and fixes (fail→pass)."""

    model_config = ConfigDict(frozen=True)

    before_id: str
    after_id: str
    before_name: str
    after_name: str
    dataset_id: str
    cases: list[CaseChange] = Field(default_factory=list)
    #: Status → number of stored results on each side (every run of every case); ``rates()``.
    before_counts: dict[str, int] | None = None
    after_counts: dict[str, int] | None = None

    @property
    def regressions(self) -> list[CaseChange]:
        return [c for c in self.cases if c.change == "pass→fail"]

    @property
    def fixes(self) -> list[CaseChange]:
        return [c for c in self.cases if c.change == "fail→pass"]

    @property
    def changed(self) -> list[CaseChange]:
        return [c for c in self.cases if c.change != "unchanged"]

    def rates(self) -> tuple[PassRate, PassRate]:
        """The ``PassRate`` of each side over every stored result (every run of every case)."""
        if self.before_counts is not None and self.after_counts is not None:
            return PassRate.from_counts(self.before_counts), PassRate.from_counts(self.after_counts)
        return (
            PassRate.from_statuses(c.before for c in self.cases if c.before is not None),
            PassRate.from_statuses(c.after for c in self.cases if c.after is not None),
        )

    def pass_rates(self) -> tuple[float | None, float | None]:
        """Each side's pass rate (see ``giskard_nb.core.pass_rate``)."""
        before, after = self.rates()
        return before.value, after.value

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cases:
            out[c.change] = out.get(c.change, 0) + 1
        return dict(sorted(out.items()))

    def significance(self, confidence: float = 0.95) -> PairedTest:
        """Whether ``after`` differs from ``before`` by more than the noise: the exact sign test over
        the cases judged in both, paired by pass fraction (one run: a pass counts 1, a fail or an
        error 0; skipped and missing cases left out); ``.sentence()`` says it in words
        (``giskard_nb.stats.paired_test``)."""
        return paired_test(
            [c.before_fraction for c in self.cases],
            [c.after_fraction for c in self.cases],
            confidence=confidence,
            old_name=self.before_name,
            new_name=self.after_name,
        )

    def to_dataframe(self) -> pd.DataFrame:
        """One row per test case: ids, question, before, after (status Categoricals), change."""
        from giskard_nb.frames.hub_records import comparison_frame

        return comparison_frame(self.cases)

    def __str__(self) -> str:
        a, b = self.rates()
        lines = [
            f"{self.before_name!r} → {self.after_name!r}: pass rate {a.percent()} ({a.note()}) → "
            f"{b.percent()} ({b.note()}), "
            f"{len(self.regressions)} regressions (pass→fail), {len(self.fixes)} fixes (fail→pass)",
            f"  {self.significance().sentence()}",
        ]
        for title, group in (("Regressions", self.regressions), ("Fixes", self.fixes)):
            if group:
                lines.append(f"  {title}:")
                lines.extend(f"    - {c.question or c.test_case_id}" for c in group)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<EvaluationComparison {self.before_name!r}→{self.after_name!r} "
            f"regressions={len(self.regressions)} fixes={len(self.fixes)}>"
        )

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import comparison_html, safe_html

        return safe_html(comparison_html, self)


def compare_rows(
    before: Any, after: Any, rows_before: list[dict[str, Any]], rows_after: list[dict[str, Any]]
) -> EvaluationComparison:
    a, b = _by_case(rows_before), _by_case(rows_after)
    order = list(dict.fromkeys([*a, *b]))
    cases = []
    for tc in order:
        ra, rb = a.get(tc, []), b.get(tc, [])
        source = (rb or ra)[0]
        messages = source.get("messages") or []
        question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), None)
        cases.append(
            CaseChange(
                test_case_id=tc,
                question=question,
                before=verdict([r["status"] for r in ra]),
                after=verdict([r["status"] for r in rb]),
                category_before=_category(ra),
                category_after=_category(rb),
                before_runs=len(ra),
                after_runs=len(rb),
                before_fraction=_fraction(ra),
                after_fraction=_fraction(rb),
            )
        )
    return EvaluationComparison(
        before_id=before.id,
        after_id=after.id,
        before_name=before.name,
        after_name=after.name,
        dataset_id=before.dataset_id,
        cases=cases,
        before_counts=_counts(rows_before),
        after_counts=_counts(rows_after),
    )


def verdict(statuses: Sequence[str]) -> str | None:
    """A case's status over its runs: "pass" when every judged (not skipped) run passed, "error"
    when every judged run errored, "skip" when every run was skipped, else "fail"; None without
    runs. One run: its status."""
    if not statuses:
        return None
    judged = [s for s in statuses if s != "skip"]
    if not judged:
        return "skip"
    for status in ("pass", "error"):
        if all(s == status for s in judged):
            return status
    return "fail"


def _by_case(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["test_case_id"], []).append(r)
    return out


def _fraction(rows: list[dict[str, Any]]) -> float | None:
    """passed / (passed + failed + errored) over a case's runs; None when none was counted."""
    rate = PassRate.from_statuses(r["status"] for r in rows)
    return rate.passed / rate.counted if rate.counted else None


def _category(rows: list[dict[str, Any]]) -> str | None:
    """The failure category of the case's first categorized run."""
    return next(
        (r["failure_category"]["identifier"] for r in rows if r.get("failure_category")), None
    )


def _counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r["status"]] = out.get(r["status"], 0) + 1
    return out
