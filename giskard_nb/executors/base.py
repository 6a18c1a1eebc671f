"""The executor seam: work items, the task that plays them, and the ``Executor`` protocol.

A run (a suite, a Hub evaluation, a scan) hands an executor an ``agent_factory``, its ``WorkItem``s and
an ``on_result(item_id, result)`` callback, with a ``Task`` saying what to do with each item. The
executor builds the agent where the work happens (once per worker), calls ``task.on_actor(agent,
payload)`` there, brings the raw outcome back to the calling process, turns it into the result with
``task.in_caller(payload, raw)`` (checks and LLM judges run there by default) and passes it to
``on_result`` as soon as it arrives. An item that cannot be played at all (its workers kept dying)
still gets a result: ``task.lost(payload, reason)``, an error result, never a missing one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from giskard_nb.errors import GiskardValidationError

__all__ = ["CHECKS_ON", "Executor", "Task", "WorkItem", "checks_on_of"]

#: Where checks (and LLM judges) run: in the calling process (default) or on the workers.
CHECKS_ON = ("caller", "actors")
ChecksOn = Literal["caller", "actors"]


class WorkItem(NamedTuple):
    """One unit of work: ``id`` is unique within a run (a result is accepted once per id)."""

    id: str
    payload: Any


@runtime_checkable
class Task(Protocol):
    """What to do with each item; it is pickled and sent to the workers once per run."""

    def on_actor(self, agent: Any, payload: Any) -> Any:
        """On the worker: play ``payload`` against ``agent`` (sync or async); the raw outcome."""

    async def in_caller(self, payload: Any, raw: Any) -> Any:
        """In the calling process: the result of an item from its raw outcome."""

    def lost(self, payload: Any, reason: str) -> Any:
        """The error result of an item that could not be played (``reason`` says why)."""


@runtime_checkable
class Executor(Protocol):
    """Plays work items somewhere else than the calling process; see the module docstring."""

    checks_on: ChecksOn

    async def run(
        self,
        agent_factory: Callable[[], Any],
        items: Iterable[WorkItem],
        on_result: Callable[[str, Any], Any],
        *,
        task: Task,
    ) -> None: ...

    def shutdown(self) -> None: ...


def checks_on_of(executor: Any) -> ChecksOn:
    """The executor's ``checks_on`` (``"caller"`` when it does not say), checked."""
    value = getattr(executor, "checks_on", "caller")
    if value not in CHECKS_ON:
        raise GiskardValidationError(
            f"checks_on must be 'caller' (checks in this process) or 'actors' (on the workers), "
            f"got {value!r}"
        )
    return value


def check_executor_args(executor: Any, agent_factory: Any) -> None:
    """A run given an executor needs an ``agent_factory`` that builds the agent on each worker."""
    if not callable(getattr(executor, "run", None)):
        raise GiskardValidationError(
            f"executor= must be an Executor such as RayExecutor(...), got {type(executor).__name__}"
        )
    if not callable(agent_factory):
        raise GiskardValidationError(
            "a run on an executor needs agent_factory=, a function without arguments that builds the "
            "agent on each worker (it is called once per worker, so a model loads once per worker), "
            f"got {type(agent_factory).__name__}"
        )
