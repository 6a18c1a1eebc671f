"""Comparing two evaluations of the same dataset, test case by test case."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.stats.paired import PairedTest, paired_test

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CaseChange", "EvaluationComparison", "compare_rows"]


class CaseChange(BaseModel):
    """One test case in both runs: ``before``/``after`` status (``None`` if it has no result there)."""

    model_config = ConfigDict(frozen=True)

    test_case_id: str
    question: str | None = None
    before: str | None = None
    after: str | None = None
    category_before: str | None = None
    category_after: str | None = None

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
        """The ``PassRate`` of each side, over the cases that have a result there."""
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
        the cases judged in both (a pass counts 1, a fail or an error 0; skipped and missing cases
        left out); ``.sentence()`` says it in words (``giskard_nb.stats.paired_test``)."""

        def value(status: str | None) -> float | None:
            return None if status in (None, "skip") else float(status == "pass")

        return paired_test(
            [value(c.before) for c in self.cases],
            [value(c.after) for c in self.cases],
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
    def index(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {r["test_case_id"]: r for r in rows}

    a, b = index(rows_before), index(rows_after)
    order = list(dict.fromkeys([*a, *b]))
    cases = []
    for tc in order:
        ra, rb = a.get(tc), b.get(tc)
        source = rb or ra or {}
        messages = source.get("messages") or []
        question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), None)
        cases.append(
            CaseChange(
                test_case_id=tc,
                question=question,
                before=ra["status"] if ra else None,
                after=rb["status"] if rb else None,
                category_before=((ra or {}).get("failure_category") or {}).get("identifier"),
                category_after=((rb or {}).get("failure_category") or {}).get("identifier"),
            )
        )
    return EvaluationComparison(
        before_id=before.id,
        after_id=after.id,
        before_name=before.name,
        after_name=after.name,
        dataset_id=before.dataset_id,
        cases=cases,
    )
