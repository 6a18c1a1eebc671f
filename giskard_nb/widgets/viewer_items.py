"""The rows a ResultsViewer filters and shows (``ViewerItem``), built from core results or from a
stored Hub evaluation (``evaluation_items``, with the relabel callback that stores a new category)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from giskard_nb.core.scenario_result import ScenarioResult

__all__ = ["ViewerItem", "evaluation_items", "item_from_result"]


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


def evaluation_items(
    hub: Any, evaluation: Any
) -> tuple[list[ViewerItem], list[str], Callable[[ViewerItem, str | None], None]]:
    """The viewer rows of a Hub evaluation, its project's failure categories, and the relabel
    callback that stores a new category in the Hub."""
    project = hub.projects.retrieve(evaluation.project_id)
    items: list[ViewerItem] = []
    for r in hub.evaluations.results.list(evaluation.id):
        category = r.failure_category.identifier if r.failure_category else None
        item = item_from_result(r.scenario_result, failure_category=category)
        item.name = r.scenario_result.scenario_name or r.test_case_id
        item.tags = frozenset(r.tags) | item.tags
        item.extra["result_id"] = r.id
        items.append(item)

    def store(item: ViewerItem, category: str | None) -> None:
        hub.evaluations.results.relabel(item.extra["result_id"], category)

    return items, [c.identifier for c in project.failure_categories], store
