"""HubBrowser: browse a Hub — projects, then their agents, datasets, evaluations, scans and tasks;
open an evaluation in the ResultsViewer, a scan in its report, compare two evaluations case by case.

Every control has a method (``select_project``, ``show``, ``open_evaluation``, ``open_scan``,
``compare``, ``refresh``), so the browser is scriptable and tested headless. Lists come from the
resources' ``list(...)`` calls (``to_dataframe(kind)`` gives the same rows as a DataFrame); every
name, message and agent text shown is escaped.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.widgets._common import View, badge, error_html, esc
from giskard_nb.widgets._render import table_html

__all__ = ["KINDS", "HubBrowser"]

#: What a project holds, in the order of the browser's tabs.
KINDS = ("agents", "datasets", "evaluations", "scans", "tasks")
_GRADE_STATUS = {"A": "pass", "B": "skip", "C": "error", "D": "fail"}


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else ""


def _safe_url(url: str) -> str:
    """The URL without credentials (``user:password@``) and without its query string."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        return "(unreadable URL)"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


class HubBrowser(View):
    """Browse ``hub``; ``project_id`` preselects a project (default: the first one)."""

    def __init__(self, hub: Any, *, project_id: str | None = None, kind: str = "evaluations"):
        if not all(hasattr(hub, name) for name in ("projects", *KINDS)):
            raise GiskardValidationError(
                f"HubBrowser needs a Hub (for example HubBrowser(Hub())), not {type(hub).__name__}"
            )
        self.hub = hub
        self.project_id: str | None = None
        self.kind = self._check_kind(kind)
        self.opened: Any = None  # the ResultsViewer, ScanReport or EvaluationComparison shown
        self._build()
        self.refresh()
        if project_id is not None:
            self.select_project(project_id)

    # -- actions -------------------------------------------------------------------------------------

    def refresh(self) -> list[Any]:
        """Reload the projects and the current list from the Hub; returns the list's records."""
        projects = self.hub.projects.list()
        ids = [p.id for p in projects]
        if self.project_id not in ids:
            self.project_id = ids[0] if ids else None
        with self._quiet():
            self._w["project"].options = [(p.name, p.id) for p in projects]
            self._w["project"].value = self.project_id
        self._fill_pickers()
        return self.show(self.kind)

    def select_project(self, project_id: str) -> list[Any]:
        """Browse project ``project_id``; returns the records of the current tab."""
        project = self.hub.projects.retrieve(project_id)  # NotFoundError for an unknown id
        if project.id not in dict(self._w["project"].options).values():
            self.refresh()
        self.project_id = project.id
        with self._quiet():
            self._w["project"].value = project.id
        self._fill_pickers()
        return self.show(self.kind)

    def show(self, kind: str) -> list[Any]:
        """Show the project's ``kind`` (agents, datasets, evaluations, scans or tasks) as a table;
        returns the records listed."""
        self.kind = self._check_kind(kind)
        with self._quiet():
            self._w["kind"].value = self.kind
        records = self.records(self.kind)
        header, rows = self._rows(self.kind, records)
        self._w["table"].value = table_html(
            header, rows, css_class="giskard-hub-table", empty=self._empty_text()
        )
        return records

    def records(self, kind: str) -> list[Any]:
        """The current project's records of ``kind``, oldest first."""
        kind = self._check_kind(kind)
        if self.project_id is None:
            return []
        if kind == "tasks":
            return self.hub.tasks.list(self.project_id)
        return getattr(self.hub, kind).list(project_id=self.project_id)

    def to_dataframe(self, kind: str | None = None) -> Any:
        """The records of ``kind`` (default: the current tab) as a DataFrame."""
        kind = self._check_kind(kind or self.kind)
        if kind == "datasets":
            return self.hub.datasets.to_dataframe(project_id=self.project_id)
        if kind == "tasks":
            return self.hub.tasks.to_dataframe(self.project_id)
        from giskard_nb.frames import to_dataframe

        return to_dataframe(self.records(kind))

    def open_evaluation(self, evaluation_id: str, *, page_size: int = 20) -> Any:
        """Open evaluation ``evaluation_id`` in a ResultsViewer (relabels go to the Hub); returns it."""
        from giskard_nb.hub.render import evaluation_html
        from giskard_nb.widgets.results_viewer import ResultsViewer

        evaluation = self.hub.evaluations.retrieve(evaluation_id)
        self._follow(evaluation.project_id)
        viewer = ResultsViewer(evaluation, page_size=page_size)
        self._open(viewer, evaluation_html(evaluation), viewer.widget)
        return viewer

    def open_scan(self, scan_id: str) -> Any:
        """Show scan ``scan_id``'s report (grade card, findings); returns the engine's ScanReport."""
        from giskard_nb.core.render import safe_html
        from giskard_nb.scan.render import scan_html

        scan = self.hub.scans.retrieve(scan_id)
        self._follow(scan.project_id)
        report = self.hub.scans.report(scan.id)
        self._open(report, safe_html(scan_html, report))
        return report

    def compare(self, before_id: str, after_id: str) -> Any:
        """Compare two evaluations of one dataset case by case: regressions (pass→fail) and fixes
        (fail→pass); returns the ``EvaluationComparison``."""
        if before_id == after_id:
            raise GiskardValidationError("choose two different evaluations to compare")
        comparison = self.hub.evaluations.compare(before_id, after_id)
        self._open(comparison, _comparison_html(comparison))
        return comparison

    # -- internals -----------------------------------------------------------------------------------

    @staticmethod
    def _check_kind(kind: str) -> str:
        if kind not in KINDS:
            raise GiskardValidationError(
                f"unknown kind {kind!r}: choose one of {', '.join(map(repr, KINDS))}"
            )
        return kind

    def _empty_text(self) -> str:
        if self.project_id is None:
            return "no project in this Hub yet: hub.projects.create('my project')"
        return f"no {self.kind} in this project yet"

    def _follow(self, project_id: str) -> None:
        if project_id != self.project_id:
            self.select_project(project_id)

    def _open(self, opened: Any, head: str, *widgets: Any) -> None:
        import ipywidgets as w

        self.opened = opened
        self._w["detail"].children = [w.HTML(head), *widgets]

    def _rows(self, kind: str, records: list[Any]) -> tuple[list[str], list[list[str]]]:
        if kind == "agents":
            return ["name", "url", "description", "created", "id"], [
                [esc(a.name), esc(_safe_url(a.url)), esc(a.description, 200), _when(a.created_at),
                 f"<code>{esc(a.id)}</code>"]
                for a in records
            ]  # fmt: skip
        if kind == "datasets":
            sizes = {d.id: len(self.hub.test_cases.list(d.id)) for d in records}
            return ["name", "test cases", "description", "created", "id"], [
                [esc(d.name), str(sizes[d.id]), esc(d.description, 200), _when(d.created_at),
                 f"<code>{esc(d.id)}</code>"]
                for d in records
            ]  # fmt: skip
        if kind == "evaluations":
            return ["name", "status", "agent", "pass rate", "results", "created", "id"], [
                [esc(e.name), esc(e.status), esc(e.agent_name), esc(_rate(e.pass_rate)),
                 " ".join(f"{badge(k)} {int(v)}" for k, v in e.counts.items() if v),
                 _when(e.created_at), f"<code>{esc(e.id)}</code>"]
                for e in records
            ]  # fmt: skip
        if kind == "scans":
            return ["name", "status", "grade", "agent", "created", "id"], [
                [esc(s.name), esc(s.status),
                 badge(_GRADE_STATUS.get(str(s.grade), "skip"), str(s.grade)) if s.grade else "",
                 esc(s.agent_name), _when(s.created_at), f"<code>{esc(s.id)}</code>"]
                for s in records
            ]  # fmt: skip
        return ["title", "status", "priority", "assignees", "created", "id"], [
            [esc(t.title), esc(t.status), esc(t.priority), esc(", ".join(t.assignees)),
             _when(t.created_at), f"<code>{esc(t.id)}</code>"]
            for t in records
        ]  # fmt: skip

    def _fill_pickers(self) -> None:
        evaluations = self.records("evaluations")
        scans = self.records("scans")
        with self._quiet():
            options = [(f"{e.name} ({e.status})", e.id) for e in evaluations]
            for key in ("evaluation", "before", "after"):
                self._w[key].options = options
            scan_options = [(f"{s.name} ({s.grade or s.status})", s.id) for s in scans]
            self._w["scan"].options = scan_options
            latest = lambda opts, n=1: opts[-n][1] if len(opts) >= n else None  # noqa: E731
            self._w["evaluation"].value, self._w["scan"].value = (
                latest(options),
                latest(scan_options),
            )
            self._w["before"].value = latest(options, 2) or latest(options)
            self._w["after"].value = latest(options)

    def _quiet(self) -> Any:
        from contextlib import contextmanager

        @contextmanager
        def quiet():
            self._syncing = True
            try:
                yield
            finally:
                self._syncing = False

        return quiet()

    def _guard(self, action: Any) -> None:
        self._w["message"].value = ""
        try:
            action()
        except (GiskardNBError, ValueError) as exc:
            self._w["message"].value = error_html(exc)

    def _on_change(self, action: Any) -> Any:
        return lambda change: None if self._syncing else self._guard(lambda: action(change["new"]))

    def _build(self) -> None:
        import ipywidgets as w

        self._syncing = False
        auto = {"description_width": "initial"}
        pick = {"style": auto, "layout": w.Layout(width="auto", min_width="260px")}
        self._w = {
            "project": w.Dropdown(options=[], description="project", **pick),
            "refresh": w.Button(description="Refresh", icon="refresh"),
            "kind": w.ToggleButtons(options=list(KINDS), value=self.kind, style={"button_width": "auto"}),
            "table": w.HTML(),
            "evaluation": w.Dropdown(options=[], description="evaluation", **pick),
            "open_evaluation": w.Button(description="Open results", icon="table", layout=w.Layout(width="auto")),
            "scan": w.Dropdown(options=[], description="scan", **pick),
            "open_scan": w.Button(description="Open report", icon="shield", layout=w.Layout(width="auto")),
            "before": w.Dropdown(options=[], description="compare", **pick),
            "after": w.Dropdown(options=[], description="with", **pick),
            "compare": w.Button(description="Compare", icon="exchange", layout=w.Layout(width="auto")),
            "message": w.HTML(),
            "detail": w.VBox(),
        }  # fmt: skip
        ww = self._w
        ww["project"].observe(self._on_change(self.select_project), names="value")
        ww["kind"].observe(self._on_change(self.show), names="value")
        ww["refresh"].on_click(lambda _: self._guard(self.refresh))
        ww["open_evaluation"].on_click(
            lambda _: self._guard(lambda: self.open_evaluation(self._picked("evaluation")))
        )
        ww["open_scan"].on_click(
            lambda _: self._guard(lambda: self.open_scan(self._picked("scan")))
        )
        ww["compare"].on_click(
            lambda _: self._guard(
                lambda: self.compare(self._picked("before"), self._picked("after"))
            )
        )
        self.widget = w.VBox(
            [
                w.HBox([ww["project"], ww["refresh"]]),
                ww["kind"],
                ww["table"],
                w.HBox([ww["evaluation"], ww["open_evaluation"]]),
                w.HBox([ww["scan"], ww["open_scan"]]),
                w.HBox([ww["before"], ww["after"], ww["compare"]]),
                ww["message"],
                ww["detail"],
            ]
        )
        self.widget.add_class("giskard-hub-browser")

    def _picked(self, key: str) -> str:
        value = self._w[key].value
        if value is None:
            raise GiskardValidationError(f"no {key} to open in this project yet")
        return value


def _comparison_html(comparison: Any) -> str:
    before, after = comparison.pass_rates()
    parts = [
        f"<div class='giskard-comparison'><b>{esc(comparison.before_name)}</b> → "
        f"<b>{esc(comparison.after_name)}</b>: pass rate {_rate(before)} → {_rate(after)}, "
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
             badge(c.after or "skip", c.after or "none"), f"<code>{esc(c.test_case_id)}</code>"]
            for c in cases
        ]  # fmt: skip
        parts.append(f"<h4 style='margin:6px 0 2px'>{esc(title)}</h4>")
        parts.append(table_html(["test case", "before", "after", "id"], rows, empty="none"))
    return "".join(parts) + "</div>"
