"""Evaluations (one run of an agent over a dataset) and their results (one per test case, defined in
``giskard_nb.hub.models.evaluation_result``)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.hub.models.base import HubRecord
from giskard_nb.hub.models.evaluation_result import CheckOutcome, EvaluationResult, ResultStatus

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.hub.summary import EvaluationSummary

__all__ = ["CheckOutcome", "Evaluation", "EvaluationResult", "EvaluationStatus", "ResultStatus"]

EvaluationStatus = Literal["running", "finished", "interrupted", "error"]


class Evaluation(HubRecord):
    """A run of an agent over the active test cases of a dataset (optionally only those with ``tags``).

    ``counts`` and ``failure_categories`` are the tallies at the last write; ``summary()`` recomputes
    them from the stored results.
    """

    project_id: str
    dataset_id: str
    agent_id: str | None = None
    agent_name: str
    name: str
    local: bool = False
    status: EvaluationStatus = "running"
    tags: list[str] = Field(default_factory=list)
    max_concurrency: int = 8
    timeout: float | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    n_test_cases: int = 0
    #: How many times each test case runs (``create_local(..., repeats=k)``): the evaluation holds
    #: up to ``n_test_cases * repeats`` results, and its summary gives per-case pass^k and pass@k.
    repeats: int = Field(default=1, ge=1)
    counts: dict[str, int] = Field(default_factory=dict)
    failure_categories: dict[str, int] = Field(default_factory=dict)
    error: str | None = None
    #: The evaluation this one re-scored (``hub.evaluations.rescore``): same replies, checks run again.
    rescored_from: str | None = None
    #: How it was re-scored: the judge model given (a model name) and whether checks were given.
    rescore_generator: str | None = None
    rescore_given_checks: bool = False

    @property
    def rate(self) -> PassRate:
        """The stored tallies as a ``PassRate`` (``rate.text()``: the rate beside the error count)."""
        return PassRate.from_counts(self.counts)

    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed + errored); ``None`` when nothing was judged (see
        ``giskard_nb.core.pass_rate``)."""
        return self.rate.value

    def results(self, **filters: Any) -> Any:
        """The stored results (a ``ResultList``); filters as ``hub.evaluations.results.list``."""
        return self._require_hub().evaluations.results.list(self.id, **filters)

    def summary(self) -> EvaluationSummary:
        """Pass rates overall, per check and per failure category, from the stored results."""
        return self._require_hub().evaluations.summary(self.id)

    def to_dataframe(
        self, level: Literal["results", "checks", "tool_calls", "cases"] = "results"
    ) -> pd.DataFrame:
        """One row per result (``level="results"``), per check result (``"checks"``), per tool
        call (``"tool_calls"``) or per test case over its repeats (``"cases"``: pass fraction with
        its interval, pass^k, pass@k, flaky)."""
        return self._require_hub().evaluations.results.to_dataframe(self.id, level=level)

    def plot_tool_timeline(self, *, case: str | None = None) -> Any:
        """A Plotly timeline of the agent's tool calls per turn (``giskard_nb.charts.tools``)."""
        from giskard_nb.charts import plot_tool_timeline

        return plot_tool_timeline(self, case=case)

    def plot_failure_categories(self, *, kind: str = "treemap") -> Any:
        """A Plotly figure of the failure categories, drilling down to the failing checks
        (``kind="treemap"`` or ``"bar"``); see ``giskard_nb.charts.plot_failure_categories``."""
        from giskard_nb.charts import plot_failure_categories

        return plot_failure_categories(self, kind=kind)

    def plot_pass_rates(self, *, by: str = "check") -> Any:
        """A Plotly bar chart of the pass rate per check (``by="check"``), per tag (``"tag"``) or
        the share of the failures per failure category (``"category"``), each with its 95 %
        interval as error bars; see ``giskard_nb.charts.plot_pass_rates``."""
        from giskard_nb.charts import plot_pass_rates

        return plot_pass_rates(self, by=by)

    def plot_comparison(self, after: Evaluation) -> Any:
        """A Plotly figure of this evaluation against ``after`` (same dataset), case by case:
        regressions (pass→fail), fixes (fail→pass), unchanged."""
        from giskard_nb.charts import plot_comparison

        return plot_comparison(self, after)

    def refresh(self) -> Evaluation:
        """This evaluation as currently stored."""
        return self._require_hub().evaluations.retrieve(self.id)

    def __repr__(self) -> str:
        counts = " ".join(f"{k}={v}" for k, v in self.counts.items() if v)
        runs = f" ×{self.repeats} runs" if self.repeats > 1 else ""
        return (
            f"<Evaluation {self.name!r} {self.status} {counts or 'no results'}{runs} id={self.id}>"
        )

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import evaluation_html, safe_html

        return safe_html(evaluation_html, self)
