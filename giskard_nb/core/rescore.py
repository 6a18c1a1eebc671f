"""Re-score a suite run: run checks again on the stored traces, without calling the agent.

``await suite_result.rescore(checks=[...])`` (or ``rescore_sync``) runs the given checks on each
result's final trace (one step, after the last interaction); ``checks=None`` runs the suite's own
checks again, step by step, each on the trace as it was after that step's interactions (only for a
``SuiteResult`` returned by ``Suite.run`` in this session: a stored or loaded result holds verdicts,
not the checks). ``generator=`` (a Generator or a model string) replaces the judge of every check that
has one (LLM checks), so a new judge model re-scores the same outputs.

What the agent never produced cannot be scored: a result whose agent call (or input generation, or
timeout) errored keeps that error and its checks are skipped; with the suite's own checks, a step the
original run never reached stays skipped ("not run in the stored result"), and a step after one that
now fails is skipped as in a normal run. The results keep their scenario names, tags, traces, timings
of the agent and repeat indexes, so ``compare()`` and ``calibrate()`` work across the two.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.check import Check
from giskard_nb.core.result import CheckResult, CheckStatus
from giskard_nb.core.runner import _errored_step
from giskard_nb.core.scenario import Step
from giskard_nb.core.testcase import TestCaseResult, default_test_case_runner
from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from giskard_nb.core.interaction import Trace
    from giskard_nb.core.scenario import Scenario
    from giskard_nb.core.scenario_result import ScenarioResult
    from giskard_nb.core.suite_result import SuiteResult

__all__ = ["DEFAULT_RESCORE_CONCURRENCY", "rescore_result", "rescore_suite", "with_generator"]

DEFAULT_RESCORE_CONCURRENCY = 10
_STOPPING = (CheckStatus.FAIL, CheckStatus.ERROR)
NOT_RUN = (
    "not run in the stored result (an earlier step stopped the original run): run the suite again"
)


def with_generator(check: Check, generator: Any) -> Check:
    """``check`` with ``generator`` as its judge when it has one (a validated copy), else itself."""
    if generator is None or "generator" not in type(check).model_fields:
        return check
    return type(check).model_validate({**dict(check), "generator": generator})


def _prefix(trace: Trace, index: int | None) -> Trace:
    kept = trace.interactions[: index + 1] if index is not None else []
    return trace.model_copy(update={"interactions": list(kept)})


async def _given_checks(result: ScenarioResult, checks: Sequence[Check]) -> list[TestCaseResult]:
    trace = result.final_trace
    error = next((s.error for s in result.steps if s.error is not None), None)
    if error is not None:
        return [_errored_step(Step(checks=list(checks)), error, trace)]
    last = len(trace.interactions) - 1 if trace.interactions else None
    return [await default_test_case_runner.run_checks(trace, checks, last_interaction_index=last)]


async def rescore_result(result: ScenarioResult, checks: Sequence[Check]) -> ScenarioResult:
    """``result`` with ``checks`` run on its final trace, as one step (a result whose agent call
    errored keeps that error, its checks skipped): what the Hub's re-score runs per stored result."""
    return result.model_copy(update={"steps": await _given_checks(result, checks)})


def _skipped(checks: Sequence[Check], message: str, index: int | None) -> TestCaseResult:
    results = [
        CheckResult.skip(message, details={"check_name": c.label, "check_kind": type(c)._kind})
        for c in checks
    ] or [CheckResult.skip(message, details={"check_name": "step", "check_kind": "step"})]
    return TestCaseResult(results=results, last_interaction_index=index)


async def _own_checks(
    result: ScenarioResult, scenario: Scenario, generator: Any
) -> list[TestCaseResult]:
    if len(scenario.steps) != len(result.steps):
        raise GiskardValidationError(
            f"scenario {result.scenario_name[:200]!r} has {len(scenario.steps)} steps but its "
            f"result {len(result.steps)}: the suite changed since the run; pass checks= instead"
        )
    out: list[TestCaseResult] = []
    reached, stopped = True, False
    for number, (step, old) in enumerate(zip(scenario.steps, result.steps, strict=True), 1):
        checks = [with_generator(c, generator) for c in step.checks]
        index = old.last_interaction_index
        if not reached or old.error is not None:
            out.append(old if old.error is not None else _skipped(checks, NOT_RUN, index))
            stopped = True
        elif stopped:
            message = (
                f"Step {number} was skipped due to previous failure (an earlier step did not pass)"
            )
            out.append(_skipped(checks, message, index))
        else:
            new = await default_test_case_runner.run_checks(
                _prefix(result.final_trace, index), checks, last_interaction_index=index
            )
            out.append(new)
            stopped = new.status in _STOPPING
        reached = reached and old.status not in _STOPPING and old.error is None
    return out


async def rescore_suite(
    suite_result: SuiteResult,
    checks: Sequence[Check] | None = None,
    *,
    generator: Any = None,
    max_concurrency: int = DEFAULT_RESCORE_CONCURRENCY,
) -> SuiteResult:
    """A new ``SuiteResult``: ``suite_result``'s traces re-scored (see the module docstring)."""
    scenarios = suite_result.scenarios
    if checks is None and scenarios is None:
        raise GiskardValidationError(
            "this SuiteResult does not hold its suite's checks (it was loaded or built, not returned "
            "by Suite.run in this session): pass checks=[...] to re-score its traces"
        )
    if checks is not None:
        checks = list(checks)
        if not checks or not all(isinstance(c, Check) for c in checks):
            raise GiskardValidationError(
                "checks must be a non-empty list of Checks (wrap a function with from_fn(...))"
            )
        checks = [with_generator(c, generator) for c in checks]
    if (
        isinstance(max_concurrency, bool)
        or not isinstance(max_concurrency, int)
        or max_concurrency < 1
    ):
        raise GiskardValidationError(f"max_concurrency must be >= 1, got {max_concurrency!r}")
    gate = asyncio.Semaphore(max_concurrency)

    async def one(position: int, result: ScenarioResult) -> ScenarioResult:
        async with gate:
            if checks is not None:
                steps = await _given_checks(result, checks)
            else:
                assert scenarios is not None
                case = result.case_index if result.case_index is not None else position
                if not 0 <= case < len(scenarios):
                    raise GiskardValidationError(
                        f"result {position} has no scenario in the suite it remembers (case {case} "
                        f"of {len(scenarios)}): pass checks= to re-score it"
                    )
                steps = await _own_checks(result, scenarios[case], generator)
        return result.model_copy(update={"steps": steps})

    rescored = await asyncio.gather(*(one(i, r) for i, r in enumerate(suite_result.results)))
    copy = suite_result.model_copy(update={"results": list(rescored)})
    return copy
