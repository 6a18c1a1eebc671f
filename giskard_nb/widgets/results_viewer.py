"""ResultsViewer: filter, page through and open results; relabel a failure's category; label the
checks' verdicts (agree / disagree, ``widgets/label_panel.py``).

The page's results are a clickable list (clicking a row opens it; the first visible row is selected
by default). Every control has a method (``filter``, ``next_page``, ``previous_page``, ``open``,
``relabel``, ``label``, ``next_unlabelled``), so the viewer is scriptable and tested without a browser. The index it filters on is built in one pass over
the results; a page renders only its own rows, so large result sets stay quick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.widgets._common import LiveFilters, Quiet, View, badge, error_html, esc
from giskard_nb.widgets._render import table_html
from giskard_nb.widgets.label_panel import LabelMethods, LabelPanel, verdicts
from giskard_nb.widgets.label_sink import LabelSink, label_sink
from giskard_nb.widgets.viewer_items import (
    ViewerItem,
    detail_html,
    is_hub_evaluation,
    items_of,
    row_label,
)

__all__ = ["ResultsViewer", "ViewerItem"]

ALL = "(all)"


class ResultsViewer(View, LabelMethods):
    """Browse results: filter by status, check, failure category, tag and text; page; open one.

    ``results``: a SuiteResult, a ScenarioResult, a list of them, or a Hub ``Evaluation`` (its
    project's failure categories are offered, and relabelling stores the new category in the Hub).

    ``categories`` are the failure categories offered for relabelling; ``on_relabel(item, category)``
    is called after a relabel (the Hub uses it to store the new label).

    Labelling verdicts: ``labels`` (a labels file, or a ``LabelSink``) and ``labeler`` (your name)
    add an agree / disagree control per check of the opened result; a Hub evaluation's labels go to
    the Hub (labeler: the Hub's actor unless given); core results with only ``labeler`` use the
    default labels file. ``labelling`` is the ``LabelPanel`` (``None`` without labelling).
    """

    def __init__(
        self,
        results: Any,
        *,
        page_size: int = 20,
        categories: Sequence[str] = (),
        on_relabel: Callable[[ViewerItem, str | None], Any] | None = None,
        labels: str | Path | LabelSink | None = None,
        labeler: str | None = None,
    ):
        if page_size < 1:
            raise GiskardValidationError(f"page_size must be >= 1, got {page_size!r}")
        hub = results.hub if is_hub_evaluation(results) else None
        sink = label_sink(labels, labeler, hub)
        if hub is not None:  # a stored Hub evaluation: relabels go to the Hub
            from giskard_nb.widgets.viewer_items import evaluation_items

            self.items, hub_categories, store = evaluation_items(results.hub, results)
            categories = [*hub_categories, *categories]
            on_relabel = on_relabel or store
        else:
            self.items = items_of(results)
        self.page_size = page_size
        self.on_relabel = on_relabel
        known = {i.failure_category for i in self.items} - {None}
        self.categories = list(dict.fromkeys([*categories, *sorted(known)]))
        self.matches: list[int] = list(range(len(self.items)))
        self.page = 0
        self.opened: int | None = None
        self._picking = Quiet()  # true while code sets the list: its selection then opens nothing
        self.labelling: LabelPanel | None = None
        if sink is not None:  # as many label rows as the most checks a result has
            most = max((len(verdicts(item)) for item in self.items), default=0)
            self.labelling = LabelPanel(sink, self._label_opened, rows=most)
        self._build()
        self._render_page()

    # -- actions (each button calls one of these) -----------------------------------------------------

    def filter(
        self,
        *,
        status: str | None = None,
        check: str | None = None,
        tag: str | None = None,
        failure_category: str | None = None,
        search: str | None = None,
    ) -> list[int]:
        """Keep the results matching every given criterion; returns their indices (page 1 shown).

        With ``check``, ``status`` applies to that check's status in each result (e.g. the results
        where ``check`` failed); otherwise to the result's own status."""
        for name, value, options in (
            ("status", status, ("pass", "fail", "error", "skip")),
            ("check", check, self._check_names),
            ("tag", tag, self._tags),
            ("failure_category", failure_category, self.categories),
        ):
            if value is not None and value not in options:
                raise GiskardValidationError(
                    f"unknown {name} {value!r}: choose one of {', '.join(map(repr, options))}"
                )
        needle = (search or "").strip().casefold()
        out = []
        for i, item in enumerate(self.items):
            if check is not None:
                got = item.checks.get(check)
                if got is None or (status is not None and got != status):
                    continue
            elif status is not None and item.status != status:
                continue
            if tag is not None and tag not in item.tags:
                continue
            if failure_category is not None and item.failure_category != failure_category:
                continue
            if needle and needle not in self._haystack(item):
                continue
            out.append(i)
        self.matches = out
        self.page = 0
        self._sync_controls(status, check, tag, failure_category, search)
        self._render_page()
        return out

    def clear_filters(self) -> None:
        self.filter()

    @property
    def page_count(self) -> int:
        return max(1, -(-len(self.matches) // self.page_size))

    def go_to_page(self, page: int) -> None:
        """Show page ``page`` (0-based), clamped to the pages that exist."""
        self.page = min(max(0, page), self.page_count - 1)
        self._render_page()

    def next_page(self) -> None:
        self.go_to_page(self.page + 1)

    def previous_page(self) -> None:
        self.go_to_page(self.page - 1)

    @property
    def page_items(self) -> list[tuple[int, ViewerItem]]:
        start = self.page * self.page_size
        return [(i, self.items[i]) for i in self.matches[start : start + self.page_size]]

    @property
    def selected(self) -> int | None:
        """The index of the result selected in the list (``None`` when no result is visible)."""
        return self._w["pick"].value

    def _item(self, index: int) -> ViewerItem:
        if not isinstance(index, int) or not 0 <= index < len(self.items):
            raise GiskardValidationError(
                f"no result #{index}: indices go from 0 to {len(self.items) - 1}"
            )
        return self.items[index]

    def open(self, index: int) -> str:
        """Show one result in full (conversation, agent output, every check's reason); returns the HTML.
        Clicking a row of the list does the same."""
        self._item(index)
        self.opened = index
        if index in dict(self._w["pick"].options).values():
            with self._picking:
                self._w["pick"].value = index
        self._w["category"].value = self.items[index].failure_category or ""
        self._w["detail"].value = self.detail_html(index)
        if self.labelling is not None:
            self.labelling.show(index, self.items[index])
        return self._w["detail"].value

    def relabel(self, index: int, category: str | None) -> ViewerItem:
        """Set (or clear, with ``None``) the failure category of result ``index``."""
        if category is not None and not category.strip():
            raise GiskardValidationError("a failure category must be a non-empty string, or None")
        item = self._item(index)
        if category is not None and item.status in ("pass", "skip"):
            raise GiskardValidationError(
                f"result {index} ({item.name!r}) did not fail (status {item.status}): only a failed "
                "or errored result takes a failure category"
            )
        if self.on_relabel is not None:  # store first: a refused label changes nothing here
            self.on_relabel(item, category)
        item.failure_category = category
        if category is not None and category not in self.categories:
            self.categories.append(category)
            self._w["category"].options = list(self.categories)
            self._w["f_category"].options = [ALL, *self.categories]
        if self.opened == index:
            self._w["detail"].value = self.detail_html(index)
        self._render_page()
        return item

    def to_dataframe(self, *, level: str = "scenarios"):
        """The results currently matching the filters, as ``to_dataframe`` frames them, plus
        ``failure_category``."""
        import pandas as pd

        from giskard_nb.frames import to_dataframe

        chosen = [self.items[i] for i in self.matches]
        if not chosen:
            return pd.DataFrame()
        df = to_dataframe([it.result for it in chosen], level=level)
        categories = {n: it.failure_category for n, it in enumerate(chosen)}
        df["failure_category"] = df["scenario_index"].map(categories).astype("string")
        df["scenario_index"] = df["scenario_index"].map(dict(enumerate(self.matches)))
        return df

    # -- rendering -------------------------------------------------------------------------------------

    def _haystack(self, item: ViewerItem) -> str:
        last = item.result.final_trace.last
        text = f"{item.name} {last.inputs if last else ''} {last.outputs if last else ''}"
        return text.casefold()

    @property
    def _check_names(self) -> list[str]:
        return sorted({c for it in self.items for c in it.checks})

    @property
    def _tags(self) -> list[str]:
        return sorted({t for it in self.items for t in it.tags})

    def detail_html(self, index: int) -> str:
        """One result in full, as HTML: conversation, failure category, every check's reason."""
        return detail_html(index, self.items[index])

    def _build(self) -> None:
        import ipywidgets as w

        def dropdown(options: list[str], description: str) -> Any:
            return w.Dropdown(
                options=[ALL, *options],
                value=ALL,
                description=description,
                layout=w.Layout(width="220px"),
                style={"description_width": "60px"},
            )

        self._w = {
            "f_status": dropdown(["pass", "fail", "error", "skip"], "status"),
            "f_check": dropdown(self._check_names, "check"),
            "f_tag": dropdown(self._tags, "tag"),
            "f_category": dropdown(self.categories, "category"),
            "f_search": w.Text(
                placeholder="search name / input / output (filters as you type)",
                description="text",
                layout=w.Layout(width="420px"),
                style={"description_width": "60px"},
            ),
            "clear": w.Button(description="Clear"),
            "prev": w.Button(description="◀ Previous"),
            "next": w.Button(description="Next ▶"),
            "page_label": w.Label(),
            "table": w.HTML(),
            "pick": w.Select(
                options=[],
                description="open",
                layout=w.Layout(width="460px"),
                style={"description_width": "60px"},
            ),
            "open": w.Button(description="Open", tooltip="show the selected result in full"),
            "category": w.Combobox(
                options=list(self.categories), placeholder="failure category (empty: none)"
            ),
            "relabel": w.Button(description="Relabel"),
            "detail": w.HTML(),
        }
        ww = self._w
        self._live = LiveFilters(  # dropdowns filter at once, the text box once typing pauses
            lambda: self._guarded(self._apply_from_controls),
            [ww[k] for k in ("f_status", "f_check", "f_tag", "f_category")],
            ww["f_search"],
        )
        ww["clear"].on_click(lambda _: self.clear_filters())
        ww["prev"].on_click(lambda _: self.previous_page())
        ww["next"].on_click(lambda _: self.next_page())
        ww["pick"].observe(self._on_pick, names="value")
        ww["open"].on_click(lambda _: self._guarded(self._open_selected))
        ww["relabel"].on_click(lambda _: self._guarded(self._relabel_from_controls))
        self.widget = w.VBox(
            [
                w.HBox([ww["f_status"], ww["f_check"], ww["f_tag"], ww["f_category"]]),
                w.HBox([ww["f_search"], ww["clear"]]),
                ww["table"],
                w.HBox([ww["prev"], ww["page_label"], ww["next"]]),
                w.HBox([ww["pick"], w.VBox([ww["open"], ww["category"], ww["relabel"]])]),
                *([self.labelling.widget] if self.labelling is not None else []),
                ww["detail"],
            ]
        )
        if self.labelling is not None:
            self.labelling.next_button.on_click(lambda _: self._guarded(self.next_unlabelled))
        self.widget.add_class("giskard-results-viewer")

    def _apply_from_controls(self) -> None:
        ww = self._w

        def value(key: str) -> str | None:
            v = ww[key].value
            return None if v == ALL else v

        self.filter(
            status=value("f_status"),
            check=value("f_check"),
            tag=value("f_tag"),
            failure_category=value("f_category"),
            search=ww["f_search"].value or None,
        )

    def _guarded(self, action: Any) -> None:
        try:
            action()
        except (GiskardNBError, ValueError) as exc:
            self._w["detail"].value = error_html(exc) + self._w["detail"].value

    def _open_selected(self) -> None:
        if self.selected is None:
            self._w["detail"].value = "<i>no result on this page: clear or change the filters</i>"
            return
        self.open(self.selected)

    def _on_pick(self, change: Any) -> None:
        """A click on a row opens it (a selection set by code has already set the relabel box)."""
        index = change["new"]
        if not self._picking and index is not None:
            self._guarded(lambda: self.open(index))

    def _relabel_from_controls(self) -> None:
        index = self.selected
        if index is None:
            self._w["detail"].value = (
                "<i>select a result in the list first (no result is shown: clear or change the "
                "filters), then relabel it</i>"
            )
            return
        value = self._w["category"].value.strip()
        self.relabel(index, None if value in ("", ALL) else value)
        if self.opened != index:
            self.open(index)

    def _sync_controls(self, status, check, tag, failure_category, search) -> None:
        ww = self._w
        with self._live.quiet():
            ww["f_status"].value = status or ALL
            ww["f_check"].value = check or ALL
            ww["f_tag"].value = tag or ALL
            ww["f_category"].value = failure_category or ALL
            if (ww["f_search"].value or "").strip() != (search or "").strip():
                ww["f_search"].value = search or ""

    def _render_page(self) -> None:
        rows = []
        for i, item in self.page_items:
            first = next(iter(item.result.format_failures()), "")
            category = esc(item.failure_category) if item.failure_category else ""
            rows.append(
                [str(i), badge(item.status), esc(item.name, 120), esc(first, 200), category,
                 f"<span style='white-space:nowrap'>{item.result.duration_ms:.0f} ms</span>"]
            )  # fmt: skip
        self._w["table"].value = table_html(
            ["#", "status", "scenario", "first failure", "failure category", "time"],
            rows,
            css_class="giskard-results-table",
            empty="no result matches these filters",
        )
        self._w["page_label"].value = (
            f"page {self.page + 1} of {self.page_count} — {len(self.matches)} of "
            f"{len(self.items)} results"
        )
        self._fill_pick()
        self._w["prev"].disabled = self.page == 0
        self._w["next"].disabled = self.page >= self.page_count - 1

    def _fill_pick(self) -> None:
        """The page's rows in the clickable list; selected: the opened result if it is on this
        page, else the first visible row (none when the filters hide every result)."""
        pick = self._w["pick"]
        options = [(row_label(i, item), i) for i, item in self.page_items]
        shown = [i for _, i in options]
        with self._picking:
            pick.options = options
            pick.rows = max(2, min(len(options), 10))
            pick.value = self.opened if self.opened in shown else (shown[0] if shown else None)
            self._w["category"].value = (
                self.items[pick.value].failure_category or "" if pick.value is not None else ""
            )
