"""Scenarios played on an executor's workers (``Suite.run(executor=, agent_factory=)``).

A whole scenario is one work item, so a multi-turn scenario stays on one worker. With checks in the
calling process (the default), the worker *records* the scenario: it plays every step's interactions
against its agent (the ones of all ``multiple_runs``, up to a run whose interactions fail) and sends the
traces back; the caller then *replays* them through the ordinary ``ScenarioRunner``, checks and LLM
judges included, so a result has exactly the shape of a local one (early stop, skipped steps, errors
by phase). Since the checks run after the fact, the steps after a failing check are still played on
the worker (their interactions are sent, then reported as skipped, as locally). With
``checks_on="actors"`` the worker runs the scenario as ``Scenario.run`` does and sends the result.

The executor itself is any object with the ``giskard_nb.executors.Executor`` shape (duck-typed here:
core does not import the executors).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING
from giskard_nb.core.runner import (
    ScenarioRunner,
    _errored_step,
    _RunState,
    _skipped_step,
    default_scenario_runner,
    step_error,
    timeout_error,
)
from giskard_nb.core.scenario import Scenario, Step
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.errors import GiskardValidationError, InteractionGenerationError

if TYPE_CHECKING:
    from giskard_nb.executors import Executor

__all__ = ["Recording", "ScenarioTask", "run_scenarios_on"]


@dataclass
class Recording:
    """One run of a scenario's interactions on a worker: the trace after each step played, and the
    error (with the trace as it was) that stopped it, if any."""

    initial: Trace
    traces: list[Trace]
    error: TestCaseError | None
    partial: Trace
    duration_ms: float


async def record(scenario: Scenario, target: Any, timeout: float | None) -> list[Recording]:
    """Play the scenario's interactions (no check) once per run, up to a run that errors."""
    recordings: list[Recording] = []
    for _ in range(scenario.multiple_runs):
        recordings.append(await _record_once(scenario, target, timeout))
        if recordings[-1].error is not None:
            break
    return recordings


async def _record_once(scenario: Scenario, target: Any, timeout: float | None) -> Recording:
    runner = default_scenario_runner
    initial = runner._new_trace(scenario, target)
    state, traces = _RunState(initial), []
    error: TestCaseError | None = None
    start = time.perf_counter()

    async def play_all() -> None:
        for index, step in enumerate(scenario.steps):
            await runner._play(index, step, state, target)
            traces.append(state.trace)

    try:
        await (play_all() if timeout is None else asyncio.wait_for(play_all(), timeout))
    except InteractionGenerationError as exc:
        if exc.partial_trace is not None:
            state.trace = exc.partial_trace
        error = step_error(exc)
    except TimeoutError:
        error = timeout_error(timeout)
    return Recording(initial, traces, error, state.trace, (time.perf_counter() - start) * 1000)


class _RecordedError(InteractionGenerationError):
    """The error a worker recorded for a step, raised again in the replay as it was."""

    def __init__(self, error: TestCaseError, partial: Trace):
        super().__init__(error.message, phase=error.phase or "target", partial_trace=partial)
        self.step_error = error


class _ReplayRunner(ScenarioRunner):
    """The ordinary runner, with each step's interactions read from the worker's recordings."""

    def __init__(self, recordings: list[Recording]):
        self._recordings = iter(recordings)
        self._current: Recording | None = None

    def _new_trace(self, scenario: Scenario, target: Any) -> Trace:
        self._current = next(self._recordings)
        return self._current.initial

    async def _play(self, index: int, step: Step, state: _RunState, target: Any) -> None:
        recording = self._current
        assert recording is not None
        if index < len(recording.traces):
            state.trace = recording.traces[index]
            return
        assert recording.error is not None
        raise _RecordedError(recording.error, recording.partial)


@dataclass(frozen=True)
class ScenarioTask:
    """The executor task of a scenario run: record on the worker, replay with the checks here (or
    run it all on the worker with ``checks_on="actors"``)."""

    checks_on: str = "caller"
    timeout: float | None = None

    async def on_actor(self, agent: Any, scenario: Scenario) -> Any:
        if self.checks_on == "actors":
            return await scenario.run(agent, timeout=self.timeout)
        return await record(scenario, agent, self.timeout)

    async def in_caller(self, scenario: Scenario, raw: Any) -> ScenarioResult:
        if self.checks_on == "actors":
            return raw
        result = await _ReplayRunner(raw).run(scenario, MISSING)
        played = sum(r.duration_ms for r in raw)
        return result.model_copy(update={"duration_ms": result.duration_ms + played})

    def lost(self, scenario: Scenario, reason: str) -> ScenarioResult:
        error = TestCaseError(
            message=f"the scenario was not played: {reason}",
            exception_type="WorkerLost",
            phase="target",  # the agent's worker failed: its checks are skipped as for a target error
        )
        trace = Trace(annotations=dict(scenario.annotations))
        steps = scenario.steps
        results: list[TestCaseResult] = (
            [_errored_step(steps[0], error, trace)]
            + [_skipped_step(s, i, trace) for i, s in enumerate(steps[1:], 2)]
            if steps
            else [TestCaseResult(error=error)]
        )
        return ScenarioResult(
            scenario_name=scenario.name, steps=results, final_trace=trace, tags=list(scenario.tags)
        )


async def run_scenarios_on(
    executor: Executor,
    agent_factory: Callable[[], Any],
    scenarios: Iterable[Scenario],
    on_result: Callable[[int, ScenarioResult], Any] | None,
    *,
    timeout: float | None = None,
) -> None:
    """``run_scenarios`` on an executor: each scenario is one work item (id: its index), played on a
    worker against the agent ``agent_factory()`` built there; ``on_result(index, result)`` is called
    here as each result arrives."""
    from giskard_nb.executors.base import WorkItem, check_executor_args, checks_on_of

    check_executor_args(executor, agent_factory)
    if timeout is not None and timeout <= 0:
        raise GiskardValidationError(
            f"timeout must be a positive number of seconds, got {timeout!r}"
        )
    task = ScenarioTask(checks_on=checks_on_of(executor), timeout=timeout)
    items = (WorkItem(str(i), s) for i, s in enumerate(scenarios))

    async def deliver(item_id: str, result: ScenarioResult) -> None:
        if on_result is not None:
            out = on_result(int(item_id), result)
            if asyncio.iscoroutine(out) or hasattr(out, "__await__"):
                await out

    await executor.run(agent_factory, items, deliver, task=task)
