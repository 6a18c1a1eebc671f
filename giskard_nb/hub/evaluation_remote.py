"""An evaluation's test cases played on an executor's workers (``hub.evaluations.create_local(
agent_factory, dataset_id, executor=RayExecutor(...))``).

Each test case's scenario is one work item (``giskard_nb.core.remote.ScenarioTask`` plays it): its
interaction has no ``outputs`` of its own, so a worker plays it against the agent it built once with
``agent_factory()``, called through the same conversion as a local run (``hub.agents.LocalAgent`` and
``hub.evaluation.agent_outputs``: the convention, the reply's text, metadata and tool calls, the role
of a reply that is not the assistant's). The results come back to the calling process as they arrive,
where ``EvaluationRun`` classifies failures and stores them through its ledger, exactly as for a local
run: the progress bar, ``on_result``, ``resume`` and the DataFrames do not tell the two apart. Checks
and LLM judges run in the calling process unless the executor says ``checks_on="actors"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from giskard_nb.core.remote import ScenarioTask
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult

__all__ = ["CaseAgentFactory", "EvaluationTask", "run_on_executor"]


class _CaseAgent:
    """A worker's agent, called as an evaluation calls a local one (``target``), with the roles of
    its replies that are not the assistant's, by test case id (taken by ``EvaluationTask``)."""

    def __init__(self, agent: Any, name: str | None):
        from giskard_nb.hub.agents import LocalAgent
        from giskard_nb.hub.evaluation import agent_outputs

        self.roles: dict[str, str] = {}
        self.target = agent_outputs(LocalAgent(agent, name=name), self.roles)


class CaseAgentFactory:
    """What the workers call once each: the user's ``agent_factory()``, wrapped as ``_CaseAgent``.
    Equal for the same factory, so the executor keeps its actors (and their agents) from one run
    to the next."""

    def __init__(self, factory: Callable[[], Any], name: str | None = None):
        self.factory, self.name = factory, name

    def __call__(self) -> _CaseAgent:
        return _CaseAgent(self.factory(), self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CaseAgentFactory) and other.factory == self.factory

    def __hash__(self) -> int:
        return hash(self.factory)


class EvaluationTask:
    """The executor task of an evaluation: ``ScenarioTask`` with the reply roles brought back into
    ``roles`` (the run's own dict: it stays in the calling process)."""

    def __init__(self, checks_on: str, timeout: float | None, roles: dict[str, str]):
        self.scenarios = ScenarioTask(checks_on=checks_on, timeout=timeout)
        self._roles: dict[str, str] | None = roles

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_roles": None}  # the workers keep their own

    async def on_actor(self, agent: _CaseAgent, scenario: Scenario) -> tuple[Any, str | None]:
        played = await self.scenarios.on_actor(agent.target, scenario)
        return played, agent.roles.pop(scenario.annotations["test_case_id"], None)

    async def in_caller(self, scenario: Scenario, raw: tuple[Any, str | None]) -> ScenarioResult:
        played, role = raw
        if role is not None and self._roles is not None:
            self._roles[scenario.annotations["test_case_id"]] = role
        return await self.scenarios.in_caller(scenario, played)

    def lost(self, scenario: Scenario, reason: str) -> ScenarioResult:
        return self.scenarios.lost(scenario, reason)


async def run_on_executor(
    executor: Any,
    agent_factory: Callable[[], Any],
    scenarios: Iterable[Scenario],
    on_result: Callable[[int, ScenarioResult], Any],
    *,
    timeout: float | None,
    roles: dict[str, str],
    name: str | None = None,
) -> None:
    """Play ``scenarios`` (pulled lazily) on ``executor``; ``on_result(index, result)`` is called
    here with each result as it arrives."""
    from giskard_nb.executors.base import WorkItem, check_executor_args, checks_on_of

    check_executor_args(executor, agent_factory)
    task = EvaluationTask(checks_on_of(executor), timeout, roles)
    items = (WorkItem(str(i), s) for i, s in enumerate(scenarios))

    async def deliver(item_id: str, result: ScenarioResult) -> None:
        await on_result(int(item_id), result)

    factory = CaseAgentFactory(agent_factory, name)
    await executor.run(factory, items, deliver, task=task)
