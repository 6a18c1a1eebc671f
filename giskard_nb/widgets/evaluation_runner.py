"""EvaluationRunner: pick an agent and a dataset, run in the background with live counters, cancel,
open the results.

Two sources: core Suites run against Python agents (``agents=``, ``datasets=``), or a Hub project
(``hub=``, ``project_id=``): its datasets, its registered agents plus any Python agents given, each
run stored as a Hub evaluation whose results open in a ResultsViewer that relabels into the Hub.

The run is a ``Job`` (an asyncio task on the notebook's loop), so the kernel stays free while it
runs; synchronous agents are called on worker threads so they do not block that loop either.
Every button has a method: ``run()``, ``cancel()``, ``open_results()``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from giskard_nb.core.pass_rate import PassRate
from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.widgets._common import Job, View, badge, error_html
from giskard_nb.widgets.backends import HubBackend, SuiteBackend, offload_sync_agent
from giskard_nb.widgets.results_viewer import ResultsViewer

__all__ = ["EvaluationRunner", "offload_sync_agent"]

_LABELS = {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}


class EvaluationRunner(View):
    """Run a dataset against an agent from the notebook, with live progress.

    Core: ``agents`` is a callable or ``{name: callable}`` (of ``inputs``/``trace``), ``datasets``
    a Suite, a list of Scenarios or ``{name: ...}``; the outcome is a SuiteResult.
    Hub: ``hub`` and ``project_id``, optional local ``agents`` (functions of the message list); the
    outcome is the stored Hub ``Evaluation``. ``repeats=k`` runs each case k times (pass^k, pass@k,
    flaky cases and error bars in the outcome's summary). ``on_finish(outcome)`` is called at the end.
    """

    def __init__(
        self,
        agents: Any = None,
        datasets: Any = None,
        *,
        hub: Any = None,
        project_id: str | None = None,
        max_concurrency: int = 8,
        timeout: float | None = None,
        repeats: int = 1,
        page_size: int = 20,
        on_finish: Callable[[Any], Any] | None = None,
    ):
        from giskard_nb.core.suite import check_repeats

        options = {
            "max_concurrency": max_concurrency,
            "timeout": timeout,
            "repeats": check_repeats(repeats),
        }
        if hub is not None:
            if project_id is None or datasets is not None:
                raise GiskardValidationError(
                    "with hub=, give project_id= (the datasets are the project's) and no datasets="
                )
            self.backend: Any = HubBackend(hub, project_id, agents, **options)
        else:
            self.backend = SuiteBackend(agents, datasets, **options)
        self.page_size = page_size
        self.on_finish = on_finish
        self.job: Job | None = None
        self.result: Any = None
        self.viewer: ResultsViewer | None = None
        self.state = "idle"
        self.counts: dict[str, int] = dict.fromkeys(_LABELS, 0)
        self._total = 0
        self._error = ""
        self._started = 0.0
        self._build()

    # -- actions -------------------------------------------------------------------------------------

    def run(self, agent: str | None = None, dataset: str | None = None) -> Job:
        """Start the run in the background (names default to the dropdowns' choices); returns the job.
        ``await runner.job`` (notebook) or ``runner.job.wait()`` (script) for the outcome."""
        if self.job is not None and not self.job.done():
            raise GiskardValidationError("a run is already in progress: cancel() it first")
        agent = agent or self._w["agent"].value
        dataset = dataset or self._w["dataset"].value
        for name, value, known in (
            ("agent", agent, self.backend.agents),
            ("dataset", dataset, self.backend.datasets),
        ):
            if value not in known:
                raise GiskardValidationError(
                    f"unknown {name} {value!r}: choose one of {', '.join(map(repr, known))}"
                )
        self._total = self.backend.size(dataset)
        self._w["agent"].value, self._w["dataset"].value = agent, dataset
        self.counts = dict.fromkeys(_LABELS, 0)
        self.result, self.viewer, self.state = None, None, "running"
        self._started = time.perf_counter()
        self._w["results"].children = []
        self._w["progress"].max = max(1, self._total)
        self._refresh()
        coro = self.backend.run(agent, dataset, self._report)
        self.job = Job(coro, on_done=self._on_done, name=f"giskard-nb-evaluation-{dataset}")
        return self.job

    def cancel(self) -> bool:
        """Stop the run; results that finished are kept (``result`` holds them)."""
        if self.job is None or self.job.done():
            return False
        self.state = "cancelling"
        self._refresh()
        return self.job.cancel()

    def open_results(self) -> ResultsViewer:
        """Show (and return) a ResultsViewer of the last run's results."""
        viewer = self.backend.viewer(self.result, self.page_size) if self.result else None
        if viewer is None:
            raise GiskardValidationError("nothing to open yet: run() first and wait for results")
        self.viewer = viewer
        self._w["results"].children = [viewer.widget]
        return viewer

    # -- internals -----------------------------------------------------------------------------------

    def _report(self, counts: dict[str, int]) -> None:
        self.counts = {s: counts.get(s, 0) for s in _LABELS}
        self._refresh()

    def _on_done(self, job: Job) -> None:
        if job.error is None:
            self.result = job.result()
            self.state = "finished"
        else:
            self.result = self.backend.partial()
            self.state = "cancelled" if job.cancelled else "failed"
            self._error = f"{type(job.error).__name__}: {job.error}"
        if self.result is not None and hasattr(self.result, "counts"):  # a Hub evaluation
            self.counts = {s: self.result.counts.get(s, 0) for s in _LABELS}
        elif self.result is not None:
            self.counts = {s: 0 for s in _LABELS}
            for r in self.result.results:
                self.counts[r.status.value] += 1
        self._refresh()
        with contextlib.suppress(GiskardNBError):  # nothing finished: nothing to show
            self.open_results()
        if self.on_finish is not None and self.result is not None:
            self.on_finish(self.result)

    def _refresh(self) -> None:
        counts = self.counts
        done = sum(counts.values())
        w = self._w
        w["progress"].value = min(done, w["progress"].max)
        w["counters"].value = (
            " ".join(badge(s, f"{counts[s]} {label}") for s, label in _LABELS.items())
            + f" <span class='giskard-progress-text'>{done} / {self._total}</span>"
        )
        message = {
            "idle": "Pick an agent and a dataset, then Run.",
            "running": "Running…",
            "cancelling": "Cancelling…",
            "finished": f"Finished: {done} results, {PassRate.from_counts(counts).text()}.",
            "cancelled": f"Cancelled after {done} of {self._total} results.",
            "failed": f"The run failed: {self._error}",
        }[self.state]
        w["state"].value = message
        running = self.state in ("running", "cancelling")
        w["run"].disabled = running
        w["cancel"].disabled = not running
        w["open"].disabled = self.result is None

    def _guard(self, action: Callable[[], Any]) -> None:
        try:
            action()
        except (GiskardNBError, ValueError) as exc:
            self._w["state"].value = f"{exc}"
            self._w["message"].value = error_html(exc)

    def _build(self) -> None:
        import ipywidgets as w

        self._w = {
            "agent": w.Dropdown(options=self.backend.agents, description="agent"),
            "dataset": w.Dropdown(options=self.backend.datasets, description="dataset"),
            "run": w.Button(description="Run", button_style="primary", icon="play"),
            "cancel": w.Button(description="Cancel", icon="stop", disabled=True),
            "open": w.Button(description="Open results", disabled=True),
            "progress": w.IntProgress(value=0, min=0, max=1, description="progress"),
            "counters": w.HTML(),
            "state": w.Label(),
            "message": w.HTML(),
            "results": w.VBox(),
        }
        ww = self._w
        ww["run"].add_class("giskard-run-button")
        ww["state"].add_class("giskard-run-state")
        ww["run"].on_click(lambda _: self._guard(self.run))
        ww["cancel"].on_click(lambda _: self.cancel())
        ww["open"].on_click(lambda _: self._guard(self.open_results))
        self.widget = w.VBox(
            [
                w.HBox([ww["agent"], ww["dataset"]]),
                w.HBox([ww["run"], ww["cancel"], ww["open"]]),
                w.HBox([ww["progress"], ww["counters"]]),
                ww["state"],
                ww["message"],
                ww["results"],
            ]
        )
        self.widget.add_class("giskard-evaluation-runner")
        self._refresh()
