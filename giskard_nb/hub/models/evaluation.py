"""Evaluations (one run of an agent over a dataset) and their results (one per test case)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.usage import Usage
from giskard_nb.hub.models.agent import AgentOutput, ChatMessage
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.hub.models.project import FailureCategory

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.hub.summary import EvaluationSummary

__all__ = ["CheckOutcome", "Evaluation", "EvaluationResult", "EvaluationStatus", "ResultStatus"]

ResultStatus = Literal["pass", "fail", "error", "skip"]
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
    counts: dict[str, int] = Field(default_factory=dict)
    failure_categories: dict[str, int] = Field(default_factory=dict)
    error: str | None = None

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

    def to_dataframe(self, level: Literal["results", "checks"] = "results") -> pd.DataFrame:
        """One row per result (``level="results"``) or per check result (``"checks"``)."""
        return self._require_hub().evaluations.results.to_dataframe(self.id, level=level)

    def plot_failure_categories(self, *, kind: str = "treemap") -> Any:
        """A Plotly figure of the failure categories, drilling down to the failing checks
        (``kind="treemap"`` or ``"bar"``); see ``giskard_nb.charts.plot_failure_categories``."""
        from giskard_nb.charts import plot_failure_categories

        return plot_failure_categories(self, kind=kind)

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
        return f"<Evaluation {self.name!r} {self.status} {counts or 'no results'} id={self.id}>"

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import evaluation_html, safe_html

        return safe_html(evaluation_html, self)


class CheckOutcome(HubModel):
    """One check's outcome in a result: its status and reason, the score it measured (a similarity,
    a judge's score...) and the threshold it compared it with, when it reports them."""

    name: str
    kind: str | None = None
    status: ResultStatus
    message: str | None = None
    score: float | None = None
    threshold: float | None = None
    metrics: dict[str, float] = Field(default_factory=dict)


class EvaluationResult(HubRecord):
    """The outcome for one test case: the core ``ScenarioResult`` it was run as, plus Hub bookkeeping
    (status, the conversation sent, the agent's output, per-check outcomes, the failure category,
    duration and usage)."""

    evaluation_id: str
    test_case_id: str
    status: ResultStatus
    messages: list[ChatMessage] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    agent_output: AgentOutput | None = None
    error: str | None = None
    checks: list[CheckOutcome] = Field(default_factory=list)
    failure_category: FailureCategory | None = None
    failure_category_source: Literal["rule", "llm", "user"] | None = None
    failure_category_reason: str | None = None
    duration_ms: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    scenario_result: ScenarioResult

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def __repr__(self) -> str:
        category = f" [{self.failure_category.identifier}]" if self.failure_category else ""
        return f"<EvaluationResult {self.status.upper()}{category} test_case={self.test_case_id}>"

    def _repr_html_(self) -> str:
        from giskard_nb.hub.render import result_html, safe_html

        return safe_html(result_html, self)
