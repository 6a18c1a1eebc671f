"""EvaluationRunner: pick an agent and a dataset, run in the background with live counters, cancel,
open the results.

The run is a ``Job`` (an asyncio task on the notebook's loop), so the kernel stays free while it
runs; synchronous agents are called on worker threads so they do not block that loop either.
Every button has a method: ``run()``, ``cancel()``, ``open_results()``.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

from giskard_nb.core.inject import injector
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite import Suite
from giskard_nb.core.suite_result import SuiteResult
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Job, View, badge, named
from giskard_nb.widgets.results_viewer import ResultsViewer

__all__ = ["EvaluationRunner", "offload_sync_agent"]


def offload_sync_agent(agent: Any) -> Any:
    """An async twin of a synchronous agent that calls it on a worker thread (same parameters by
    name: ``inputs`` and ``trace``), so a slow agent never blocks the notebook's event loop."""
    if not callable(agent) or inspect.iscoroutinefunction(agent):
        return agent
    call = getattr(agent, "__call__", None)  # noqa: B004 - objects with an async __call__
    if call is not None and inspect.iscoroutinefunction(call):
        return agent
    plan = injector(agent, ("inputs", "trace"))

    async def threaded(inputs: Any, trace: Any) -> Any:
        out = await asyncio.to_thread(plan.call, {"inputs": inputs, "trace": trace})
        if inspect.isawaitable(out):
            out = await out
        return out

    threaded.__qualname__ = getattr(agent, "__qualname__", "agent")
    return threaded


def _as_suite(dataset: Any, name: str) -> Suite:
    if isinstance(dataset, Suite):
        return dataset
    if isinstance(dataset, Sequence) and all(isinstance(s, Scenario) for s in dataset):
        return Suite(name, scenarios=list(dataset))
    raise GiskardValidationError(
        f"dataset {name!r} is a {type(dataset).__name__}: give a Suite or a list of Scenarios"
    )


class EvaluationRunner(View):
    """Run a dataset of scenarios against an agent from the notebook, with live progress.

    ``agents``: a callable or ``{name: callable}``; ``datasets``: a Suite, a list of Scenarios, or
    ``{name: Suite | [Scenario, ...]}``. ``on_finish(result)`` is called with the SuiteResult.
    """

    def __init__(
        self,
        agents: Any = None,
        datasets: Any = None,
        *,
        max_concurrency: int = 8,
        timeout: float | None = None,
        page_size: int = 20,
        on_finish: Callable[[SuiteResult], Any] | None = None,
    ):
        self.agents = named(agents, "agents", "agent")
        self.datasets = named(datasets, "datasets", "dataset")
        if not self.agents or not self.datasets:
            raise GiskardValidationError(
                "EvaluationRunner needs agents= (a callable or {name: callable}) and datasets= "
                "(a Suite, a list of Scenarios, or {name: ...})"
            )
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.page_size = page_size
        self.on_finish = on_finish
        self.job: Job | None = None
        self.result: SuiteResult | None = None
        self.viewer: ResultsViewer | None = None
        self.state = "idle"
        self._partial: dict[int, ScenarioResult] = {}
        self._total = 0
        self._started = 0.0
        self._build()

    # -- actions -------------------------------------------------------------------------------------

    def run(self, agent: str | None = None, dataset: str | None = None) -> Job:
        """Start the run in the background (names default to the dropdowns' choices); returns the job.
        ``await runner.job`` (notebook) or ``runner.job.wait()`` (script) for the SuiteResult."""
        if self.job is not None and not self.job.done():
            raise GiskardValidationError("a run is already in progress: cancel() it first")
        agent = agent or self._w["agent"].value
        dataset = dataset or self._w["dataset"].value
        for name, value, known in (
            ("agent", agent, self.agents),
            ("dataset", dataset, self.datasets),
        ):
            if value not in known:
                raise GiskardValidationError(
                    f"unknown {name} {value!r}: choose one of {', '.join(map(repr, known))}"
                )
        suite = _as_suite(self.datasets[dataset], dataset)
        self._w["agent"].value, self._w["dataset"].value = agent, dataset
        self._partial = {}
        self._total = len(suite.scenarios)
        self.result = None
        self.state = "running"
        self._started = time.perf_counter()
        self._w["results"].children = []
        self._w["progress"].max = max(1, self._total)
        self._refresh()
        target = offload_sync_agent(self.agents[agent])
        coro = suite.run(
            target,
            max_concurrency=self.max_concurrency,
            timeout=self.timeout,
            on_result=self._on_result,
        )
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
        if self.result is None:
            raise GiskardValidationError(
                "nothing to open yet: run() first and wait for it to finish"
            )
        self.viewer = ResultsViewer(self.result, page_size=self.page_size)
        self._w["results"].children = [self.viewer.widget]
        return self.viewer

    @property
    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
        for r in self._partial.values():
            out[r.status.value] += 1
        return out

    # -- internals -----------------------------------------------------------------------------------

    def _on_result(self, index: int, result: ScenarioResult) -> None:
        self._partial[index] = result
        self._refresh()

    def _on_done(self, job: Job) -> None:
        elapsed = (time.perf_counter() - self._started) * 1000
        if job.error is None:
            self.result = job.result()
            self.state = "finished"
        else:
            ordered = [self._partial[i] for i in sorted(self._partial)]
            self.result = SuiteResult(
                name=self._w["dataset"].value, results=ordered, duration_ms=elapsed
            )
            self.state = "cancelled" if job.cancelled else "failed"
            self._error = job.error
        self._refresh()
        if self.result.results:
            self.open_results()
        if self.on_finish is not None:
            self.on_finish(self.result)

    def _refresh(self) -> None:
        counts = self.counts
        done = sum(counts.values())
        w = self._w
        w["progress"].value = done
        labels = {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}
        w["counters"].value = (
            " ".join(badge(s, f"{counts[s]} {labels[s]}") for s in labels)
            + f" <span class='giskard-progress-text'>{done} / {self._total}</span>"
        )
        message = {
            "idle": "Pick an agent and a dataset, then Run.",
            "running": "Running…",
            "cancelling": "Cancelling…",
            "finished": f"Finished: {done} scenarios.",
            "cancelled": f"Cancelled after {done} of {self._total} scenarios.",
            "failed": f"The run failed: {getattr(self, '_error', '')!s}",
        }[self.state]
        w["state"].value = message
        running = self.state in ("running", "cancelling")
        w["run"].disabled = running
        w["cancel"].disabled = not running
        w["open"].disabled = self.result is None

    def _build(self) -> None:
        import ipywidgets as w

        self._w = {
            "agent": w.Dropdown(options=list(self.agents), description="agent"),
            "dataset": w.Dropdown(options=list(self.datasets), description="dataset"),
            "run": w.Button(description="Run", button_style="primary", icon="play"),
            "cancel": w.Button(description="Cancel", icon="stop", disabled=True),
            "open": w.Button(description="Open results", disabled=True),
            "progress": w.IntProgress(value=0, min=0, max=1, description="progress"),
            "counters": w.HTML(),
            "state": w.Label(),
            "results": w.VBox(),
        }
        ww = self._w
        ww["run"].add_class("giskard-run-button")
        ww["state"].add_class("giskard-run-state")
        ww["run"].on_click(lambda _: self.run())
        ww["cancel"].on_click(lambda _: self.cancel())
        ww["open"].on_click(lambda _: self.open_results())
        self.widget = w.VBox(
            [
                w.HBox([ww["agent"], ww["dataset"]]),
                w.HBox([ww["run"], ww["cancel"], ww["open"]]),
                w.HBox([ww["progress"], ww["counters"]]),
                ww["state"],
                ww["results"],
            ]
        )
        self.widget.add_class("giskard-evaluation-runner")
        self._refresh()
