"""ScenarioRunner: executes a scenario's steps on a shared trace, with early stop, timeouts and retries."""

from __future__ import annotations

import time
from typing import Any

from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING
from giskard_nb.core.result import CheckResult, CheckStatus
from giskard_nb.core.scenario import Scenario, Step
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.spec import InteractionSpec, trace_type_for
from giskard_nb.core.testcase import TestCaseError, TestCaseResult, default_test_case_runner
from giskard_nb.errors import GiskardValidationError, InteractionGenerationError

__all__ = ["ScenarioRunner", "apply_spec", "step_error", "timeout_error"]

_STOPPING = (CheckStatus.FAIL, CheckStatus.ERROR)


async def apply_spec(spec: InteractionSpec, trace: Trace, target: Any = MISSING) -> Trace:
    """Drive ``spec.generate`` and return the trace with every interaction it produced appended."""
    agen = spec.generate(trace, target=target) if spec.binds_target else spec.generate(trace)
    try:
        item = await anext(agen)
        while True:
            trace = trace.appended(item)
            item = await agen.asend(trace)
    except StopAsyncIteration:
        return trace
    except InteractionGenerationError as exc:
        exc.partial_trace = trace
        raise
    except Exception as exc:
        raise InteractionGenerationError(
            f"interaction spec {type(spec).__name__} raised {type(exc).__name__}: {exc}",
            phase="input_generation",
            partial_trace=trace,
        ) from exc
    finally:
        await agen.aclose()


class _RunState:
    """What a run has produced so far (kept outside the coroutine so a timeout can report it)."""

    __slots__ = ("results", "trace")

    def __init__(self, trace: Trace):
        self.trace = trace
        self.results: list[TestCaseResult] = []


class ScenarioRunner:
    """Runs scenarios. Use ``Scenario.run()``; this class is the machinery behind it."""

    async def run(
        self,
        scenario: Scenario,
        target: Any = MISSING,
        *,
        return_exception: bool = True,
        multiple_runs: int | None = None,
        timeout: float | None = None,
    ) -> ScenarioResult:
        runs = scenario.multiple_runs if multiple_runs is None else multiple_runs
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise GiskardValidationError(f"multiple_runs must be an integer >= 1, got {runs!r}")
        if timeout is not None and timeout <= 0:
            raise GiskardValidationError(
                f"timeout must be a positive number of seconds, got {timeout!r}"
            )
        effective_target = scenario.target if target is MISSING else target
        start = time.perf_counter()
        result: ScenarioResult | None = None
        executed = 0
        for _ in range(runs):
            executed += 1
            result = await self._run_once(scenario, effective_target, return_exception, timeout)
            if result.status in _STOPPING:
                break
        assert result is not None
        if runs == 1:
            return result
        return result.model_copy(
            update={
                "duration_ms": (time.perf_counter() - start) * 1000,
                "multiple_runs": runs,
                "runs_executed": executed,
            }
        )

    async def _run_once(
        self, scenario: Scenario, target: Any, return_exception: bool, timeout: float | None
    ) -> ScenarioResult:
        state = _RunState(self._new_trace(scenario, target))
        start = time.perf_counter()
        try:
            if timeout is None:
                await self._run_steps(scenario.steps, state, target, return_exception)
            else:
                import asyncio

                await asyncio.wait_for(
                    self._run_steps(scenario.steps, state, target, return_exception), timeout
                )
        except TimeoutError:
            if not return_exception:
                raise
            error = timeout_error(timeout)
            done = len(state.results)
            if done == len(scenario.steps):  # finished just as the clock ran out
                state.results.append(TestCaseResult(error=error))
            else:
                state.results.append(_errored_step(scenario.steps[done], error, state.trace))
            state.results.extend(
                _skipped_step(s, i, state.trace)
                for i, s in enumerate(scenario.steps[done + 1 :], done + 2)
            )
        return ScenarioResult(
            scenario_name=scenario.name,
            steps=state.results,
            duration_ms=(time.perf_counter() - start) * 1000,
            final_trace=state.trace,
            tags=list(scenario.tags),
        )

    def _new_trace(self, scenario: Scenario, target: Any) -> Trace:
        trace_cls = scenario.trace_type or trace_type_for(target) or Trace
        return trace_cls(annotations=dict(scenario.annotations))

    async def _play(self, index: int, step: Step, state: _RunState, target: Any) -> None:
        """Play step ``index``'s interactions onto ``state.trace`` (a replay of recorded ones overrides
        this: ``core.remote``)."""
        for spec in step.interacts:
            state.trace = await apply_spec(spec, state.trace, target)

    async def _run_steps(
        self, steps: list[Step], state: _RunState, target: Any, return_exception: bool
    ) -> None:
        for index, step in enumerate(steps):
            t0 = time.perf_counter()
            try:
                await self._play(index, step, state, target)
            except InteractionGenerationError as exc:
                if exc.partial_trace is not None:
                    state.trace = exc.partial_trace
                if not return_exception:  # the error itself, keeping its own cause
                    original = exc.__cause__ or exc
                    raise original from original.__cause__
                error = step_error(exc)
                state.results.append(_errored_step(step, error, state.trace, t0))
                state.results.extend(
                    _skipped_step(s, i, state.trace)
                    for i, s in enumerate(steps[index + 1 :], index + 2)
                )
                return
            result = await default_test_case_runner.run_checks(
                state.trace,
                step.checks,
                return_exception=return_exception,
                last_interaction_index=_last_index(state.trace),
            )
            state.results.append(result)
            if result.status in _STOPPING:
                state.results.extend(
                    _skipped_step(s, i, state.trace)
                    for i, s in enumerate(steps[index + 1 :], index + 2)
                )
                return


def timeout_error(timeout: float | None) -> TestCaseError:
    return TestCaseError(
        message=f"the scenario did not finish within {timeout} s",
        exception_type="TimeoutError",
        phase="timeout",
    )


def step_error(exc: InteractionGenerationError) -> TestCaseError:
    """The ``TestCaseError`` of a step whose interactions failed (one recorded elsewhere: as it was)."""
    recorded = getattr(exc, "step_error", None)
    if isinstance(recorded, TestCaseError):
        return recorded
    return TestCaseError.from_exception(exc.__cause__ or exc, exc.phase)


def _last_index(trace: Trace) -> int | None:
    return len(trace.interactions) - 1 if trace.interactions else None


def _skip_results(step: Step, message: str) -> list[CheckResult]:
    return [
        CheckResult.skip(message, details={"check_name": c.label, "check_kind": type(c)._kind})
        for c in step.checks
    ]


#: Why a step's checks were skipped, by the phase that failed ("Checks were skipped due to input
#: generation failure" is giskard-checks' message).
_SKIP_CAUSES = {
    "input_generation": "input generation failure",
    "target": "target failure",
    "timeout": "the scenario timeout",
}


def _errored_step(
    step: Step, error: TestCaseError, trace: Trace, t0: float | None = None
) -> TestCaseResult:
    return TestCaseResult(
        results=_skip_results(
            step,
            f"Checks were skipped due to {_SKIP_CAUSES.get(error.phase, 'input generation failure')}",
        ),
        duration_ms=(time.perf_counter() - t0) * 1000 if t0 else 0.0,
        last_interaction_index=_last_index(trace),
        error=error,
    )


def _skipped_step(step: Step, number: int, trace: Trace) -> TestCaseResult:
    message = f"Step {number} was skipped due to previous failure (an earlier step did not pass)"
    results = _skip_results(step, message) or [
        CheckResult.skip(message, details={"check_name": "step", "check_kind": "step"})
    ]
    return TestCaseResult(results=results, last_interaction_index=_last_index(trace))


default_scenario_runner = ScenarioRunner()
