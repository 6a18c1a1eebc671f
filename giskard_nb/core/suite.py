"""Suite: many scenarios run concurrently (bounded) against a shared target, results in input order;
``run_scenarios``: the worker loop behind it, for callers that take each result as it comes."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Sized
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite_result import SuiteResult
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError, WrongTypeError

if TYPE_CHECKING:
    from giskard_nb.executors import Executor

__all__ = ["DEFAULT_MAX_CONCURRENCY", "Suite", "check_repeats", "run_scenarios"]

DEFAULT_MAX_CONCURRENCY = 10


class Suite(BaseModel):
    """A collection of scenarios run together.

    Target precedence: ``run(target=)`` > ``Suite(target=)`` > ``Scenario(target=)``; an interaction with
    explicit ``outputs=`` always keeps them.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    name: str
    scenarios: list[Scenario] = Field(default_factory=list)
    target: Value = MISSING

    def __init__(self, name: str | None = None, /, **data: Any):
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    def append(self, scenario: Scenario) -> Suite:
        if not isinstance(scenario, Scenario):
            raise GiskardValidationError(f"a Suite holds Scenarios, not {type(scenario).__name__}")
        self.scenarios.append(scenario)
        return self

    def extend(self, scenarios: list[Scenario]) -> Suite:
        for s in scenarios:
            self.append(s)
        return self

    async def run(
        self,
        target: Any = MISSING,
        *,
        max_concurrency: int | None = DEFAULT_MAX_CONCURRENCY,
        parallel: bool = True,
        return_exception: bool = True,
        timeout: float | None = None,
        on_result: Callable[[int, ScenarioResult], Any] | None = None,
        progress: bool = False,
        verbose: bool = False,
        repeats: int = 1,
        executor: Executor | None = None,
        agent_factory: Callable[[], Any] | None = None,
    ) -> SuiteResult:
        """Run every scenario; at most ``max_concurrency`` at a time (``parallel=False`` means one).

        ``repeats=k`` runs each scenario k times (independently: the agent and the judges are
        sampled again); the results hold the k runs of each scenario in a row, with their
        ``case_index`` and ``repeat``, and ``on_result`` receives ``case_index * k + repeat``.

        ``timeout`` bounds each scenario (seconds); ``on_result(index, result)`` is called as each
        finishes (an async callback is awaited before that worker takes the next scenario);
        ``progress=True`` shows a progress bar (tqdm: a widget in notebooks, text in a terminal);
        ``verbose=True`` (giskard-checks' name) does the same.

        ``executor=RayExecutor(...)`` with ``agent_factory=``: each scenario is played on a worker
        against the agent ``agent_factory()`` built there, once per worker (docs/scaling.md); checks
        run here unless the executor says ``checks_on="actors"``; ``max_concurrency`` is the
        executor's (its workers and their in-flight bound).
        """
        _check_concurrency(max_concurrency)  # checked even when parallel=False ignores it
        check_repeats(repeats)
        progress = progress or verbose
        effective = target if target is not MISSING else self.target
        jobs = [s for s in self.scenarios for _ in range(repeats)]
        bar = _progress_bar(len(jobs), self.name) if progress else None
        results: list[ScenarioResult | None] = [None] * len(jobs)
        start = time.perf_counter()

        async def collect(index: int, result: ScenarioResult) -> None:
            if repeats > 1:
                case, repeat = divmod(index, repeats)
                result = result.model_copy(update={"case_index": case, "repeat": repeat})
            results[index] = result
            if bar is not None:
                bar.update(1)
            if on_result is not None:
                out = on_result(index, result)
                if inspect.isawaitable(out):
                    await out

        try:
            await run_scenarios(
                jobs,
                effective,
                max_concurrency=max_concurrency if parallel else 1,
                return_exception=return_exception,
                timeout=timeout,
                on_result=collect,
                executor=executor,
                agent_factory=agent_factory,
                target_given=target is not MISSING,
            )
        finally:
            if bar is not None:
                bar.close()
        result = SuiteResult(
            name=self.name,
            results=[r for r in results if r is not None],
            duration_ms=(time.perf_counter() - start) * 1000,
            repeats=repeats,
        )
        result._scenarios = list(self.scenarios)  # what rescore() re-runs (not serialized)
        return result

    run_sync = sync_twin(run)


async def run_scenarios(
    scenarios: Iterable[Scenario],
    target: Any = MISSING,
    *,
    max_concurrency: int | None = DEFAULT_MAX_CONCURRENCY,
    return_exception: bool = True,
    timeout: float | None = None,
    on_result: Callable[[int, ScenarioResult], Any] | None = None,
    size: int | None = None,
    executor: Executor | None = None,
    agent_factory: Callable[[], Any] | None = None,
    target_given: bool | None = None,
) -> None:
    """The engine of ``Suite.run``: a fixed pool of workers pulls the next scenario (no task or
    semaphore per scenario) and runs it; ``on_result(index, result)`` receives each result as it
    finishes (an async callback is awaited before that worker pulls the next scenario). Nothing is
    kept: callers that store results as they come (Hub evaluations) use this directly.

    ``scenarios`` may be a lazy iterable (each scenario is built when a worker pulls it); give its
    ``size`` when it has no ``len()`` and ``max_concurrency`` is ``None``. The first exception raised
    by a worker (with ``return_exception=False``, or by ``on_result``) cancels the others and is
    re-raised as it is.

    ``executor`` with ``agent_factory``: the scenarios are played on the executor's workers
    (``giskard_nb.core.remote``), each against the agent the factory built there.
    """
    limit = _check_concurrency(max_concurrency)
    if executor is not None or agent_factory is not None:
        given = target is not MISSING if target_given is None else target_given
        _check_remote(executor, agent_factory, given, return_exception)
        from giskard_nb.core.remote import run_scenarios_on

        await run_scenarios_on(executor, agent_factory, scenarios, on_result, timeout=timeout)
        return
    if size is None and isinstance(scenarios, Sized):
        size = len(scenarios)
    if limit is None and size is None:
        raise GiskardValidationError(
            "run_scenarios needs max_concurrency or the number of scenarios (size=) for a lazy iterable"
        )
    workers = min(n for n in (limit, size) if n is not None)
    queue = iter(enumerate(scenarios))

    async def worker() -> None:
        for index, scenario in queue:
            result = await scenario.run(target, return_exception=return_exception, timeout=timeout)
            if on_result is not None:
                out = on_result(index, result)
                if inspect.isawaitable(out):
                    await out

    if workers <= 1:
        await worker()
    else:
        await _gather_or_raise([worker() for _ in range(workers)])


async def _gather_or_raise(coros: list) -> None:
    """Run all; on the first exception cancel the others and re-raise it (bare, not in a group)."""
    import asyncio

    try:
        async with asyncio.TaskGroup() as group:
            for c in coros:
                group.create_task(c)
    except BaseExceptionGroup as eg:
        raise eg.exceptions[0] from None


def _check_remote(executor: Any, agent_factory: Any, target_given: bool, return_exception: bool):
    if executor is None:
        raise GiskardValidationError(
            "agent_factory= builds the agent on an executor's workers: pass executor= too "
            "(e.g. RayExecutor(num_actors=2)), or pass the agent itself as target="
        )
    if target_given:
        raise GiskardValidationError(
            "a run on an executor builds its agent on each worker with agent_factory=: "
            "pass agent_factory= instead of target="
        )
    if not return_exception:
        raise GiskardValidationError(
            "return_exception=False is not supported on an executor: an error there is an ERROR "
            "result, as with the default return_exception=True"
        )


def _check_concurrency(value: int | None) -> int | None:
    """``value`` if a positive int or None: another type is a ``TypeError`` (a bool too), zero or a
    negative number a ``ValueError``, as in giskard-checks."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrongTypeError(
            f"max_concurrency must be a positive integer or None, got {type(value).__name__} "
            f"{value!r}"
        )
    if value < 1:
        raise GiskardValidationError(
            f"max_concurrency must be a positive integer or None, got {value!r}"
        )
    return value


def check_repeats(value: int, what: str = "scenario") -> int:
    """``repeats`` as given, or a clear error unless it is a whole number >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GiskardValidationError(
            f"repeats must be a whole number >= 1 (how many times each {what} runs), got {value!r}"
        )
    return value


def _progress_bar(total: int, name: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=name, unit="scenario")
