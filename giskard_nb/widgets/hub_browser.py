"""HubBrowser: browse a Hub — projects, then their agents, datasets, evaluations, scans and tasks;
open a dataset (its test cases and the evaluations that used it), an evaluation in the
ResultsViewer, a scan in its report; compare two evaluations of one dataset case by case.

Every control has a method (``select_project``, ``show``, ``open_dataset``, ``open_evaluation``,
``open_scan``, ``compare``, ``refresh``), so the browser is scriptable and tested headless. Lists
come from the resources' ``list(...)`` calls (``to_dataframe(kind)`` gives the same rows as a
DataFrame); every name, message and agent text shown is escaped.
"""

from __future__ import annotations

from typing import Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Quiet, View, esc, show_errors
from giskard_nb.widgets._render import table_html
from giskard_nb.widgets.hub_tables import comparison_html, dataset_html, record_rows

__all__ = ["KINDS", "HubBrowser"]

#: What a project holds, in the order of the browser's tabs.
KINDS = ("agents", "datasets", "evaluations", "scans", "tasks")
#: Shown beside the compare pickers while no dataset has two evaluations.
COMPARE_HINT = (
    "To compare, evaluate one dataset twice (for example two versions of your agent): "
    "the pickers offer evaluations of the same dataset only."
)


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
        with self._syncing:
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
        with self._syncing:
            self._w["project"].value = project.id
        self._fill_pickers()
        return self.show(self.kind)

    def show(self, kind: str) -> list[Any]:
        """Show the project's ``kind`` (agents, datasets, evaluations, scans or tasks) as a table;
        returns the records listed."""
        self.kind = self._check_kind(kind)
        with self._syncing:
            self._w["kind"].value = self.kind
        records = self.records(self.kind)
        header, rows = self._rows(self.kind, records)  # the evaluations with their dataset
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

    def open_dataset(self, dataset_id: str) -> Any:
        """Show dataset ``dataset_id``: its test cases and the evaluations that used it (the compare
        pickers move to its last two evaluations); returns the Dataset."""
        dataset = self.hub.datasets.retrieve(dataset_id)
        self._follow(dataset.project_id)
        evaluations = self.hub.evaluations.list(dataset_id=dataset.id)
        cases = self.hub.test_cases.list(dataset.id)
        with self._syncing:
            self._w["dataset"].value = dataset.id
        if evaluations:
            self._pick_pair(evaluations[-1].id)
        self._open(dataset, dataset_html(dataset, cases, evaluations))
        return dataset

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
        self._open(comparison, comparison_html(comparison))
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

    def _dataset_names(self) -> dict[str, str]:
        return {d.id: d.name for d in self.records("datasets")}

    def _rows(self, kind: str, records: list[Any]) -> tuple[list[str], list[list[str]]]:
        sizes = (
            {d.id: len(self.hub.test_cases.list(d.id)) for d in records}
            if kind == "datasets"
            else {}
        )
        names = self._dataset_names() if kind == "evaluations" else {}
        return record_rows(kind, records, sizes=sizes, dataset_names=names)

    def _fill_pickers(self) -> None:
        evaluations = self.records("evaluations")
        names = self._dataset_names()
        self._evaluations = {e.id: e for e in evaluations}
        with self._syncing:
            options = [
                (f"{e.name} · {names.get(e.dataset_id, 'deleted dataset')} ({e.status})", e.id)
                for e in evaluations
            ]
            self._labels = {id_: label for label, id_ in options}
            self._w["evaluation"].options = options
            self._w["evaluation"].value = options[-1][1] if options else None
            datasets = list(names.items())
            self._w["dataset"].options = [(name, id_) for id_, name in datasets]
            latest_used = evaluations[-1].dataset_id if evaluations else None
            self._w["dataset"].value = latest_used or (datasets[-1][0] if datasets else None)
            scans = self.records("scans")
            self._w["scan"].options = [(f"{s.name} ({s.grade or s.status})", s.id) for s in scans]
            self._w["scan"].value = scans[-1].id if scans else None
        # compare: the last two evaluations of one dataset (the latest evaluated dataset first)
        pairs = [e for e in reversed(evaluations) if self._same_dataset(e.id)]
        self._pick_pair(pairs[0].id if pairs else None)

    def _same_dataset(self, evaluation_id: str) -> list[str]:
        """The other evaluations of the dataset of ``evaluation_id``, oldest first."""
        chosen = self._evaluations.get(evaluation_id)
        return [
            e.id
            for e in self._evaluations.values()
            if chosen is not None and e.dataset_id == chosen.dataset_id and e.id != chosen.id
        ]

    def _pick_pair(self, after_id: str | None) -> None:
        """Set the compare pickers: ``after_id`` and the evaluation of its dataset just before it
        (both empty, with a hint, when that dataset has a single evaluation)."""
        order = list(self._evaluations)  # oldest first
        others = self._same_dataset(after_id) if after_id is not None else []
        earlier = [i for i in others if order.index(i) < order.index(after_id)]
        before_id = (earlier or others or [None])[-1]
        with self._syncing:
            self._w["before"].options = [(self._labels[i], i) for i in self._evaluations]
            self._w["before"].value = before_id
            self._fill_after(before_id, after_id if before_id is not None else None)
        self._w["compare_hint"].value = "" if before_id else f"<i>{esc(COMPARE_HINT)}</i>"

    def _fill_after(self, before_id: str | None, after_id: str | None = None) -> None:
        """The "with" picker lists the evaluations of the same dataset as ``before_id`` only;
        default: ``after_id``, else the latest one (the latest earlier one when none came later)."""
        others = self._same_dataset(before_id) if before_id is not None else []
        if after_id not in others:
            order = list(self._evaluations)
            later = [i for i in others if order.index(i) > order.index(before_id)]
            after_id = (later or others or [None])[-1]
        with self._syncing:
            self._w["after"].options = [(self._labels[i], i) for i in others]
            self._w["after"].value = after_id

    def _compare_from_controls(self) -> None:
        before, after = self._w["before"].value, self._w["after"].value
        if before is None or after is None:
            self._w["message"].value = f"<i>{esc(COMPARE_HINT)}</i>"
            return
        self.compare(before, after)

    def _guard(self, action: Any) -> None:
        show_errors(action, self._w["message"])

    def _on_change(self, action: Any) -> Any:
        return lambda change: None if self._syncing else self._guard(lambda: action(change["new"]))

    def _build(self) -> None:
        import ipywidgets as w

        self._syncing = Quiet()
        self._evaluations: dict[str, Any] = {}
        self._labels: dict[str, str] = {}
        auto = {"description_width": "initial"}
        pick = {"style": auto, "layout": w.Layout(width="auto", min_width="260px")}
        button = {"layout": w.Layout(width="auto")}
        self._w = {
            "project": w.Dropdown(options=[], description="project", **pick),
            "refresh": w.Button(description="Refresh", icon="refresh"),
            "kind": w.ToggleButtons(options=list(KINDS), value=self.kind, style={"button_width": "auto"}),
            "table": w.HTML(),
            "dataset": w.Dropdown(options=[], description="dataset", **pick),
            "open_dataset": w.Button(description="Open dataset", icon="list", **button),
            "evaluation": w.Dropdown(options=[], description="evaluation", **pick),
            "open_evaluation": w.Button(description="Open results", icon="table", **button),
            "scan": w.Dropdown(options=[], description="scan", **pick),
            "open_scan": w.Button(description="Open report", icon="shield", **button),
            "before": w.Dropdown(options=[], description="compare", **pick),
            "after": w.Dropdown(options=[], description="with", **pick),
            "compare": w.Button(description="Compare", icon="exchange", **button),
            "compare_hint": w.HTML(),
            "message": w.HTML(),
            "detail": w.VBox(),
        }  # fmt: skip
        ww = self._w
        ww["project"].observe(self._on_change(self.select_project), names="value")
        ww["kind"].observe(self._on_change(self.show), names="value")
        ww["before"].observe(self._on_change(self._fill_after), names="value")
        ww["refresh"].on_click(lambda _: self._guard(self.refresh))
        for key, action in (
            ("dataset", self.open_dataset),
            ("evaluation", self.open_evaluation),
            ("scan", self.open_scan),
        ):
            ww[f"open_{key}"].on_click(
                lambda _, key=key, action=action: self._guard(lambda: action(self._picked(key)))
            )
        ww["compare"].on_click(lambda _: self._guard(self._compare_from_controls))
        self.widget = w.VBox(
            [
                w.HBox([ww["project"], ww["refresh"]]),
                ww["kind"],
                ww["table"],
                w.HBox([ww["dataset"], ww["open_dataset"]]),
                w.HBox([ww["evaluation"], ww["open_evaluation"]]),
                w.HBox([ww["scan"], ww["open_scan"]]),
                w.HBox([ww["before"], ww["after"], ww["compare"]]),
                ww["compare_hint"],
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
