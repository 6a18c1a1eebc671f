"""Scans on an executor's workers (``run_scan(..., executor=, agent_factory=)``).

An attack is one work item, so a multi-turn attack stays on one worker. The worker builds its own scan
runner around the agent ``agent_factory()`` made there and holds the *conversation* (every turn, the
attacker model's adaptive turns and the rules that stop a conversation early); the calling process
then gives the verdict (detectors and LLM judges), settles the budget and passes each attempt to
``on_attempt`` as it arrives. With ``checks_on="actors"`` the worker gives the verdict too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from giskard_nb.executors import Executor
    from giskard_nb.scan.agent import AgentReply
    from giskard_nb.scan.attack import Attack
    from giskard_nb.scan.detectors.base import Detection
    from giskard_nb.scan.plan import ScanOptions, ScanPlan
    from giskard_nb.scan.result import Attempt
    from giskard_nb.scan.runner import _ScanRun

__all__ = ["Exchange", "ScanTask", "check_remote_scan", "dispatch"]


@dataclass
class Exchange:
    """One attack's conversation with the agent, before the verdict."""

    messages: list[dict[str, Any]]
    sent: list[str]
    replies: list[AgentReply]
    usage: Usage
    error: str | None
    phase: str | None
    detection: Detection | None
    duration_ms: float

    def parts(self) -> tuple:
        return (
            self.messages, self.sent, self.replies, self.usage, self.error, self.phase,
            self.detection,
        )  # fmt: skip


def check_remote_scan(agent: Any, executor: Any, agent_factory: Any) -> None:
    from giskard_nb.executors.base import check_executor_args

    if executor is None:
        raise GiskardValidationError(
            "agent_factory= builds the agent on an executor's workers: pass executor= too "
            "(e.g. RayExecutor(num_actors=2)), or scan the agent itself"
        )
    check_executor_args(executor, agent_factory)
    if agent is not None:
        raise GiskardValidationError(
            "a scan on an executor builds its agent on each worker with agent_factory=: "
            "pass None as the agent (run_scan(None, executor=..., agent_factory=...))"
        )


class ScanTask:
    """The executor task of a scan: the conversation on the worker, the verdict here (or there)."""

    def __init__(self, run: _ScanRun, checks_on: str):
        self.options: ScanOptions = run.options
        self.plan: ScanPlan = run.plan.model_copy(update={"attacks": []})  # the probes suffice
        self.judge, self.generator, self.checks_on = run.judge, run.generator, checks_on
        self.run_class = type(run)  # the worker builds its own runner (no import of runner here)
        self._caller: _ScanRun | None = run  # never sent to the workers
        self._worker: _ScanRun | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_caller": None, "_worker": None}

    def _worker_run(self, agent: Any) -> _ScanRun:
        if self._worker is None:
            self._worker = self.run_class(
                agent, self.options, self.plan, self.judge, self.generator, None, "worker"
            )
        return self._worker

    async def on_actor(self, agent: Any, attack: Attack) -> Exchange | Attempt:
        run = self._worker_run(agent)
        exchange = await run.converse(attack)
        return await run.conclude(attack, exchange) if self.checks_on == "actors" else exchange

    async def in_caller(self, attack: Attack, raw: Exchange | Attempt) -> Attempt:
        if self.checks_on == "actors":
            return raw  # type: ignore[return-value]
        run = self._caller
        assert run is not None
        for reply in raw.replies:  # what the contacts detector compares across probes
            run.contacts.record(attack.probe_id, attack.category, reply.text)
        return await run.conclude(attack, raw)

    def lost(self, attack: Attack, reason: str) -> Attempt:
        from giskard_nb.scan.result import Attempt

        probe = self._caller.probes[attack.probe_id] if self._caller else None
        return Attempt(
            attack=attack,
            probe_name=probe.name if probe else "",
            messages=[dict(m) for m in attack.history],
            error=f"the attack was not played: {reason}",
            error_phase="agent",
        )


async def dispatch(
    run: _ScanRun, executor: Executor, agent_factory: Callable[[], Any], todo: list[Attack]
) -> None:
    """Play ``todo`` on the executor; each attack's budget is reserved when it is sent, settled
    (and the attempt reported) when its result arrives."""
    from giskard_nb.executors.base import WorkItem, checks_on_of

    task = ScanTask(run, checks_on_of(executor))
    expected: dict[str, Any] = {}

    def items() -> Iterator[WorkItem]:
        for attack in todo:
            estimate = run._expected(attack)
            if not run.tracker.reserve(estimate):
                return
            expected[attack.id] = estimate
            yield WorkItem(attack.id, attack)

    async def on_result(attack_id: str, attempt: Attempt) -> None:
        await run.settle(expected.pop(attack_id), attempt)

    await executor.run(agent_factory, items(), on_result, task=task)
