"""Running an evaluation: its test cases as core Scenarios, run by the core engine, each result stored.

A test case becomes ``Scenario(name).interact(inputs=<the conversation>, outputs=<call the agent>)``
followed by its enabled checks; the scenarios run through ``giskard_nb.core.suite.run_scenarios`` (the
engine of ``Suite.run``: its worker pool, ``max_concurrency``, per-case ``timeout`` and errors as
data). The interaction's ``outputs`` is the reply's text (so checks read it at ``trace.last.outputs``)
and its ``metadata`` the reply's metadata (``trace.last.metadata``). A failing agent, a timeout or a
check that raises makes that result an ERROR naming the phase; a check that cannot be built is an
ERROR (phase ``checks``) without calling the agent; the run goes on. Every scenario calls the agent
through one function, whose signature is checked once per run.

Results are stored in batches (a write starts as soon as ``STORE_BATCH`` results wait, else every
``STORE_SECONDS``; one transaction each, on a worker thread) through the run's ``EvaluationStore``: a run interrupted (kernel
interrupt, cancelled task) keeps every finished result, a process killed all but the last
``STORE_SECONDS``, and ``hub.evaluations.resume`` runs only the rest. ``on_result`` is called with each
result once it is stored. While the run goes on, the session's objects are kept out of the garbage
collector's scans (``giskard_nb.core.collector.frozen``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic_core import to_json

from giskard_nb.core.agent_convention import agent_input
from giskard_nb.core.check import Check
from giskard_nb.core.collector import frozen
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite import run_scenarios
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.core.workers import run_in_worker
from giskard_nb.errors import GiskardNBError, HubStorageError, WorkerPoolExhausted
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.evaluation_store import EvaluationStore, RunTally
from giskard_nb.hub.failure_categories import FailureClassifier
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import CheckSpec, HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation, EvaluationResult
from giskard_nb.hub.models.evaluation_result import outcome
from giskard_nb.hub.ownership import beat_forever, release
from giskard_nb.hub.scenario_cases import AgentFn, test_case_to_scenario

__all__ = [
    "STORE_BATCH",
    "STORE_SECONDS",
    "AgentFn",
    "EvaluationRun",
    "OnResult",
    "agent_outputs",
    "outcome",
]

#: Called with each stored result (sync, or async: awaited).
OnResult = Callable[[EvaluationResult], Any]

#: Results that start a write as soon as they wait; the longest a finished result waits otherwise.
STORE_BATCH = 1000
STORE_SECONDS = 0.25

logger = logging.getLogger(__name__)


def agent_outputs(
    agent: AgentFn, roles: dict[str, str] | None = None
) -> Callable[[list[dict[str, str]], Trace], Awaitable[Interaction | str]]:
    """The ``outputs`` of a test case's interaction: the agent's reply text, as an ``Interaction``
    with its metadata (as plain JSON) when it has some (without, the core builds the interaction
    itself: one model fewer per test case). ``roles`` receives, by test case id, the role of a reply
    that is not the assistant's."""

    @agent_input("messages")  # the test case's conversation, as the agent convention reads it
    async def call_agent(inputs: list[dict[str, str]], trace: Trace) -> Interaction | str:
        output = await agent(inputs)
        if roles is not None and output.response.role != "assistant":
            roles[trace.annotations["test_case_id"]] = output.response.role
        if not output.metadata:
            return output.content
        metadata = json.loads(json.dumps(output.metadata, default=str))
        calls = tool_calls_from(metadata.get("tool_calls"))  # the trajectory, stored with it
        return Interaction(
            inputs=inputs, outputs=output.content, metadata=metadata, tool_calls=calls
        )

    return call_agent


class EvaluationRun:
    """One pass over some test cases of an evaluation (a new run, a resume or a re-run of errors)."""

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
    ):
        self.store = store
        self.evaluation = evaluation
        self.agent = agent
        self.classifier = classifier
        self.custom_checks = custom_checks
        self.progress = progress
        self.replace = replace
        self.on_result = on_result
        self.tally = RunTally()
        self._checks: dict[tuple[str, str], Check] = {}
        self._cases: list[HubTestCase] = []
        self._roles: dict[str, str] = {}  # test case id -> role of a reply not from "assistant"
        self._outputs = agent_outputs(agent, self._roles)  # one function: one signature check
        self._started: dict[str, Any] = {}  # test case id -> when a worker started it
        self._pending: list[EvaluationResult] = []  # finished, not stored yet
        self._stored: list[EvaluationResult] = []  # stored, not yet passed to on_result
        self._stopping = asyncio.Event()
        self._write_lock = asyncio.Lock()  # one write (and its callbacks) at a time
        self._inflight: asyncio.Future[None] | None = None  # the write under way
        self._write_error: BaseException | None = None
        self._callback_failures = 0
        self._bar: Any = None
        self._bar_counts: dict[str, int] = {}

    async def run(self, test_cases: Sequence[HubTestCase]) -> Evaluation:
        """Run the test cases; returns the evaluation as stored at the end (finished or interrupted)."""
        evaluation_id = self.evaluation.id
        self.store.claim(self.evaluation)  # refused while another live run holds it
        try:
            return await self._run(evaluation_id, test_cases)
        finally:
            release(evaluation_id)  # this process may resume it at once, whatever was stored

    async def _run(self, evaluation_id: str, test_cases: Sequence[HubTestCase]) -> Evaluation:
        beat = asyncio.create_task(beat_forever(lambda: self.store.beat(evaluation_id)))
        flusher = asyncio.create_task(self._store_every(STORE_SECONDS))
        self._bar = self._progress_bar(len(test_cases))
        try:
            with frozen():  # the session's objects out of the collector's sight meanwhile
                runnable = self._prepare(test_cases)
                scenarios = (self._scenario(case, checks) for case, checks in runnable)
                await run_scenarios(  # each scenario is built when a worker pulls it
                    scenarios,
                    max_concurrency=self.evaluation.max_concurrency,
                    timeout=self.evaluation.timeout,
                    on_result=self._finished,
                    size=len(runnable),
                )
                self._stopping.set()
                await flusher  # stores and notifies what is left
            if self._write_error is not None:
                raise self._write_error
        except BaseException as exc:
            flusher.cancel()
            await self._finish_inflight()
            self._write_pending()  # every finished result is stored before the run stops
            failed = isinstance(exc, Exception) and not isinstance(exc, asyncio.CancelledError)
            try:
                self.store.set_status(
                    evaluation_id,
                    "error" if failed else "interrupted",
                    error=f"{type(exc).__name__}: {exc}" if failed else None,
                    tally=self.tally,
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
            await self._notify_stopping()
            raise
        finally:
            beat.cancel()
            if self._bar is not None:
                self._bar.close()
        return self.store.set_status(evaluation_id, "finished", tally=self.tally)

    # -- building the scenarios ----------------------------------------------------------------------

    def _prepare(self, cases: Sequence[HubTestCase]) -> list[tuple[HubTestCase, list[Check]]]:
        """Each test case with its checks; one whose checks cannot be built is an ERROR result now."""
        runnable = []
        for case in cases:
            try:
                checks = [self._check(s) for s in case.checks if s.enabled]
            except GiskardNBError as exc:
                self._pending.append(self._result(case, _errored(case, exc, phase="checks")))
            else:
                runnable.append((case, checks))
        self._cases = [case for case, _ in runnable]
        return runnable

    def _check(self, spec: CheckSpec) -> Check:
        """The check for a spec, built once per run (checks are stateless models)."""
        key = (spec.identifier, to_json(spec.params, fallback=str).decode())
        check = self._checks.get(key)
        if check is None:
            check = self._checks[key] = build_check(spec, self.custom_checks)
        return check

    def _scenario(self, case: HubTestCase, checks: list[Check]) -> Scenario:
        self._started[case.id] = utcnow()  # a worker starts it now: results list in this order
        return test_case_to_scenario(case, checks=checks, outputs=self._outputs)

    # -- results -------------------------------------------------------------------------------------

    async def _finished(self, index: int, scenario_result: ScenarioResult) -> None:
        """``on_result`` of the engine: classify a failure, then queue the result for storage."""
        case = self._cases[index]
        verdict = None
        if scenario_result.status is CheckStatus.FAIL:
            last = scenario_result.final_trace.last
            verdict = await self.classifier.classify(
                checks=[outcome(r) for r in scenario_result.check_results],
                reply=None if last is None else last.outputs,
                messages=case.conversation,
            )
        self._pending.append(self._result(case, scenario_result, verdict))
        if len(self._pending) >= STORE_BATCH:  # while this is written, the other workers go on
            await self._write_batch()
        if self._write_error is not None:
            raise self._write_error

    def _result(
        self, case: HubTestCase, scenario_result: ScenarioResult, verdict: Any = None
    ) -> EvaluationResult:
        started = self._started.pop(case.id, None) or utcnow()
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
            messages=case.messages,
            scenario_result=scenario_result,
            reply_role=self._roles.pop(case.id, "assistant"),
            created_at=started,
            updated_at=started,
            **classified,
        )

    async def _store_every(self, seconds: float) -> None:
        """Store what is queued every ``seconds`` (the workers store a full batch themselves),
        and what is left at the end."""
        stopping = False
        while not stopping and self._write_error is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), seconds)
            stopping = self._stopping.is_set()
            await self._write_batch()

    async def _write_batch(self) -> None:
        """Store the queued results: encoded here, written on a worker thread (where SQLite works
        without the GIL, so the engine goes on meanwhile), one write at a time; then call
        ``on_result`` with them (in the order they were stored)."""
        async with self._write_lock:
            batch, self._pending = self._pending, []
            if batch and self._write_error is None:
                rows = self.store.encode(batch)  # here: encoding needs the GIL anyway
                self._inflight = asyncio.ensure_future(run_in_worker(self._save, batch, rows))
                try:
                    await asyncio.shield(self._inflight)  # an interrupt lets the write finish
                except WorkerPoolExhausted:  # no thread to spare (hung agents): store it here
                    self._save(batch, rows)
                self._inflight = None
            stored, self._stored = self._stored, []
            await self._notify(stored)

    async def _finish_inflight(self) -> None:
        """Wait for a write the writer had started when the run was interrupted."""
        if self._inflight is not None:
            with contextlib.suppress(BaseException):  # its failure is kept in _write_error
                await self._inflight
            self._inflight = None

    def _write_pending(self) -> None:
        """Store the queued results now, on this thread (when the run stops)."""
        batch, self._pending = self._pending, []
        if batch:
            self._save(batch)

    def _save(self, batch: list[EvaluationResult], rows: Any = None) -> None:
        """Store ``batch`` (one transaction; ``rows``: its encoding, if done); a database failure is
        kept, to be raised by the run."""
        if self._write_error is not None:
            return
        try:
            stored, replaced = self.store.save_results(batch, replace=self.replace, rows=rows)
        except BaseException as exc:  # surfaced by the workers and by run()
            self._write_error = exc
            return
        self.tally.add(stored, replaced)
        if self.on_result is not None:
            self._stored.extend(stored)
        if self._bar is not None:
            for result in stored:
                self._bar_counts[result.status] = self._bar_counts.get(result.status, 0) + 1
            self._bar.set_postfix_str(_bar_postfix(self._bar_counts), refresh=False)
            self._bar.update(len(batch))

    async def _notify(self, stored: list[EvaluationResult]) -> None:
        if self.on_result is None:
            return
        for result in stored:
            try:
                out = self.on_result(result)
                if inspect.isawaitable(out):
                    await out
            except Exception as exc:  # the results are stored: say so and carry on
                self._callback_failed(exc)

    async def _notify_stopping(self) -> None:
        """``on_result`` for the last results while the run stops: whatever happens, the run's own
        exception is the one raised."""
        batch, self._stored = self._stored, []
        with contextlib.suppress(BaseException):  # a second interrupt while stopping: stop now
            await self._notify(batch)

    def _callback_failed(self, exc: Exception) -> None:
        self._callback_failures += 1
        if self._callback_failures == 1:
            warnings.warn(
                f"on_result raised {type(exc).__name__}: {exc}. The results are stored and the "
                "evaluation goes on; later failures of this callback are logged (logger "
                f"{logger.name!r}).",
                RuntimeWarning,
                stacklevel=2,
            )
        else:
            logger.warning("on_result raised %s: %s", type(exc).__name__, exc)

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
