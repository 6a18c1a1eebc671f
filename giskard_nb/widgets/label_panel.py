"""The ResultsViewer's labelling controls: for each check of the opened result with a PASS or FAIL
verdict, an agree and a disagree button and an optional note, written through a ``LabelSink``.

"agree" means the person agrees with the check's verdict, so the stored human verdict is
``passed = (the check passed)``; "disagree" stores the opposite. A label already stored shows as
chosen (its button highlighted, with a tick). Keyboard (in JupyterLab, as the browser test
checks): Enter or Space presses the focused button, Tab / Shift+Tab move between the buttons and
notes, Enter in a note saves it (type the note first, then choose). After a choice the focus moves
to the next check to label, then to "Next unlabelled", where Enter opens the next result to label
with the focus on its first "agree" button.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Quiet, badge, esc, show_errors
from giskard_nb.widgets.label_sink import LabelSink
from giskard_nb.widgets.viewer_items import ViewerItem

__all__ = ["AGREE", "DISAGREE", "LabelMethods", "LabelPanel", "LabelRow", "verdicts"]

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
    result and ``write`` for each label, and ``on_label(check, choice, note)`` is called when a
    control changes. ``focused`` is the control the focus was last moved to.

    The rows (``LabelRow``) are made once (``rows``: as many as the most checks with a verdict of
    one result) and reused from result to result: a control must already be on the page for the
    notebook to move the focus to it (a widget made and focused at once is not drawn yet)."""

    def __init__(self, sink: LabelSink, on_label: Any, rows: int = 1):
        import ipywidgets as w

        self.sink, self.on_label = sink, on_label
        self._known: dict[int, dict[str, dict[str, Any]]] = {}  # index -> this labeler's labels
        self._quiet = Quiet()  # true while code sets a control: its change stores nothing
        self.index: int | None = None
        self._opened: ViewerItem | None = None
        self._verdicts: dict[str, bool] = {}  # check -> its verdict, on the opened result
        self.controls: dict[str, LabelRow] = {}  # check -> its row, on the opened result
        self.focused: Any = None
        self.title = w.HTML("<i>open a result to label the verdicts of its checks</i>")
        self.slots: list[LabelRow] = []
        self.rows = w.VBox()
        self._add_rows(rows)
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
                f"result #{index} has no PASS/FAIL verdict of a check named "
                f"{str(check)[:200]!r} to label; its checks with a verdict: {known}"
            )
        if choice not in (AGREE, DISAGREE):
            raise GiskardValidationError(
                "choose 'agree' (the check is right) or 'disagree' (it is wrong), "
                f"not {choice!r:.80}"
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
            self._show_title()
            verdict = "PASS" if passed else "FAIL"
            self.message.value = f"saved: {esc(check, 200)} should {verdict} ({choice})" + (
                f" — note: {esc(stored, 300)}" if stored else ""
            )
        return saved

    # -- controls ---------------------------------------------------------------------------------

    def show(self, index: int, item: ViewerItem) -> None:
        """One row per check of result ``index`` with a verdict: its name, status and reason, the
        buttons (the stored label chosen) and the note; the other rows hidden."""
        self.index, self.controls, self.message.value = index, {}, ""
        self._opened = item
        given = self._verdicts = verdicts(item)
        self.existing(index, item)  # read once: the rows below show the stored labels
        self._add_rows(len(given) - len(self.slots))
        shown = list(given.items())
        for n, row in enumerate(self.slots):
            check, passed = shown[n] if n < len(shown) else (None, False)
            row.check = check
            row.box.layout.display = None if check is not None else "none"
            if check is None:
                continue
            self.controls[check] = row
            with self._quiet:
                row.note.value = ""
            self._sync(check)
            row.head.value = (
                f"<b>{esc(check, 200)}</b> {badge('pass' if passed else 'fail')} "
                f"<small>{esc(_reason(item, check), 300)}</small>"
            )
        self._show_title()

    def _show_title(self) -> None:
        index, given = self.index, self._verdicts
        if index is None or self._opened is None:
            return
        labelled = len(given) - len(self.unlabelled(index, self._opened))
        self.title.value = (
            f"<b>Your verdicts</b> on #{index} ({labelled} of {len(given)} labelled): agree when "
            "the check is right, disagree when it is wrong"
            if given
            else f"<i>#{index} has no PASS/FAIL verdict to label (its checks errored or were "
            "skipped)</i>"
        )

    def _add_rows(self, count: int) -> None:
        import ipywidgets as w

        for _ in range(max(0, count)):
            buttons = {
                choice: w.Button(description=choice, tooltip=tip, layout=w.Layout(width="110px"))
                for choice, tip in (
                    (AGREE, "the check's verdict is right"),
                    (DISAGREE, "the check's verdict is wrong"),
                )
            }
            note = w.Text(
                placeholder="note (optional; Enter saves)",
                continuous_update=False,
                layout=w.Layout(width="300px"),
            )
            head = w.HTML(layout=w.Layout(width="420px"))
            box = w.HBox([head, *buttons.values(), note], layout=w.Layout(display="none"))
            box.add_class("giskard-label-row")
            row = LabelRow(head, buttons[AGREE], buttons[DISAGREE], note, box)
            for choice, button in buttons.items():
                button.add_class(f"giskard-label-{choice}")
                button.on_click(lambda _, row=row, choice=choice: self._on_choice(row, choice))
            note.observe(lambda change, row=row: self._on_note(row, change), names="value")
            self.slots.append(row)
        self.rows.children = [row.box for row in self.slots]

    def focus(self, control: Any) -> None:
        """Move the keyboard focus to ``control`` (in the notebook; remembered as ``focused``)."""
        self.focused = control
        control.focus()

    def focus_first_unlabelled(self) -> None:
        """The focus on the "agree" button of the first check of the opened result left to label,
        else on "Next unlabelled"."""
        todo = self.unlabelled(self.index, self._opened) if self._opened is not None else []
        self.focus(self.controls[todo[0]].agree if todo else self.next_button)

    def _sync(self, check: str, *, note: bool = True) -> None:
        """Show the stored label of ``check`` on its buttons (none: neither chosen) and its note."""
        row = self.controls[check]
        label = self._known.get(self.index, {}).get(check) if self.index is not None else None
        if label is None:
            row.show_choice(None)
            return
        row.show_choice(AGREE if label["passed"] == self._verdicts[check] else DISAGREE)
        if note:
            with self._quiet:
                row.note.value = label.get("note") or ""

    def _on_choice(self, row: LabelRow, choice: str) -> None:
        """A button: store, then on to the next check to label (or "Next unlabelled")."""
        if row.check is None or self.index is None:
            return
        show_errors(lambda: self.on_label(row.check, choice, row.note.value), self.message)
        if row.choice == choice:  # stored (a refused label leaves the row as it was)
            self.focus_first_unlabelled()

    def _on_note(self, row: LabelRow, change: Any) -> None:
        """A note saved (Enter, or leaving the box): stored with the chosen verdict, if any; a
        refused note stays in the box to be fixed."""
        if self._quiet or row.check is None:
            return
        if row.choice is None:
            what = esc(row.check, 200)
            self.message.value = (
                f"<i>choose agree or disagree for {what}: the note goes with it</i>"
            )
            return
        check, choice = row.check, row.choice
        show_errors(lambda: self.on_label(check, choice, change["new"]), self.message)


@dataclass
class LabelRow:
    """One row of the panel: the check's name, status and reason (``head``), its ``agree`` and
    ``disagree`` buttons and its ``note``; ``choice`` is the stored choice the buttons show."""

    head: Any
    agree: Any
    disagree: Any
    note: Any
    box: Any
    check: str | None = None
    choice: str | None = None

    def button(self, choice: str) -> Any:
        return self.agree if choice == AGREE else self.disagree

    def show_choice(self, choice: str | None) -> None:
        """Highlight the chosen button (a tick and a colour), the other plain."""
        self.choice = choice
        for option in (AGREE, DISAGREE):
            button, chosen = self.button(option), option == choice
            button.button_style = "info" if chosen else ""
            button.icon = "check" if chosen else ""
            (button.add_class if chosen else button.remove_class)("giskard-chosen")


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
                panel.focus_first_unlabelled()
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
