"""The plain data a page shows, read from Hub records or in-memory results: an evaluation (summary,
failure categories, per-check figures, one transcript per case), a scan (grade card, categories,
findings) and a comparison of two evaluations. Nothing here is markup: the templates escape it all."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.trajectory import CallView, DiffView, trajectory_diffs, trajectory_turns
from giskard_nb.palette import STATUSES

__all__ = [
    "CaseView",
    "CheckRow",
    "EvaluationView",
    "case_matches",
    "evaluation_view",
    "suite_view",
]


@dataclass(frozen=True)
class CheckRow:
    """One check of one case: its status and why."""

    name: str
    status: str
    message: str = ""
    score: float | None = None
    threshold: float | None = None


@dataclass(frozen=True)
class CaseView:
    """One test case's result: the conversation, the agent's reply, the checks."""

    id: str
    label: str
    status: str
    messages: list[tuple[str, str]]
    reply: str | None
    reply_role: str = "assistant"
    error: str | None = None
    category: str = ""
    category_title: str = ""
    category_reason: str = ""
    checks: list[CheckRow] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    duration_ms: float = 0.0
    test_case_id: str = ""
    #: the tool calls turn by turn, and the trajectory checks' diffs (``core.trajectory``)
    trajectory: list[tuple[int, list[CallView]]] = field(default_factory=list)
    diffs: list[DiffView] = field(default_factory=list)

    def text(self) -> str:
        """Everything a search looks through, lower-cased."""
        parts = [self.label, self.reply or "", self.error or "", self.category_title]
        parts += [content for _, content in self.messages]
        parts += [f"{c.name} {c.message}" for c in self.checks]
        parts += [call.name for _, calls in self.trajectory for call in calls]
        return "\n".join(parts).lower()


@dataclass(frozen=True)
class EvaluationView:
    """An evaluation as a page shows it."""

    id: str
    name: str
    details: list[tuple[str, str]]
    counts: dict[str, int]
    rate: PassRate
    categories: list[tuple[str, str, int]]  # identifier, title, count
    checks: list[tuple[str, int, int, int, int]]  # name, passed, failed, errored, skipped
    cases: list[CaseView]
    error: str | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def category_bars(self) -> list[tuple[str, int]]:
        return [(title, count) for _, title, count in self.categories]

    @property
    def check_failures(self) -> list[tuple[str, int]]:
        """(check, failed + errored runs) of the checks that failed or errored at least once."""
        rows = [(name, failed + errored) for name, _, failed, errored, _ in self.checks]
        return sorted((r for r in rows if r[1]), key=lambda r: -r[1])

    @property
    def category_options(self) -> list[tuple[str, str]]:
        return [(identifier, title) for identifier, title, _ in self.categories]


def case_matches(case: CaseView, *, status: str = "", category: str = "", query: str = "") -> bool:
    """Whether ``case`` passes the viewer's filters (empty: any)."""
    return (
        (not status or case.status == status)
        and (not category or case.category == category)
        and (not query or query.lower() in case.text())
    )


def _question(messages: list[tuple[str, str]]) -> str:
    return next((content for role, content in reversed(messages) if role == "user"), "")


def _label(text: str, fallback: str) -> str:
    text = " ".join(text.split())
    return (text[:157] + "…" if len(text) > 160 else text) or fallback


def result_case(result: Any) -> CaseView:
    """The view of one stored ``EvaluationResult``."""
    messages = [(m.role, m.content) for m in result.messages]
    category = result.failure_category
    return CaseView(
        id=result.id,
        test_case_id=result.test_case_id,
        label=_label(_question(messages), result.test_case_id),
        status=result.status,
        messages=messages,
        reply=result.agent_output.content if result.agent_output else None,
        reply_role=result.reply_role,
        error=result.error,
        category=category.identifier if category else "",
        category_title=category.title if category else "",
        category_reason=result.failure_category_reason or "",
        checks=[
            CheckRow(c.name, c.status, c.message or "", c.score, c.threshold) for c in result.checks
        ],
        tags=list(result.tags),
        duration_ms=result.duration_ms,
        trajectory=trajectory_turns(result.tool_calls),
        diffs=trajectory_diffs(result.checks),
    )


def evaluation_view(hub: Any, evaluation: Any) -> EvaluationView:
    """The view of a stored evaluation (its summary recomputed from the stored results)."""
    summary = hub.evaluations.summary(evaluation.id)
    cases = [result_case(r) for r in hub.evaluations.results.list(evaluation.id)]
    dataset = record_name(hub.datasets, evaluation.dataset_id)
    details = [
        ("status", evaluation.status),
        ("agent", evaluation.agent_name + (" (local)" if evaluation.local else "")),
        ("dataset", dataset),
        ("created", evaluation.created_at.strftime("%Y-%m-%d %H:%M UTC")),
        ("results", f"{summary.total} of {evaluation.n_test_cases} test cases"),
    ]
    if summary.usage.llm_calls:
        details.append(("model usage", f"{summary.usage.total_tokens} tokens"))
    return EvaluationView(
        id=evaluation.id,
        name=evaluation.name,
        details=details,
        counts={
            "pass": summary.passed,
            "fail": summary.failed,
            "error": summary.errored,
            "skip": summary.skipped,
        },
        rate=summary.rate,
        categories=[(c.identifier, c.title, c.count) for c in summary.by_category],
        checks=[(c.name, c.passed, c.failed, c.errored, c.skipped) for c in summary.by_check],
        cases=cases,
        error=evaluation.error,
    )


def record_name(resource: Any, record_id: str) -> str:
    """The name of a record, or its id marked deleted."""
    from giskard_nb.errors import NotFoundError

    try:
        return resource.retrieve(record_id).name
    except NotFoundError:
        return f"{record_id} (deleted)"


def _text(value: Any) -> str:
    from giskard_nb.core.render import short

    return short(value, 10**9)


def scenario_case(number: int, result: Any) -> CaseView:
    """The view of one in-memory ``ScenarioResult`` (its trace as the conversation)."""
    messages: list[tuple[str, str]] = []
    for interaction in result.final_trace.interactions:
        if interaction.inputs is not None:
            messages.append(("user", _text(interaction.inputs)))
        if interaction.outputs is not None:
            messages.append(("assistant", _text(interaction.outputs)))
    reply = messages.pop()[1] if messages and messages[-1][0] == "assistant" else None
    checks = [
        CheckRow(r.check_name or "check", r.status.value, r.message or "")
        for r in result.check_results
    ]
    return CaseView(
        id=f"case-{number}",
        label=_label(result.scenario_name or _question(messages), f"case {number}"),
        status=result.status.value,
        messages=messages,
        reply=reply,
        error=result.error,
        checks=checks,
        tags=list(result.tags),
        duration_ms=result.duration_ms,
        trajectory=trajectory_turns(result.final_trace.tool_calls),
        diffs=trajectory_diffs(result.check_results),
    )


def suite_view(suite: Any) -> EvaluationView:
    """The view of an in-memory ``SuiteResult`` (no failure categories: the Hub sets those)."""
    cases = [scenario_case(i, r) for i, r in enumerate(suite.results, 1)]
    counts = Counter(c.status for c in cases)
    per_check: dict[str, Counter[str]] = {}
    for case in cases:
        for check in case.checks:
            per_check.setdefault(check.name, Counter())[check.status] += 1
    return EvaluationView(
        id="",
        name=suite.name,
        details=[("test cases", str(len(cases)))],
        counts={s: counts.get(s, 0) for s in STATUSES},
        rate=suite.rate,
        categories=[],
        checks=[(n, *(c.get(s, 0) for s in STATUSES)) for n, c in per_check.items()],  # type: ignore[misc]
        cases=cases,
    )
