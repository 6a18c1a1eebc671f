"""The rows a ResultsViewer filters and shows (``ViewerItem``), built from core results or from a
stored Hub evaluation (``evaluation_items``, with the relabel callback that stores a new category)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.trajectory import trajectory_html
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import badge, esc
from giskard_nb.widgets._render import conversation_html, trace_messages

__all__ = [
    "ViewerItem",
    "detail_html",
    "evaluation_items",
    "first_words",
    "is_hub_evaluation",
    "item_from_result",
    "items_of",
    "row_label",
]


@dataclass
class ViewerItem:
    """One row of the viewer: a scenario result and what the filters look at."""

    result: ScenarioResult
    status: str
    name: str
    tags: frozenset[str]
    checks: dict[str, str]  # check name -> worst status of that check in this result
    failure_category: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_RANK = {"error": 3, "fail": 2, "skip": 1, "pass": 0}


def first_words(text: Any, words: int = 8, limit: int = 60) -> str:
    """The first ``words`` words of ``text`` on one printable line, at most ``limit`` characters
    (how an unnamed test case is named; escape it where it goes into HTML)."""
    parts = str(text or "").split()
    line = "".join(ch for ch in " ".join(parts[:words]) if ch.isprintable())
    if len(line) > limit:
        return line[: limit - 1] + "…"
    return line + ("…" if len(parts) > words else "")


def row_label(index: int, item: ViewerItem) -> str:
    """The plain-text label of a result in the viewer's list: ``#3 FAIL refund policy``."""
    return f"#{index} {item.status.upper()} · {first_words(item.name, 16, 80) or '(no name)'}"


def item_from_result(result: ScenarioResult, failure_category: str | None = None) -> ViewerItem:
    """The viewer row of a result: its status, name, tags and the worst status of each check."""
    checks: dict[str, str] = {}
    for step in result.steps:
        for cr in step.results:
            name = cr.check_name or "check"
            status = cr.status.value
            if _RANK[status] >= _RANK.get(checks.get(name, "pass"), 0):
                checks[name] = status
    return ViewerItem(
        result=result,
        status=result.status.value,
        name=result.scenario_name,
        tags=frozenset(result.tags),
        checks=checks,
        failure_category=failure_category,
    )


def detail_html(index: int, item: ViewerItem) -> str:
    """One result in full, as escaped HTML: the conversation as chat turns, the trajectory (tool
    calls turn by turn, and the trajectory checks' diffs against the expected calls), the failure
    category, every check's status and reason."""
    r = item.result
    parts = [
        f"<div><h4 style='margin:4px 0'>#{index} {badge(item.status)} {esc(item.name)}</h4>",
    ]
    if item.failure_category:
        parts.append(f"<p>failure category: <b>{esc(item.failure_category)}</b></p>")
    parts.append("<b>Conversation</b>")
    parts.append(conversation_html(trace_messages(r.final_trace.interactions)))
    parts.append(trajectory_html(r.final_trace.tool_calls, r.check_results))  # escaped
    parts.append("<b>Checks</b><ul>")
    for s, step in enumerate(r.steps, 1):
        if step.error:
            parts.append(f"<li>step {s} {badge('error')} {esc(step.error.summary())}</li>")
        for cr in step.results:
            parts.append(
                f"<li>step {s} {badge(cr.status.value)} <b>{esc(cr.check_name or 'check')}</b>: "
                f"{esc(cr.message or '')}</li>"
            )
    parts.append(f"</ul><small>{r.duration_ms:.0f} ms</small></div>")
    return "".join(parts)


def evaluation_items(
    hub: Any, evaluation: Any
) -> tuple[list[ViewerItem], list[str], Callable[[ViewerItem, str | None], None]]:
    """The viewer rows of a Hub evaluation, its project's failure categories, and the relabel
    callback that stores a new category in the Hub."""
    project = hub.projects.retrieve(evaluation.project_id)
    names = {c.id: c.name for c in hub.test_cases.list(evaluation.dataset_id)}
    items: list[ViewerItem] = []
    for r in hub.evaluations.results.list(evaluation.id):
        category = r.failure_category.identifier if r.failure_category else None
        item = item_from_result(r.scenario_result, failure_category=category)
        item.name = names.get(r.test_case_id) or _unnamed(r)
        if evaluation.repeats > 1:  # which run of its test case
            item.name += f" (run {r.repeat + 1}/{evaluation.repeats})"
        item.tags = frozenset(r.tags) | item.tags
        item.extra["result_id"] = r.id
        items.append(item)

    def store(item: ViewerItem, category: str | None) -> None:
        hub.evaluations.results.relabel(item.extra["result_id"], category)

    return items, [c.identifier for c in project.failure_categories], store


def _unnamed(result: Any) -> str:
    """The name of a result whose test case has none: the first words of its last user message
    (``“What is your refund policy…”``), else its test case id."""
    said = [m.content for m in result.messages if m.role == "user" and isinstance(m.content, str)]
    words = first_words(said[-1]) if said else ""
    return f"“{words}”" if words else f"test case {result.test_case_id}"


def is_hub_evaluation(source: Any) -> bool:
    # the Hub module is loaded if the source is one of its evaluations (no import of the Hub here)
    module = sys.modules.get("giskard_nb.hub.models.evaluation")
    return module is not None and isinstance(source, module.Evaluation)


def items_of(source: Any) -> list[ViewerItem]:
    """The viewer rows of a SuiteResult, a ScenarioResult, or a list of them (or of rows)."""
    from giskard_nb.core.suite_result import SuiteResult

    if isinstance(source, SuiteResult):
        return [item_from_result(r) for r in source.results]
    if isinstance(source, ScenarioResult):
        return [item_from_result(source)]
    if isinstance(source, Sequence) and all(isinstance(r, ViewerItem) for r in source):
        return list(source)
    if isinstance(source, Sequence) and all(isinstance(r, ScenarioResult) for r in source):
        return [item_from_result(r) for r in source]
    raise GiskardValidationError(
        f"ResultsViewer shows a SuiteResult, a ScenarioResult or a list of them, not "
        f"{type(source).__name__}"
    )
