"""What an EvaluationRunner runs: core Suites against Python agents (``SuiteBackend``), or Hub
datasets against registered and local agents, stored as Hub evaluations (``HubBackend``).

A backend names its agents and datasets, runs one pair while reporting status counts, says what
was kept when a run is cancelled, and opens a ResultsViewer on an outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from giskard_nb.core.agent_call import call_user, is_async_callable
from giskard_nb.core.agent_convention import same_convention
from giskard_nb.core.inject import injector
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite import Suite
from giskard_nb.core.suite_result import SuiteResult
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import named
from giskard_nb.widgets.results_viewer import ResultsViewer
from giskard_nb.widgets.viewer_items import evaluation_items

__all__ = [
    "HubBackend",
    "SuiteBackend",
    "evaluation_viewer",
    "offload_sync_agent",
]

Report = Callable[[dict[str, int]], None]


def _zero() -> dict[str, int]:
    return {"pass": 0, "fail": 0, "error": 0, "skip": 0}


def offload_sync_agent(agent: Any) -> Any:
    """An async twin of a synchronous agent that calls it on a worker thread (same parameters by
    name: ``inputs`` and ``trace``), so a slow agent never blocks the notebook's event loop (the core
    worker pool: a timeout abandons a hung call). It receives what the agent receives by the agent
    convention (``giskard_nb.core.agent_convention``): the conversation, or the last user message."""
    if not callable(agent) or is_async_callable(agent):
        return agent
    plan = injector(agent, ("inputs", "trace"))

    async def threaded(inputs: Any, trace: Any) -> Any:
        return await call_user(plan, {"inputs": inputs, "trace": trace})

    threaded.__qualname__ = getattr(agent, "__qualname__", "agent")
    return same_convention(threaded, agent)


class SuiteBackend:
    """Suites (or lists of Scenarios) run against Python callables; outcome: a SuiteResult."""

    def __init__(
        self,
        agents: Any,
        datasets: Any,
        *,
        max_concurrency: int,
        timeout: float | None,
        repeats: int = 1,
    ):
        self._agents = named(agents, "agents", "agent")
        self._datasets = named(datasets, "datasets", "dataset")
        if not self._agents or not self._datasets:
            raise GiskardValidationError(
                "EvaluationRunner needs agents= (a callable or {name: callable}) and datasets= "
                "(a Suite, a list of Scenarios, or {name: ...}), or hub= and project_id="
            )
        self.max_concurrency, self.timeout, self.repeats = max_concurrency, timeout, repeats
        self._partial: dict[int, ScenarioResult] = {}
        self._dataset = ""

    @property
    def agents(self) -> list[str]:
        return list(self._agents)

    @property
    def datasets(self) -> list[str]:
        return list(self._datasets)

    def suite(self, dataset: str) -> Suite:
        value = self._datasets[dataset]
        if isinstance(value, Suite):
            return value
        if isinstance(value, Sequence) and all(isinstance(s, Scenario) for s in value):
            return Suite(dataset, scenarios=list(value))
        raise GiskardValidationError(
            f"dataset {dataset!r} is a {type(value).__name__}: give a Suite or a list of Scenarios"
        )

    def size(self, dataset: str) -> int:
        return len(self.suite(dataset).scenarios) * self.repeats

    async def run(self, agent: str, dataset: str, report: Report) -> SuiteResult:
        suite = self.suite(dataset)
        self._partial, self._dataset = {}, dataset
        counts = _zero()

        def on_result(index: int, result: ScenarioResult) -> None:
            self._partial[index] = result
            counts[result.status.value] += 1
            report(dict(counts))

        return await suite.run(
            offload_sync_agent(self._agents[agent]),
            max_concurrency=self.max_concurrency,
            timeout=self.timeout,
            on_result=on_result,
            repeats=self.repeats,
        )

    def partial(self) -> SuiteResult:
        ordered = [self._partial[i] for i in sorted(self._partial)]
        return SuiteResult(name=self._dataset, results=ordered)

    def viewer(self, outcome: SuiteResult, page_size: int) -> ResultsViewer | None:
        return ResultsViewer(outcome, page_size=page_size) if outcome.results else None


class HubBackend:
    """A Hub project's datasets, run against its registered agents and the given local Python agents
    (functions of the conversation or, by the agent convention, of its last user message); every
    run is stored as a Hub evaluation."""

    def __init__(
        self,
        hub: Any,
        project_id: str,
        local_agents: Any = None,
        *,
        max_concurrency: int,
        timeout: float | None,
        repeats: int = 1,
    ):
        self.hub, self.project_id = hub, project_id
        hub.projects.retrieve(project_id)  # a clear NotFoundError early
        self._local = named(local_agents, "agents", "agent")
        self._remote = {a.name: a.id for a in hub.agents.list(project_id=project_id)}
        self._datasets = {d.name: d.id for d in hub.datasets.list(project_id=project_id)}
        if not (self._local or self._remote) or not self._datasets:
            raise GiskardValidationError(
                "the project needs at least one dataset and one agent (registered with "
                "hub.agents.create, or a Python function given as agents=)"
            )
        self.max_concurrency, self.timeout, self.repeats = max_concurrency, timeout, repeats
        self.evaluation_id: str | None = None
        self._dataset_id: str | None = None
        self._known: set[str] = set()

    @property
    def agents(self) -> list[str]:
        return list(self._local) + [n for n in self._remote if n not in self._local]

    @property
    def datasets(self) -> list[str]:
        return list(self._datasets)

    def size(self, dataset: str) -> int:
        active = self.hub.test_cases.list(self._datasets[dataset], status="active")
        return len(active) * self.repeats

    async def run(self, agent: str, dataset: str, report: Report) -> Any:
        """Run the evaluation; ``report`` receives the counts as each result is stored (the run's
        ``on_result`` callback: nothing polls the database)."""
        evaluations = self.hub.evaluations
        dataset_id = self._datasets[dataset]
        self._known = {e.id for e in evaluations.list(dataset_id=dataset_id)}
        self._dataset_id = dataset_id
        counts = _zero()

        def stored(result: Any) -> None:
            self.evaluation_id = result.evaluation_id
            counts[result.status] = counts.get(result.status, 0) + 1
            report(dict(counts))

        common = {
            "progress": False,
            "max_concurrency": self.max_concurrency,
            "timeout": self.timeout,
            "on_result": stored,
            "repeats": self.repeats,
        }
        self.evaluation_id = None
        if agent in self._local:
            return await evaluations.acreate_local(
                self._local[agent], dataset_id, agent_name=agent, **common
            )
        return await evaluations.acreate(self.project_id, self._remote[agent], dataset_id, **common)

    def partial(self) -> Any:
        if self.evaluation_id is None:  # cancelled before a result was stored: the new evaluation
            if self._dataset_id is None:
                return None
            new = [
                e
                for e in self.hub.evaluations.list(dataset_id=self._dataset_id)
                if e.id not in self._known
            ]
            if not new:
                return None
            self.evaluation_id = new[-1].id
        return self.hub.evaluations.retrieve(self.evaluation_id)

    def viewer(self, outcome: Any, page_size: int) -> ResultsViewer | None:
        return evaluation_viewer(self.hub, outcome, page_size=page_size) if outcome else None


def evaluation_viewer(hub: Any, evaluation: Any, *, page_size: int = 20) -> ResultsViewer:
    """A ResultsViewer of a Hub evaluation's results; relabelling stores the category in the Hub."""
    items, categories, store = evaluation_items(hub, evaluation)
    return ResultsViewer(items, page_size=page_size, categories=categories, on_relabel=store)
