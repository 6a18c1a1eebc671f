"""Re-scoring an evaluation: checks run again on the stored conversations and agent replies — the
agent is never called — into a new evaluation linked to the original (``Evaluation.rescored_from``).

The checks are the dataset's current ones (each test case's enabled checks, as they are now), or the
``checks`` given (the same for every result); ``generator`` replaces the judge of every check that has
one (``core.rescore.with_generator``). Each stored ``ScenarioResult`` is re-scored as the core does
(``core.rescore``: the checks on its final trace; a result whose agent call errored keeps that error).
The new results keep their test case, conversation, reply, timings and usage of the agent, so
``hub.evaluations.compare`` and ``hub.checks.calibrate`` work across the two evaluations; they are
written through the run ledger (``EvaluationRows``) like any evaluation's, so the progress bar,
``on_result``, an interruption and ``hub.evaluations.resume`` (re-scoring only what is missing)
behave the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic_core import to_json

from giskard_nb.core.check import Check
from giskard_nb.core.collector import frozen, paused
from giskard_nb.core.rescore import rescore_result, with_generator
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.evaluation import EvaluationRows, OnResult
from giskard_nb.hub.evaluation_store import EvaluationStore
from giskard_nb.hub.failure_categories import FailureClassifier
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation, EvaluationResult
from giskard_nb.hub.models.evaluation_result import outcome

__all__ = ["RescoreRun", "given_checks", "rescore_into"]


def given_checks(checks: Sequence[Check] | None, generator: Any) -> list[Check] | None:
    """The checks to run on every result (validated), with ``generator`` as their judge; None for the
    dataset's own checks."""
    if checks is None:
        return None
    items = list(checks) if isinstance(checks, list | tuple) else None
    if not items or not all(isinstance(c, Check) for c in items):
        raise GiskardValidationError(
            "checks must be a non-empty list of Checks (e.g. [StringMatching(keyword='refund')]; "
            "wrap a function with from_fn(...)), or None for the dataset's current checks"
        )
    return [with_generator(c, generator) for c in items]


class RescoreRun:
    """One pass of re-scoring over stored results of ``source`` into ``target``."""

    def __init__(
        self,
        store: EvaluationStore,
        target: Evaluation,
        *,
        checks: list[Check] | None,
        generator: Any,
        cases: dict[str, HubTestCase],
        custom_checks: dict[str, HubCheck],
        classifier: FailureClassifier,
        progress: bool = True,
        on_result: OnResult | None = None,
    ):
        self.store, self.target = store, target
        self.checks, self.generator = checks, generator
        self.cases, self.custom_checks = cases, custom_checks
        self.classifier = classifier
        self.progress = progress
        self._built: dict[tuple[str, str], Check] = {}
        self.ledger = EvaluationRows(store, target, replace=False, on_result=on_result)

    async def run(self, results: Sequence[EvaluationResult]) -> Evaluation:
        """Re-score ``results`` (stored results of the source evaluation); the target as stored."""
        ledger = self.ledger
        if self.progress and results:
            from tqdm.auto import tqdm

            ledger.bar = tqdm(total=len(results), desc=self.target.name, unit="case")
        gate = asyncio.Semaphore(max(1, self.target.max_concurrency))

        async def one(result: EvaluationResult) -> None:
            async with gate:
                await ledger.add(await self._rescored(result))

        try:
            async with ledger:
                try:
                    with frozen():
                        await asyncio.gather(*(one(r) for r in results))
                        await ledger.close()
                except BaseException as exc:
                    await ledger.stop()
                    failed = isinstance(exc, Exception) and not isinstance(
                        exc, asyncio.CancelledError
                    )
                    self.store.finish(
                        self.target.id,
                        "error" if failed else "interrupted",
                        error=f"{type(exc).__name__}: {exc}" if failed else None,
                        tally=ledger.tally,
                    )
                    raise
        finally:
            if ledger.bar is not None:
                ledger.bar.close()
        return self.store.finish(self.target.id, "finished", tally=ledger.tally)

    async def _rescored(self, stored: EvaluationResult) -> EvaluationResult:
        original = stored.scenario_result
        try:
            checks = self._checks_of(stored.test_case_id)
        except GiskardNBError as exc:
            error = TestCaseError(
                message=str(exc), exception_type=type(exc).__name__, phase="checks"
            )
            scenario_result = original.model_copy(update={"steps": [TestCaseResult(error=error)]})
        else:
            scenario_result = await rescore_result(original, checks)
        classified: dict[str, Any] = {}
        if scenario_result.status is CheckStatus.FAIL:
            last = scenario_result.final_trace.last
            verdict = await self.classifier.classify(
                checks=[outcome(r) for r in scenario_result.check_results],
                reply=None if last is None else last.outputs,
                messages=[m.model_dump(mode="json") for m in stored.messages],
            )
            classified = {
                "failure_category": verdict.category,
                "failure_category_source": verdict.source,
                "failure_category_reason": verdict.reason,
                "failure_category_usage": verdict.usage,
            }
        now = utcnow()
        return EvaluationResult(
            evaluation_id=self.target.id,
            test_case_id=stored.test_case_id,
            repeat=stored.repeat,
            messages=stored.messages,
            scenario_result=scenario_result,
            reply_role=stored.reply_role,
            created_at=now,
            updated_at=now,
            **classified,
        )

    def _checks_of(self, test_case_id: str) -> list[Check]:
        if self.checks is not None:
            return self.checks
        case = self.cases.get(test_case_id)
        if case is None:
            raise GiskardValidationError(
                f"test case {test_case_id} was deleted from the dataset: re-score with checks=[...]"
            )
        out = []
        for spec in case.checks:
            if not spec.enabled:
                continue
            key = (spec.identifier, to_json(spec.params, fallback=str).decode())
            if key not in self._built:
                check = build_check(spec, self.custom_checks)
                self._built[key] = with_generator(check, self.generator)
            out.append(self._built[key])
        return out


async def rescore_into(
    hub_store: Any,
    runs: EvaluationStore,
    target: Evaluation,
    checks: list[Check] | None,
    classifier: str,
    *,
    progress: bool,
    on_result: OnResult | None,
    generator: Any = None,
) -> Evaluation:
    """Re-score into ``target`` the results of ``target.rescored_from`` it does not hold yet (all of
    them for a new re-score; the rest after an interruption)."""
    resources = hub_store.resources
    if checks is None and target.rescore_given_checks:
        raise GiskardValidationError(
            f"evaluation {target.name!r} was re-scored with checks given: re-score "
            f"{target.rescored_from} again with hub.evaluations.rescore(..., checks=[...])"
        )
    assert target.rescored_from is not None
    done = runs.statuses(target.id)
    with paused():
        source = resources.evaluations.results.list(target.rescored_from)
        stored = [r for r in source if (r.test_case_id, r.repeat) not in done]
    project = resources.projects.retrieve(target.project_id)
    run = RescoreRun(
        runs,
        target,
        checks=checks,
        generator=generator if generator is not None else target.rescore_generator,
        cases={c.id: c for c in resources.test_cases.list(target.dataset_id)},
        custom_checks=resources.checks.by_identifier(target.project_id),
        classifier=FailureClassifier.create(project.failure_categories, classifier),  # type: ignore[arg-type]
        progress=progress,
        on_result=on_result,
    )
    return await run.run(stored)
