"""ScanRunner: choose vulnerability categories, see the preflight estimate, run the scan in the
background with progress, see the grade card, review the attempts.

Every button has a method: ``estimate()``, ``run()``, ``cancel()``, ``review(attempt_id, status)``.
The scan itself is ``giskard_nb.scan.run_scan``; the outcome is its ``ScanReport``. The preflight lists
the selected categories this configuration cannot assess (no judge model), and the grade card of an
incomplete scan says so next to the letter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.palette import GRADE_COLORS, INCOMPLETE_COLOR, NO_GRADE_COLOR
from giskard_nb.widgets._common import Job, View, badge, error_html, esc
from giskard_nb.widgets._render import conversation_html

__all__ = ["ScanRunner"]

_REVIEW = ("pending", "ignored", "acknowledged", "corrected")


class ScanRunner(View):
    """Scan ``agent`` (a function of the ``[{role, content}]`` messages, sync or async).

    ``categories``: preselected category ids (default: all); other keyword options go to
    ``run_scan`` (``judge=``, ``generator=``, ``profile=``, ``budget=``...). ``on_finish(report)``
    is called with the ScanReport (for example to store it).
    """

    def __init__(
        self,
        agent: Callable[..., Any],
        *,
        categories: Sequence[str] | None = None,
        max_attempts_per_probe: int = 3,
        page_size: int = 15,
        on_finish: Callable[[Any], Any] | None = None,
        **scan_options: Any,
    ):
        from giskard_nb.scan import list_categories

        if not callable(agent):
            raise GiskardValidationError("ScanRunner needs the agent: a function of the messages")
        self.agent = agent
        self.catalogue = {c.id: c for c in list_categories()}
        chosen = list(categories) if categories is not None else list(self.catalogue)
        unknown = [c for c in chosen if c not in self.catalogue]
        if unknown:
            raise GiskardValidationError(
                f"unknown categories {unknown}: choose among {', '.join(self.catalogue)}"
            )
        self.scan_options = scan_options
        self.page_size = page_size
        self.on_finish = on_finish
        self.report: Any = None
        self.job: Job | None = None
        self.state = "idle"
        self.done_attempts = 0
        self.findings = 0
        self._planned = 0
        self._build(chosen, max_attempts_per_probe)
        self.estimate()

    # -- actions -------------------------------------------------------------------------------------

    @property
    def categories(self) -> list[str]:
        return list(self._w["categories"].value)

    def select(self, categories: Sequence[str]) -> None:
        """Choose the categories to scan (the estimate follows)."""
        self._w["categories"].value = tuple(categories)

    def estimate(self) -> Any:
        """The preflight estimate (attacks, agent and model calls, tokens, cost) of the selection."""
        from giskard_nb.scan import estimate_scan

        if not self.categories:
            self._w["estimate"].value = "<i>choose at least one category</i>"
            return None
        try:
            est = estimate_scan(**self._options())
        except GiskardNBError as exc:
            self._w["estimate"].value = error_html(exc)
            return None
        self._planned = est.attacks
        text, *warnings = str(est).split("\n")
        self._w["estimate"].value = f"<b>Preflight:</b> {esc(text)}" + "".join(
            f"<br><span class='giskard-preflight-warning' style='color:{INCOMPLETE_COLOR}'>⚠ "
            f"{esc(w.removeprefix('warning: '), 1000)}</span>"
            for w in warnings
        )
        return est

    def run(self) -> Job:
        """Start the scan in the background; ``await runner.job`` for the ScanReport."""
        from giskard_nb.scan import run_scan

        if self.job is not None and not self.job.done():
            raise GiskardValidationError("a scan is already running: cancel() it first")
        if not self.categories:
            raise GiskardValidationError("choose at least one category to scan")
        self.estimate()
        self.report, self.done_attempts, self.findings = None, 0, 0
        self.state = "running"
        self._w["progress"].max = max(1, self._planned)
        self._w["review"].children = []
        self._w["card"].value = ""
        self._refresh()
        coro = run_scan(self.agent, on_attempt=self._on_attempt, **self._options())
        self.job = Job(coro, on_done=self._on_done, name="giskard-nb-scan")
        return self.job

    def cancel(self) -> bool:
        if self.job is None or self.job.done():
            return False
        self.state = "cancelling"
        self._refresh()
        return self.job.cancel()

    def review(self, attempt_id: str, review_status: str) -> Any:
        """Mark an attempt ``pending``, ``ignored`` (a false positive: out of the grade),
        ``acknowledged`` or ``corrected``; the grade card follows. Returns the attempt."""
        if self.report is None:
            raise GiskardValidationError("no scan to review yet: run() first")
        if review_status not in _REVIEW:
            raise GiskardValidationError(
                f"unknown review status {review_status!r}: use one of {', '.join(_REVIEW)}"
            )
        attempt = self.report.review(attempt_id, review_status=review_status)
        self._render_report()
        return attempt

    # -- internals -----------------------------------------------------------------------------------

    def _options(self) -> dict[str, Any]:
        return {
            **self.scan_options,
            "categories": self.categories,
            "max_attempts_per_probe": self._w["attempts"].value,
        }

    def _on_attempt(self, attempt: Any) -> None:  # live count; the report's replaces it at the end
        self.done_attempts += 1
        self.findings += bool(attempt.counts)
        self._refresh()

    def _on_done(self, job: Job) -> None:
        if job.error is None:
            self.report = job.result()
            self.state = "finished"
        else:
            self.state = "cancelled" if job.cancelled else "failed"
            self._error = f"{type(job.error).__name__}: {job.error}"
        self._refresh()
        if self.report is not None:
            self._render_report()
            if self.on_finish is not None:
                self.on_finish(self.report)

    def _refresh(self) -> None:
        w = self._w
        w["progress"].value = min(self.done_attempts, w["progress"].max)
        w["counts"].value = (
            f"{self.done_attempts} / {self._planned} attempts — "
            f"{badge('fail' if self.findings else 'pass', f'{self.findings} findings')}"
        )
        w["state"].value = {
            "idle": "Choose categories, check the estimate, then Scan.",
            "running": "Scanning…",
            "cancelling": "Cancelling…",
            "finished": "Finished.",
            "cancelled": f"Cancelled after {self.done_attempts} attempts.",
            "failed": f"The scan failed: {getattr(self, '_error', '')}",
        }[self.state]
        running = self.state in ("running", "cancelling")
        w["run"].disabled, w["cancel"].disabled = running, not running

    def _render_report(self) -> None:
        import ipywidgets as w

        report = self.report
        self.findings = len(report.findings)  # the counter and the card read the same findings
        self._refresh()
        grade = report.grade or "—"
        color = GRADE_COLORS.get(grade, NO_GRADE_COLOR)
        note = ""
        if report.incomplete:
            note = (
                f"<br>{badge('error', 'incomplete')} <span class='giskard-coverage-note' "
                f"style='color:{INCOMPLETE_COLOR}'>{esc(report.grade_line, 1000)}</span>"
            )
        self._w["card"].value = (
            "<div class='giskard-grade-card' style='display:flex;gap:12px;align-items:center'>"
            f"<div style='background:{color};color:#fff;font-size:40px;font-weight:bold;"
            f"padding:4px 18px;border-radius:6px'>{esc(grade)}</div><div>"
            f"{esc(report.counts_line)}<br>highest severity: "
            f"{esc(report.highest_severity.label)}{note}</div></div>"
        )
        rows = []
        shown = [a for a in report.attempts if a.successful or a.error][: self.page_size]
        for a in shown:
            status = w.Dropdown(
                options=_REVIEW, value=str(a.review_status), layout=w.Layout(width="140px")
            )
            status.observe(
                lambda ch, attempt_id=a.id: self._guard(lambda: self.review(attempt_id, ch["new"])),
                names="value",
            )
            kind = "error" if a.error else ("fail" if a.counts else "skip")
            head = (
                f"{badge(kind, a.status)} <b>{esc(a.probe_name or a.probe_id)}</b> "
                f"({esc(a.category)}, {esc(a.severity.label)}) — {esc(a.reason or a.error or '', 300)}"
            )
            reply = {"role": "assistant", "content": a.output, "tool_calls": a.tool_calls}
            detail = (
                "<details><summary>conversation</summary>"
                f"{conversation_html([*a.input_messages, reply])}</details>"
            )
            rows.append(w.VBox([w.HBox([status, w.HTML(head)]), w.HTML(detail)]))
        more = len([a for a in report.attempts if a.successful or a.error]) - len(shown)
        if more > 0:
            rows.append(w.HTML(f"<i>… and {more} more in runner.report.attempts</i>"))
        self._w["review"].children = rows

    def _guard(self, action: Callable[[], Any]) -> None:
        try:
            action()
        except (GiskardNBError, ValueError) as exc:
            self._w["state"].value = str(exc)

    def _build(self, chosen: list[str], attempts: int) -> None:
        import ipywidgets as w

        options = [
            (f"{c.title} ({c.owasp_id.split(':')[0]})" if c.owasp_id else c.title, c.id)
            for c in self.catalogue.values()
        ]
        self._w = {
            "categories": w.SelectMultiple(
                options=options, value=tuple(chosen), rows=len(options),  # every category in view
                description="categories", layout=w.Layout(width="520px"),
            ),
            "attempts": w.BoundedIntText(
                value=attempts, min=1, max=50, description="attacks/probe",
                style={"description_width": "initial"}, layout=w.Layout(width="auto"),
            ),
            "estimate": w.HTML(),
            "run": w.Button(description="Scan", button_style="danger", icon="shield"),
            "cancel": w.Button(description="Cancel", icon="stop", disabled=True),
            "progress": w.IntProgress(value=0, min=0, max=1, description="progress"),
            "counts": w.HTML(),
            "state": w.Label(),
            "card": w.HTML(),
            "review": w.VBox(),
        }  # fmt: skip
        ww = self._w
        ww["run"].add_class("giskard-scan-button")  # for the real-browser test
        ww["state"].add_class("giskard-scan-state")
        ww["categories"].observe(lambda _: self.estimate(), names="value")
        ww["attempts"].observe(lambda _: self.estimate(), names="value")
        ww["run"].on_click(lambda _: self._guard(self.run))
        ww["cancel"].on_click(lambda _: self.cancel())
        self.widget = w.VBox(
            [
                w.HBox([ww["categories"], ww["attempts"]]),
                ww["estimate"],
                w.HBox([ww["run"], ww["cancel"]]),
                w.HBox([ww["progress"], ww["counts"]]),
                ww["state"],
                ww["card"],
                ww["review"],
            ]
        )
        self.widget.add_class("giskard-scan-runner")
        self._refresh()
