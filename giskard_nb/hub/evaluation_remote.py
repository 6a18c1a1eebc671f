"""An evaluation's test cases played on an executor's workers (``hub.evaluations.create_local(
agent_factory, dataset_id, executor=RayExecutor(...))``).

Each test case's scenario is one work item (``giskard_nb.core.remote.ScenarioTask`` plays it): its
interaction has no ``outputs`` of its own, so a worker plays it against the agent it built once with
``agent_factory()`` (the user's own factory: the executor's actors are shared with ``Suite.run`` and
other evaluations), called through the same conversion as a local run (``hub.agents.LocalAgent`` and
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
from giskard_nb.hub.scenario_cases import run_key

__all__ = ["EvaluationTask", "run_on_executor"]


class _CaseAgent:
    """A worker's agent, called as an evaluation calls a local one (``target``), with the roles of
    its replies that are not the assistant's, by test case id (taken by ``EvaluationTask``)."""

    def __init__(self, agent: Any, name: str | None):
        from giskard_nb.hub.agents import LocalAgent
        from giskard_nb.hub.evaluation import agent_outputs

        self.agent = agent
        self.roles: dict[tuple[str, int], str] = {}
        self.target = agent_outputs(LocalAgent(agent, name=name), self.roles)


class EvaluationTask:
    """The executor task of an evaluation: ``ScenarioTask`` played against the worker's agent called
    as a local run calls it, with the reply roles brought back into ``roles`` (the run's own dict:
    it stays in the calling process). The workers build the user's agent with the user's own
    factory, so an executor keeps its actors (and their models) from a ``Suite.run`` or an
    evaluation to the next."""

    def __init__(
        self, checks_on: str, timeout: float | None, roles: dict[Any, str], name: str | None
    ):
        self.scenarios = ScenarioTask(checks_on=checks_on, timeout=timeout)
        self.name = name
        self._roles: dict[tuple[str, int], str] | None = roles
        self._agent: _CaseAgent | None = None  # on a worker: its agent, wrapped once per run

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_roles": None, "_agent": None}  # the workers keep their own

    def _case_agent(self, agent: Any) -> _CaseAgent:
        if self._agent is None or self._agent.agent is not agent:
            self._agent = _CaseAgent(agent, self.name)
        return self._agent

    async def on_actor(self, agent: Any, scenario: Scenario) -> tuple[Any, str | None]:
        case_agent = self._case_agent(agent)
        played = await self.scenarios.on_actor(case_agent.target, scenario)
        return played, case_agent.roles.pop(run_key(scenario.annotations), None)

    async def in_caller(self, scenario: Scenario, raw: tuple[Any, str | None]) -> ScenarioResult:
        played, role = raw
        if role is not None and self._roles is not None:
            self._roles[run_key(scenario.annotations)] = role
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
    roles: dict[Any, str],
    name: str | None = None,
) -> None:
    """Play ``scenarios`` (pulled lazily) on ``executor``; ``on_result(index, result)`` is called
    here with each result as it arrives."""
    from giskard_nb.executors.base import WorkItem, check_executor_args, checks_on_of

    check_executor_args(executor, agent_factory)
    task = EvaluationTask(checks_on_of(executor), timeout, roles, name)
    items = (WorkItem(str(i), s) for i, s in enumerate(scenarios))

    async def deliver(item_id: str, result: ScenarioResult) -> None:
        await on_result(int(item_id), result)

    await executor.run(agent_factory, items, deliver, task=task)
