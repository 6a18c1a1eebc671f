"""Running an evaluation: its test cases as core Scenarios, run by the core engine, each result stored.

A test case becomes ``Scenario(name).interact(inputs=<the conversation>, outputs=<call the agent>)``
followed by its enabled checks; the scenarios run through ``giskard_nb.core.suite.run_scenarios`` (the
engine of ``Suite.run``: its worker pool, ``max_concurrency``, per-case ``timeout`` and errors as
data). The interaction's ``outputs`` is the reply's text (so checks read it at ``trace.last.outputs``)
and its ``metadata`` the reply's metadata (``trace.last.metadata``). A failing agent, a timeout or a
check that raises makes that result an ERROR naming the phase; a check that cannot be built is an
ERROR (phase ``checks``) without calling the agent; the run goes on. Every scenario calls the agent
through one function, whose signature is checked once per run.

Results are stored through the run's ledger (``EvaluationRows``, a ``giskard_nb.hub.ledger.RunLedger``):
in batches, on a worker thread, each batch in one transaction through the evaluations'
``EvaluationStore``. A run interrupted (kernel interrupt, cancelled task) keeps every finished result, a
process killed all but those of its last ``BATCH_SECONDS``, and ``hub.evaluations.resume`` runs only
the rest. ``on_result`` is called with each result once it is stored. While the run goes on, the
session's objects are kept out of the garbage collector's scans (``giskard_nb.core.collector.frozen``).

Given an ``executor`` (``RayExecutor``), the scenarios are played on its workers instead, against the
agent the factory builds there (``giskard_nb.hub.evaluation_remote``); their results come back here and
take the same path (classification, ledger, ``on_result``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic_core import to_json

from giskard_nb.core.agent_convention import agent_input
from giskard_nb.core.check import Check
from giskard_nb.core.collector import frozen
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.missing import MISSING
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite import run_scenarios
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.errors import GiskardNBError, HubStorageError
from giskard_nb.hub import schema
from giskard_nb.hub.agents import LocalAgent
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.evaluation_store import EvaluationStore, RunTally
from giskard_nb.hub.failure_categories import FailureClassifier
from giskard_nb.hub.ledger import RunLedger
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import CheckSpec, HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation, EvaluationResult
from giskard_nb.hub.models.evaluation_result import outcome
from giskard_nb.hub.scenario_cases import AgentFn, run_key, test_case_to_scenario

#: One run of a test case: the test case and its repeat index (0..k-1 with ``repeats=k``).
Run = tuple[HubTestCase, int]

__all__ = [
    "AgentFn",
    "EvaluationRows",
    "EvaluationRun",
    "OnResult",
    "Run",
    "agent_outputs",
    "outcome",
]

#: Called with each stored result (sync, or async: awaited).
OnResult = Callable[[EvaluationResult], Any]

logger = logging.getLogger(__name__)


def agent_outputs(
    agent: AgentFn, roles: dict[tuple[str, int], str] | None = None
) -> Callable[[list[dict[str, str]], Trace], Awaitable[Interaction | str]]:
    """The ``outputs`` of a test case's interaction: the agent's reply text, as an ``Interaction``
    with its metadata (as plain JSON) when it has some (without, the core builds the interaction
    itself: one model fewer per test case). ``roles`` receives, by run (``run_key``: test case id and
    repeat), the role of a reply that is not the assistant's. A local agent is called on the conversation as given (the test
    case's: plain dicts of valid text), a string reply kept as text (``LocalAgent.reply``)."""
    call = agent.reply if isinstance(agent, LocalAgent) else agent

    @agent_input("messages")  # the test case's conversation, as the agent convention reads it
    async def call_agent(inputs: list[dict[str, str]], trace: Trace) -> Interaction | str:
        output = await call(inputs)
        if isinstance(output, str):
            return output
        if roles is not None and output.response.role != "assistant":
            roles[run_key(trace.annotations)] = output.response.role
        if not output.metadata:
            return output.content
        metadata = json.loads(json.dumps(output.metadata, default=str))
        calls = tool_calls_from(metadata.get("tool_calls"))  # the trajectory, stored with it
        return Interaction(
            inputs=inputs, outputs=output.content, metadata=metadata, tool_calls=calls
        )

    return call_agent


class EvaluationRows(RunLedger[EvaluationResult]):
    """The ledger of one evaluation run (``giskard_nb.hub.ledger``): its rows are results, written
    through the evaluations' ``EvaluationStore`` and counted in ``tally`` (and the progress bar)."""

    table = schema.evaluations
    callback = "on_result"
    noun = "result"

    def __init__(
        self,
        store: EvaluationStore,
        evaluation: Evaluation,
        *,
        replace: bool,
        on_result: OnResult | None,
        bar: Any = None,
    ):
        what = f"evaluation {evaluation.name!r}"
        super().__init__(store.db, evaluation.id, what=what, on_row=on_result)
        self.store, self.replace, self.bar = store, replace, bar
        self.tally = RunTally()
        self._bar_counts: dict[str, int] = {}

    def claimed(self, conn: Any) -> None:
        changes = {"status": "running", "error": None, "finished_at": None}
        self.store.update(conn, self.record_id, changes)

    def encode(self, batch: list[EvaluationResult]) -> Any:
        return self.store.encode(batch)

    def write(self, batch: list[EvaluationResult], encoded: Any) -> list[EvaluationResult]:
        stored, replaced = self.store.append(batch, replace=self.replace, rows=encoded)
        self.tally.add(stored, replaced)
        if self.bar is not None:
            for result in stored:
                self._bar_counts[result.status] = self._bar_counts.get(result.status, 0) + 1
            self.bar.set_postfix_str(_bar_postfix(self._bar_counts), refresh=False)
            self.bar.update(len(batch))
        return stored


class EvaluationRun:
    """One pass over some runs of an evaluation's test cases (a new run, a resume or a re-run of
    errors): each run is a test case and its repeat index (``Run``)."""

    def __init__(
        self,
        store: EvaluationStore,
        evaluation: Evaluation,
        agent: AgentFn,
        *,
        classifier: FailureClassifier,
        custom_checks: dict[str, HubCheck],
        progress: bool = True,
        replace: bool = False,
        on_result: OnResult | None = None,
        executor: Any = None,
    ):
        self.store = store
        self.evaluation = evaluation
        self.agent = agent
        self.classifier = classifier
        self.custom_checks = custom_checks
        self.progress = progress
        self._checks: dict[tuple[str, str], Check] = {}
        self._runs: list[Run] = []
        self._unbuilt: list[EvaluationResult] = []  # runs whose checks cannot be built
        self._roles: dict[tuple[str, int], str] = {}  # run -> role of a reply not from "assistant"
        #: With an executor, ``agent`` is the factory its workers call (``hub.evaluation_remote``)
        #: and the scenarios leave their outputs to the agent a worker plays them against.
        self.executor = executor
        self._outputs = (  # one function: one signature check
            MISSING if executor is not None else agent_outputs(agent, self._roles)
        )
        self._started: dict[tuple[str, int], Any] = {}  # run -> when a worker started it
        self.ledger = EvaluationRows(store, evaluation, replace=replace, on_result=on_result)

    async def run(self, runs: Sequence[Run]) -> Evaluation:
        """Play the runs; returns the evaluation as stored at the end (finished or interrupted)."""
        ledger = self.ledger
        bar = ledger.bar = self._progress_bar(len(runs))
        try:
            async with ledger:  # refused while another live run holds the evaluation
                await self._run(ledger, runs)
        finally:
            if bar is not None:
                bar.close()
        return self.store.finish(self.evaluation.id, "finished", tally=ledger.tally)

    async def _run(self, ledger: EvaluationRows, runs: Sequence[Run]) -> None:
        evaluation_id = self.evaluation.id
        try:
            with frozen():  # the session's objects out of the collector's sight meanwhile
                runnable = self._prepare(runs)
                for result in self._unbuilt:
                    await ledger.add(result)
                scenarios = (self._scenario(run, checks) for run, checks in runnable)
                if self.executor is not None:
                    await self._run_remote(scenarios)
                else:
                    await run_scenarios(  # each scenario is built when a worker pulls it
                        scenarios,
                        max_concurrency=self.evaluation.max_concurrency,
                        timeout=self.evaluation.timeout,
                        on_result=self._finished,
                        size=len(runnable),
                    )
                await ledger.close()  # stores and reports what is left
        except BaseException as exc:
            await ledger.stop()  # every finished result is stored before the run stops
            failed = isinstance(exc, Exception) and not isinstance(exc, asyncio.CancelledError)
            try:
                self.store.finish(
                    evaluation_id,
                    "error" if failed else "interrupted",
                    error=f"{type(exc).__name__}: {exc}" if failed else None,
                    tally=ledger.tally,
                )
            except HubStorageError as storage:  # the database refuses even that (a full disk)
                logger.warning(
                    "evaluation %s stopped but could not be marked so: %s (this process may "
                    "resume it at once; others once its heartbeat is stale)",
                    evaluation_id,
                    storage,
                )
                if isinstance(exc, HubStorageError):
                    raise exc from None
                raise storage from None
            raise

    async def _run_remote(self, scenarios: Any) -> None:
        from giskard_nb.hub.evaluation_remote import run_on_executor

        await run_on_executor(
            self.executor, self.agent, scenarios, self._finished, timeout=self.evaluation.timeout,
            roles=self._roles, name=self.evaluation.agent_name,
        )  # fmt: skip

    # -- building the scenarios ----------------------------------------------------------------------

    def _prepare(self, runs: Sequence[Run]) -> list[tuple[Run, list[Check]]]:
        """Each run with its test case's checks; a run whose checks cannot be built is an ERROR
        result now."""
        runnable = []
        for run in runs:
            case = run[0]
            try:
                checks = [self._check(s) for s in case.checks if s.enabled]
            except GiskardNBError as exc:
                self._unbuilt.append(self._result(run, _errored(case, exc, phase="checks")))
            else:
                runnable.append((run, checks))
        self._runs = [run for run, _ in runnable]
        return runnable

    def _check(self, spec: CheckSpec) -> Check:
        """The check for a spec, built once per run (checks are stateless models)."""
        key = (spec.identifier, to_json(spec.params, fallback=str).decode())
        check = self._checks.get(key)
        if check is None:
            check = self._checks[key] = build_check(spec, self.custom_checks)
        return check

    def _scenario(self, run: Run, checks: list[Check]) -> Scenario:
        case, repeat = run
        self._started[case.id, repeat] = (
            utcnow()
        )  # a worker starts it now: results list in this order
        return test_case_to_scenario(case, checks=checks, outputs=self._outputs, repeat=repeat)

    # -- results -------------------------------------------------------------------------------------

    async def _finished(self, index: int, scenario_result: ScenarioResult) -> None:
        """``on_result`` of the engine: classify a failure, then queue the result for storage."""
        run = self._runs[index]
        case = run[0]
        verdict = None
        if scenario_result.status is CheckStatus.FAIL:
            last = scenario_result.final_trace.last
            verdict = await self.classifier.classify(
                checks=[outcome(r) for r in scenario_result.check_results],
                reply=None if last is None else last.outputs,
                messages=case.conversation,
            )
        await self.ledger.add(self._result(run, scenario_result, verdict))

    def _result(
        self, run: Run, scenario_result: ScenarioResult, verdict: Any = None
    ) -> EvaluationResult:
        case, repeat = run
        started = self._started.pop((case.id, repeat), None) or utcnow()
        classified = {}
        if verdict is not None:
            classified = {
                "failure_category": verdict.category,
                "failure_category_source": verdict.source,
                "failure_category_reason": verdict.reason,
                "failure_category_usage": verdict.usage,
            }
        return EvaluationResult(
            evaluation_id=self.evaluation.id,
            test_case_id=case.id,
            repeat=repeat,
            messages=case.messages,
            scenario_result=scenario_result,
            reply_role=self._roles.pop((case.id, repeat), "assistant"),
            created_at=started,
            updated_at=started,
            **classified,
        )

    def _progress_bar(self, total: int) -> Any:
        if not self.progress or total == 0:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=self.evaluation.name, unit="case")


def _bar_postfix(counts: dict[str, int]) -> str:
    """The progress bar's running tally, e.g. ``"7 pass, 2 fail, 0 error"`` (never the last status
    alone, which reads as if the whole run failed)."""
    shown = ["pass", "fail", "error", *sorted(set(counts) - {"pass", "fail", "error"})]
    return ", ".join(f"{counts.get(s, 0)} {s}" for s in shown)


def _name(case: HubTestCase) -> str:
    return case.name or f"test case {case.position + 1}"


def _errored(case: HubTestCase, exc: BaseException, *, phase: str) -> ScenarioResult:
    error = TestCaseError(message=str(exc), exception_type=type(exc).__name__, phase=phase)
    return ScenarioResult(
        scenario_name=_name(case), steps=[TestCaseResult(error=error)], tags=list(case.tags)
    )
