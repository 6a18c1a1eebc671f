"""Running an evaluation: every test case as a core Scenario, concurrently, each result stored as it lands.

A test case becomes ``Scenario(name).interact(inputs=<the conversation>, outputs=<call the agent>)``
followed by its enabled checks. The interaction's ``outputs`` is the reply's text (so checks read it at
``trace.last.outputs``) and its ``metadata`` the reply's metadata (``trace.last.metadata``). A failing
agent, a timeout or a check that raises makes that result an ERROR; the run goes on.

At most ``max_concurrency`` test cases run at a time. Each result is stored the moment it is ready
(results finishing in the same turn of the event loop share one transaction), so a
run that is interrupted (kernel interrupt, cancelled task, crash) keeps every finished result and
``hub.evaluations.resume`` runs only the rest.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Interaction
from giskard_nb.core.result import CheckResult
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.errors import GiskardNBError
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.failure_categories import FailureClassifier
from giskard_nb.hub.models.agent import AgentOutput
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import CheckSpec, HubTestCase
from giskard_nb.hub.models.evaluation import CheckOutcome, Evaluation, EvaluationResult
from giskard_nb.hub.ownership import beat_forever

if TYPE_CHECKING:
    from giskard_nb.hub.hub import Hub

__all__ = ["AgentFn", "EvaluationRun", "outcome", "scenario_for"]

AgentFn = Callable[[Sequence[Any]], Awaitable[AgentOutput]]


def scenario_for(test_case: HubTestCase, checks: Sequence[Check], agent: AgentFn) -> Scenario:
    """The core Scenario a test case is run as (the agent is called with the whole conversation)."""

    async def call_agent(inputs: list[dict[str, str]]) -> Interaction:
        output = await agent(inputs)
        metadata = json.loads(json.dumps(output.metadata, default=str))
        return Interaction(inputs=inputs, outputs=output.content, metadata=metadata)

    scenario = Scenario(
        test_case.name or f"test case {test_case.position + 1}",
        annotations={"test_case_id": test_case.id, "dataset_id": test_case.dataset_id},
        tags=list(test_case.tags),
    )
    scenario.interact(inputs=test_case.conversation, outputs=call_agent)
    return scenario.checks(*checks)


class EvaluationRun:
    """One pass over some test cases of an evaluation (a new run, a resume or a re-run of errors)."""

    def __init__(
        self,
        hub: Hub,
        evaluation: Evaluation,
        agent: AgentFn,
        *,
        classifier: FailureClassifier,
        custom_checks: dict[str, HubCheck],
        progress: bool = True,
        replace: bool = False,
    ):
        self.hub = hub
        self.evaluation = evaluation
        self.agent = agent
        self.classifier = classifier
        self.custom_checks = custom_checks
        self.progress = progress
        self.replace = replace
        self._built: dict[str, list[Check]] = {}
        self._pending: list[EvaluationResult] = []
        self._checks: dict[str, Check] = {}
        self._flush_scheduled = False
        self._write_error: BaseException | None = None
        self._bar_handle: Any = None
        self._bar_counts: dict[str, int] = {}

    async def run(self, test_cases: Sequence[HubTestCase]) -> Evaluation:
        """Run the test cases; returns the evaluation as stored at the end (finished or interrupted)."""
        evaluations = self.hub.evaluations
        evaluations._claim(self.evaluation.id)  # refused while another live run holds it
        beat = asyncio.create_task(beat_forever(lambda: evaluations._beat(self.evaluation.id)))
        self._bar_handle = self._bar(len(test_cases))
        queue: Iterator[HubTestCase] = iter(test_cases)

        async def worker() -> None:
            for test_case in queue:
                if self._write_error is not None:
                    raise self._write_error
                self._enqueue(await self.run_one(test_case))

        workers = min(self.evaluation.max_concurrency, len(test_cases)) or 1
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(workers):
                    group.create_task(worker())
            self._flush()
            if self._write_error is not None:
                raise self._write_error
        except asyncio.CancelledError:
            self._flush()  # every finished result is stored before the run stops
            evaluations._set_status(self.evaluation.id, "interrupted")
            raise
        except BaseExceptionGroup as group_error:
            self._flush()
            error = group_error.exceptions[0]
            evaluations._set_status(
                self.evaluation.id, "error", error=f"{type(error).__name__}: {error}"
            )
            raise error from None
        except BaseException as exc:
            self._flush()
            failed = exc is self._write_error
            evaluations._set_status(
                self.evaluation.id,
                "error" if failed else "interrupted",
                error=f"{type(exc).__name__}: {exc}" if failed else None,
            )
            raise
        finally:
            beat.cancel()
            if self._bar_handle is not None:
                self._bar_handle.close()
        return evaluations._set_status(self.evaluation.id, "finished")

    def _check(self, spec: CheckSpec) -> Check:
        """The check for a spec, built once per run (checks are stateless models)."""
        dump = spec.model_dump(
            mode="json", context={"reveal_secrets": True}
        )  # keys differ by secret
        key = json.dumps(dump, sort_keys=True, default=str)
        check = self._checks.get(key)
        if check is None:
            check = self._checks[key] = build_check(spec, self.custom_checks)
        return check

    def _enqueue(self, result: EvaluationResult) -> None:
        """Store ``result`` at the next turn of the event loop, with the others finished in this turn
        (one transaction for all of them: results that complete together are written together)."""
        self._pending.append(result)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        if not batch or self._write_error is not None:
            return
        try:
            with self.hub._db.write() as conn:
                for result in batch:
                    self.hub.evaluations.results._save(conn, result, replace=self.replace)
        except Exception:
            # one result that cannot be written must not take the batch down: write them one by one
            try:
                for result in batch:
                    self._save_alone(result)
            except BaseException as exc:  # the database itself fails: surfaced by workers and run()
                self._write_error = exc
                return
        except BaseException as exc:  # surfaced by the workers and by run()
            self._write_error = exc
            return
        bar = self._bar_handle
        if bar is not None:
            for result in batch:
                self._bar_counts[result.status] = self._bar_counts.get(result.status, 0) + 1
            bar.set_postfix_str(_bar_postfix(self._bar_counts), refresh=False)
            bar.update(len(batch))

    def _save_alone(self, result: EvaluationResult) -> None:
        """Write one result in its own transaction; if it cannot be written, store an ERROR result
        saying why instead (so the run goes on and a resume does not meet the same case again). A
        result another run already stored for the test case (a concurrent resume) is left as it is."""
        results = self.hub.evaluations.results
        try:
            with self.hub._db.write() as conn:
                results._save(conn, result, replace=self.replace)
            return
        except sa.exc.IntegrityError:
            if not self.replace and results.list(
                self.evaluation.id, test_case_id=result.test_case_id
            ):
                return  # stored meanwhile by another run of the same evaluation
            reason = "the result could not be stored (integrity error)"
        except Exception as exc:
            reason = f"the result could not be stored: {type(exc).__name__}: {exc}"
        with self.hub._db.write() as conn:
            results._save(conn, _unstorable(result, reason[:2000]), replace=self.replace)

    async def run_one(self, test_case: HubTestCase) -> EvaluationResult:
        """Run one test case and classify a failure; never raises for agent or check problems."""
        started = utcnow()
        try:
            checks = [self._check(s) for s in test_case.checks if s.enabled]
        except GiskardNBError as exc:
            scenario_result = _errored(test_case, exc, phase="checks")
            outcome: AgentOutput | None = None
        else:
            captured: dict[str, AgentOutput] = {}

            async def agent(messages: Sequence[Any]) -> AgentOutput:
                captured["output"] = out = await self.agent(messages)
                return out

            self._built[test_case.id] = checks
            scenario = scenario_for(test_case, checks, agent)
            scenario_result = await scenario.run(timeout=self.evaluation.timeout)
            outcome = captured.get("output")
        return await self._result(test_case, scenario_result, outcome, started)

    async def _result(
        self,
        test_case: HubTestCase,
        scenario_result: ScenarioResult,
        output: AgentOutput | None,
        started: Any,
    ) -> EvaluationResult:
        results = scenario_result.check_results
        built = self._built.pop(test_case.id, [])
        if len(built) == len(results):  # name each outcome after the check that produced it
            checks = [outcome(r, c) for r, c in zip(results, built, strict=True)]
        else:
            checks = [outcome(r) for r in results]
        status = scenario_result.status.value
        usage = scenario_result.usage
        category = source = reason = None
        if status == "fail":
            verdict = await self.classifier.classify(
                checks=checks,
                reply=output.content if output else None,
                messages=test_case.conversation,
            )
            category, source, reason = verdict.category, verdict.source, verdict.reason
            usage = usage + verdict.usage
        return EvaluationResult(
            evaluation_id=self.evaluation.id,
            test_case_id=test_case.id,
            status=status,
            messages=test_case.messages,
            tags=test_case.tags,
            agent_output=output,
            error=scenario_result.error,
            checks=checks,
            failure_category=category,
            failure_category_source=source,
            failure_category_reason=reason,
            duration_ms=scenario_result.duration_ms,
            usage=usage,
            scenario_result=scenario_result,
            created_at=started,
        )

    def _bar(self, total: int) -> Any:
        if not self.progress or total == 0:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=self.evaluation.name, unit="case")


def _bar_postfix(counts: dict[str, int]) -> str:
    """The progress bar's running tally, e.g. ``"7 pass, 2 fail, 0 error"`` (never the last status
    alone, which reads as if the whole run failed)."""
    shown = ["pass", "fail", "error", *sorted(set(counts) - {"pass", "fail", "error"})]
    return ", ".join(f"{counts.get(s, 0)} {s}" for s in shown)


def outcome(result: CheckResult, check: Check | None = None) -> CheckOutcome:
    """The Hub's summary of one core ``CheckResult`` (named after ``check`` when given: wrappers such
    as ``Not`` pass their inner check's details on)."""
    metrics = {m.name: m.value for m in result.metrics}
    details = result.details
    score = next(
        (
            float(v)
            for v in (details.get("score"), details.get("similarity"), metrics.get("score"))
            if isinstance(v, int | float) and not isinstance(v, bool)
        ),
        None,
    )
    threshold = details.get("threshold")
    return CheckOutcome(
        name=check.label if check is not None else (result.check_name or "check"),
        kind=type(check)._kind if check is not None else details.get("check_kind"),
        status=result.status.value,
        message=result.message,
        score=score,
        threshold=float(threshold) if isinstance(threshold, int | float) else None,
        metrics=metrics,
    )


def _unstorable(result: EvaluationResult, reason: str) -> EvaluationResult:
    """The minimal ERROR result stored in place of one that could not be written."""
    error = TestCaseError(message=reason, exception_type="StorageError", phase="storage")
    scenario = ScenarioResult(
        scenario_name=result.scenario_result.scenario_name,
        steps=[TestCaseResult(error=error)],
        tags=list(result.tags),
    )
    return EvaluationResult(
        id=result.id,
        evaluation_id=result.evaluation_id,
        test_case_id=result.test_case_id,
        status="error",
        messages=result.messages,
        tags=result.tags,
        error=reason,
        duration_ms=result.duration_ms,
        scenario_result=scenario,
        created_at=result.created_at,
    )


def _errored(test_case: HubTestCase, exc: BaseException, *, phase: str) -> ScenarioResult:
    error = TestCaseError(message=str(exc), exception_type=type(exc).__name__, phase=phase)
    return ScenarioResult(
        scenario_name=test_case.name or f"test case {test_case.position + 1}",
        steps=[TestCaseResult(error=error)],
        tags=list(test_case.tags),
    )
