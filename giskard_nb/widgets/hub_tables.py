"""The HubBrowser's HTML: one table per kind of record, a dataset's page (its test cases and the
evaluations that used it) and a comparison of two evaluations. Every name, message and agent text
is escaped and bounded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from giskard_nb.widgets._common import badge, esc
from giskard_nb.widgets._render import table_html

__all__ = ["comparison_html", "dataset_html", "record_rows", "safe_url"]

_GRADE_STATUS = {"A": "pass", "B": "skip", "C": "error", "D": "fail"}


def when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else ""


def rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def safe_url(url: str) -> str:
    """The URL without credentials (``user:password@``) and without its query string."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        return "(unreadable URL)"


def _id(value: str) -> str:
    return f"<code>{esc(value)}</code>"


def _evaluation_rows(
    records: list[Any], dataset_names: Mapping[str, str] | None
) -> tuple[list[str], list[list[str]]]:
    header = ["name", "status", "agent", "pass rate", "results", "created", "id"]
    if dataset_names is not None:
        header.insert(1, "dataset")
    rows = []
    for e in records:
        row = [esc(e.name), esc(e.status), esc(e.agent_name), esc(rate(e.pass_rate)),
               " ".join(f"{badge(k)} {int(v)}" for k, v in e.counts.items() if v),
               when(e.created_at), _id(e.id)]  # fmt: skip
        if dataset_names is not None:
            row.insert(1, esc(dataset_names.get(e.dataset_id, e.dataset_id), 120))
        rows.append(row)
    return header, rows


def record_rows(
    kind: str, records: list[Any], *, sizes: Mapping[str, int], dataset_names: Mapping[str, str]
) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the ``kind`` table (``sizes``: test cases per dataset id;
    ``dataset_names``: dataset name per id, for the evaluations' dataset column)."""
    if kind == "agents":
        return ["name", "url", "description", "created", "id"], [
            [esc(a.name), esc(safe_url(a.url)), esc(a.description, 200), when(a.created_at),
             _id(a.id)]
            for a in records
        ]  # fmt: skip
    if kind == "datasets":
        return ["name", "test cases", "description", "created", "id"], [
            [esc(d.name), str(sizes.get(d.id, 0)), esc(d.description, 200), when(d.created_at),
             _id(d.id)]
            for d in records
        ]  # fmt: skip
    if kind == "evaluations":
        return _evaluation_rows(records, dataset_names)
    if kind == "scans":
        return ["name", "status", "grade", "agent", "created", "id"], [
            [esc(s.name), esc(s.status),
             badge(_GRADE_STATUS.get(str(s.grade), "skip"), str(s.grade)) if s.grade else "",
             esc(s.agent_name), when(s.created_at), _id(s.id)]
            for s in records
        ]  # fmt: skip
    return ["title", "status", "priority", "assignees", "created", "id"], [
        [esc(t.title), esc(t.status), esc(t.priority), esc(", ".join(t.assignees)),
         when(t.created_at), _id(t.id)]
        for t in records
    ]  # fmt: skip


def _checks(case: Any) -> str:
    names = ", ".join(
        getattr(c, "identifier", None) or getattr(c, "kind", None) or "check" for c in case.checks
    )
    expected = getattr(case, "expected_tool_calls", None) or []
    if not expected:
        return names
    calls = " → ".join(c.name for c in expected)
    return f"{names}; expects the calls {calls}" if names else f"expects the calls {calls}"


def dataset_html(dataset: Any, cases: list[Any], evaluations: list[Any]) -> str:
    """A dataset's page: its test cases (name, last user message, checks and expected tool calls,
    tags, status) and the evaluations that ran on it, oldest first."""
    from giskard_nb.widgets.viewer_items import first_words

    case_rows = []
    for n, case in enumerate(cases, 1):
        said = [m.content for m in case.messages if m.role == "user"]
        question = said[-1] if said else ""
        case_rows.append(
            [str(n), esc(case.name or f"“{first_words(question)}”", 120), esc(question, 300),
             esc(_checks(case), 200), esc(", ".join(case.tags), 200), esc(case.status),
             _id(case.id)]
        )  # fmt: skip
    header, eval_rows = _evaluation_rows(evaluations, None)
    description = f"<br><i>{esc(dataset.description, 500)}</i>" if dataset.description else ""
    return (
        f"<div class='giskard-dataset'><h4 style='margin:4px 0'>Dataset {esc(dataset.name)}</h4>"
        f"{len(cases)} test cases, {len(evaluations)} evaluations{description}"
        "<h4 style='margin:6px 0 2px'>Test cases</h4>"
        + table_html(
            ["#", "name", "question", "checks", "tags", "status", "id"],
            case_rows,
            css_class="giskard-hub-table",
            empty="no test case yet: hub.test_cases.create(dataset_id, messages=[...], checks=[...])",
        )
        + "<h4 style='margin:6px 0 2px'>Evaluations of this dataset</h4>"
        + table_html(
            header,
            eval_rows,
            css_class="giskard-hub-table",
            empty="not evaluated yet: hub.evaluations.create_local(agent, dataset_id)",
        )
        + "</div>"
    )


def comparison_html(comparison: Any) -> str:
    before, after = comparison.pass_rates()
    parts = [
        f"<div class='giskard-comparison'><b>{esc(comparison.before_name)}</b> → "
        f"<b>{esc(comparison.after_name)}</b>: pass rate {rate(before)} → {rate(after)}, "
        f"{len(comparison.regressions)} regressions (pass→fail), {len(comparison.fixes)} fixes "
        "(fail→pass)"
    ]
    for title, cases in (
        ("Regressions (pass→fail)", comparison.regressions),
        ("Fixes (fail→pass)", comparison.fixes),
        (
            "Other changes",
            [c for c in comparison.changed if c.change not in ("pass→fail", "fail→pass")],
        ),
    ):
        rows = [
            [esc(c.question or c.test_case_id, 200), badge(c.before or "skip", c.before or "none"),
             badge(c.after or "skip", c.after or "none"), _id(c.test_case_id)]
            for c in cases
        ]  # fmt: skip
        parts.append(f"<h4 style='margin:6px 0 2px'>{esc(title)}</h4>")
        parts.append(table_html(["test case", "before", "after", "id"], rows, empty="none"))
    return "".join(parts) + "</div>"
