"""The ResultsViewer's labelling controls: for each check of the opened result with a PASS or FAIL
verdict, an agree / disagree toggle and an optional note, written through a ``LabelSink``.

"agree" means the person agrees with the check's verdict, so the stored human verdict is
``passed = (the check passed)``; "disagree" stores the opposite. A label already stored shows as
chosen. Keyboard: Tab moves between the toggles and notes, Space or Enter presses the focused button, Enter
in a note saves it; once every check of the result is labelled the focus moves to "Next unlabelled"
(Enter opens the next result to label, and the focus moves to its first toggle).
"""

from __future__ import annotations

from typing import Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Quiet, badge, esc, show_errors
from giskard_nb.widgets.label_sink import LabelSink
from giskard_nb.widgets.viewer_items import ViewerItem

__all__ = ["AGREE", "DISAGREE", "LabelMethods", "LabelPanel", "verdicts"]

AGREE, DISAGREE = "agree", "disagree"


def verdicts(item: ViewerItem) -> dict[str, bool]:
    """The checks of a result that gave a verdict to label: ``{check: the check passed}`` (an
    errored or skipped check has none)."""
    return {c: s == "pass" for c, s in sorted(item.checks.items()) if s in ("pass", "fail")}


def _reason(item: ViewerItem, check: str) -> str:
    return next(
        (cr.message or "" for cr in item.result.check_results if cr.check_name == check), ""
    )


class LabelPanel:
    """The labelling controls of one viewer (``widget``); the viewer calls ``show`` when it opens a
    result and ``write`` for each label. ``focused`` is the control the focus was last moved to."""

    def __init__(self, sink: LabelSink):
        import ipywidgets as w

        self.sink = sink
        self._known: dict[int, dict[str, dict[str, Any]]] = {}  # index -> this labeler's labels
        self._quiet = Quiet()  # true while code sets a control: its change stores nothing
        self.index: int | None = None
        self._verdicts: dict[str, bool] = {}  # check -> its verdict, on the opened result
        self.controls: dict[str, tuple[Any, Any]] = {}  # check -> (toggle, note), opened result
        self.focused: Any = None
        self.title = w.HTML("<i>open a result to label the verdicts of its checks</i>")
        self.rows = w.VBox()
        self.next_button = w.Button(
            description="Next unlabelled ▶",
            tooltip="open the next result (among those the filters show) with a verdict to label",
        )
        self.next_button.add_class("giskard-next-unlabelled")
        self.message = w.HTML()
        self.widget = w.VBox([self.title, self.rows, w.HBox([self.next_button, self.message])])
        self.widget.add_class("giskard-labels")

    # -- labels -----------------------------------------------------------------------------------

    def existing(self, index: int, item: ViewerItem) -> dict[str, dict[str, Any]]:
        """This labeler's labels on result ``index`` (asked of the sink once per viewer)."""
        if index not in self._known:
            self._known[index] = dict(self.sink.existing(self.sink.key_of(item)))
        return self._known[index]

    def unlabelled(self, index: int, item: ViewerItem) -> list[str]:
        """The checks of result ``index`` with a verdict this labeler has not labelled yet."""
        done = self.existing(index, item)
        return [c for c in verdicts(item) if c not in done]

    def write(self, index: int, item: ViewerItem, check: str, choice: str, note: str | None) -> Any:
        """Store ``choice`` ("agree" / "disagree") on ``check`` of result ``index`` as the human
        verdict; returns what the sink stored."""
        given = verdicts(item)
        if check not in given:
            known = ", ".join(map(repr, given)) or "none"
            raise GiskardValidationError(
                f"result #{index} has no PASS/FAIL verdict of a check named {str(check)[:200]!r} to "
                f"label; its checks with a verdict: {known}"
            )
        if choice not in (AGREE, DISAGREE):
            raise GiskardValidationError(
                f"choose 'agree' (the check is right) or 'disagree' (it is wrong), not {choice!r:.80}"
            )
        if note is not None and not isinstance(note, str):
            raise GiskardValidationError(f"note must be text or None, got {type(note).__name__}")
        note = (note or "").strip() or None
        passed = given[check] if choice == AGREE else not given[check]
        saved = self.sink.label(self.sink.key_of(item), check, passed, note)
        stored = (
            saved.get("note", note) if isinstance(saved, dict) else getattr(saved, "note", note)
        )
        self.existing(index, item)[check] = {"passed": passed, "note": stored}
        if self.index == index:
            self._sync(check)
            verdict = "PASS" if passed else "FAIL"
            self.message.value = f"saved: {esc(check, 200)} should {verdict} ({choice})" + (
                f" — note: {esc(stored, 300)}" if stored else ""
            )
            if not self.unlabelled(index, item):
                self.focus(self.next_button)
        return saved

    # -- controls ---------------------------------------------------------------------------------

    def show(self, index: int, item: ViewerItem, on_label: Any) -> None:
        """One row per check of result ``index`` with a verdict: its name, status and reason, the
        toggle (the stored label chosen) and the note. ``on_label(check, choice, note)`` stores."""
        import ipywidgets as w

        for toggle, note in self.controls.values():
            toggle.close()
            note.close()
        self.index, self.controls, self.message.value = index, {}, ""
        given = self._verdicts = verdicts(item)
        self.existing(index, item)  # read once: the rows below show the stored labels
        rows = []
        for check, passed in given.items():
            toggle = w.ToggleButtons(
                options=[AGREE, DISAGREE],
                value=None,
                tooltips=["the check's verdict is right", "the check's verdict is wrong"],
                style={"button_width": "80px"},
            )
            toggle.add_class("giskard-label-toggle")
            note = w.Text(
                placeholder="note (optional; Enter saves)",
                continuous_update=False,
                layout=w.Layout(width="300px"),
            )
            self.controls[check] = (toggle, note)
            self._sync(check)
            toggle.observe(self._on_toggle(check, on_label), names="value")
            note.observe(self._on_note(check, on_label), names="value")
            head = w.HTML(
                f"<b>{esc(check, 200)}</b> {badge('pass' if passed else 'fail')} "
                f"<small>{esc(_reason(item, check), 300)}</small>",
                layout=w.Layout(width="420px"),
            )
            row = w.HBox([head, toggle, note])
            row.add_class("giskard-label-row")
            rows.append(row)
        self.rows.children = rows
        labelled = len(given) - len(self.unlabelled(index, item))
        self.title.value = (
            f"<b>Your verdicts</b> on #{index} ({labelled} of {len(given)} labelled): agree when "
            "the check is right, disagree when it is wrong"
            if given
            else f"<i>#{index} has no PASS/FAIL verdict to label (its checks errored or were "
            "skipped)</i>"
        )

    def focus(self, control: Any) -> None:
        """Move the keyboard focus to ``control`` (in the notebook; remembered as ``focused``)."""
        self.focused = control
        control.focus()

    def focus_first_unlabelled(self, item: ViewerItem) -> None:
        if self.index is None:
            return
        todo = self.unlabelled(self.index, item)
        if todo:
            self.focus(self.controls[todo[0]][0])

    def _sync(self, check: str, *, note: bool = True) -> None:
        """Show the stored label of ``check`` in its toggle (none: no choice) and its note."""
        toggle, text = self.controls[check]
        label = self._known.get(self.index, {}).get(check) if self.index is not None else None
        with self._quiet:
            if label is None:
                toggle.value = None
            else:
                toggle.value = AGREE if label["passed"] == self._verdicts[check] else DISAGREE
                if note:
                    text.value = label.get("note") or ""

    def _store(self, check: str, choice: str, note: str, on_label: Any) -> None:
        """Store from the controls; a refused label puts the toggle back as stored (the error shows,
        the typed note stays to be fixed)."""
        show_errors(lambda: on_label(check, choice, note), self.message)
        self._sync(check, note=False)

    def _on_toggle(self, check: str, on_label: Any) -> Any:
        def changed(change: Any) -> None:
            if not self._quiet and change["new"] is not None:
                self._store(check, change["new"], self.controls[check][1].value, on_label)

        return changed

    def _on_note(self, check: str, on_label: Any) -> Any:
        def changed(change: Any) -> None:
            if self._quiet:
                return
            choice = self.controls[check][0].value
            if choice is None:
                what = esc(check, 200)
                self.message.value = (
                    f"<i>choose agree or disagree for {what}: the note goes with it</i>"
                )
                return
            self._store(check, choice, change["new"], on_label)

        return changed


class LabelMethods:
    """The ResultsViewer's labelling methods (its rows ``items``, the filtered ``matches``, the
    ``opened`` result, its ``labelling`` panel, ``_item``, ``go_to_page`` and ``open`` are the
    viewer's)."""

    items: list[ViewerItem]
    matches: list[int]
    opened: int | None
    page_size: int
    labelling: LabelPanel | None

    def label(self, index: int, check: str, choice: str, note: str | None = None) -> Any:
        """Say whether check ``check``'s verdict on result ``index`` is right (``"agree"``) or wrong
        (``"disagree"``), with an optional note: stored as your verdict (``passed``) through the
        labels sink; returns what it stored. The agree / disagree buttons do the same."""
        panel = self._labelling()
        return panel.write(index, self._item(index), check, choice, note)

    def next_unlabelled(self) -> int | None:
        """Open the next result (after the opened one, among those the filters keep, from the first
        again at the end) with a verdict you have not labelled; its index, or ``None`` when every
        one is labelled. The "Next unlabelled" button does the same, and moves the focus there."""
        panel = self._labelling()
        start = self.matches.index(self.opened) + 1 if self.opened in self.matches else 0
        for index in self.matches[start:] + self.matches[:start]:
            if panel.unlabelled(index, self.items[index]):
                self.go_to_page(self.matches.index(index) // self.page_size)
                self.open(index)
                panel.focus_first_unlabelled(self.items[index])
                return index
        panel.message.value = "<i>every verdict of the results the filters keep is labelled</i>"
        return None

    def _labelling(self) -> LabelPanel:
        if self.labelling is None:
            raise GiskardValidationError(
                "this viewer does not label verdicts: open it with a labels file and your name, "
                "e.g. ResultsViewer(result, labels='labels.jsonl', labeler='ana')"
            )
        return self.labelling

    def _label_opened(self, check: str, choice: str, note: str | None) -> None:
        if self.opened is not None:
            self.label(self.opened, check, choice, note)
