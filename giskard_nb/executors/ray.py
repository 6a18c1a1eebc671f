"""RayExecutor: work items played on Ray actors that each build the agent once.

``RayExecutor(num_actors=4)`` starts (or joins) Ray when a run starts, creates ``num_actors`` actors that
each call ``agent_factory()`` once (a model loads once per worker; ``num_gpus_per_actor=1`` gives each
its GPU) and keeps them for the next run with the same factory, until ``shutdown()``. Each actor has at
most ``max_in_flight_per_actor`` items in flight; the caller waits on the object refs with ``ray.wait``
and hands each result to ``on_result`` in its own process as soon as it arrives. An actor that dies has
its in-flight items played again on a new actor (at most ``max_retries`` times per item, then the item
gets an error result); every item gets exactly one result.

Ray is imported only here, when a run starts: ``import giskard_nb`` never imports it, and without it the
error names the extra (``pip install 'giskard-nb[ray]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from giskard_nb.errors import AgentError, ConfigError, GiskardValidationError
from giskard_nb.executors.base import CHECKS_ON, Task, WorkItem

__all__ = ["RayExecutor"]

RAY_MISSING = (
    "RayExecutor needs Ray, which is not installed: pip install 'giskard-nb[ray]' "
    "(or pass no executor to run in this process)"
)
#: Starting a local Ray again after a failed start (its node start-up has fixed time limits).
_START_RETRIES = 1
#: Seconds between two looks at the refs in flight (a run can be interrupted between them).
_WAIT_SECONDS = 1.0


def import_ray() -> Any:
    """The ``ray`` module, or a ``ConfigError`` naming the extra."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(RAY_MISSING) from exc
    return ray


def _count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise GiskardValidationError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _amount(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise GiskardValidationError(f"{name} must be a number >= 0, got {value!r}")
    return value


class RayExecutor:
    """Play a run's items on Ray actors; see the module docstring.

    ``address=None`` uses the Ray instance already running in this process, else starts a local one
    (no dashboard, workers' logs not copied here); ``address="auto"`` joins the cluster started with
    ``ray start``; ``"ray://host:10001"`` a remote one. ``checks_on="actors"`` runs checks and LLM
    judges on the actors instead of in the calling process. Use it as a context manager, or call
    ``shutdown()`` when done (it stops the actors, and Ray if this executor started it).
    """

    def __init__(
        self,
        num_actors: int = 4,
        num_gpus_per_actor: float = 0,
        num_cpus_per_actor: float = 1,
        address: str | None = None,
        max_in_flight_per_actor: int = 2,
        max_retries: int = 2,
        checks_on: str = "caller",
    ):
        self.num_actors = _count("num_actors", num_actors, 1)
        self.num_gpus_per_actor = _amount("num_gpus_per_actor", num_gpus_per_actor)
        self.num_cpus_per_actor = _amount("num_cpus_per_actor", num_cpus_per_actor)
        self.max_in_flight_per_actor = _count("max_in_flight_per_actor", max_in_flight_per_actor, 1)
        self.max_retries = _count("max_retries", max_retries, 0)
        if address is not None and not isinstance(address, str):
            raise GiskardValidationError(
                f"address must be None (a local Ray), 'auto' (the running cluster) or a Ray address "
                f"such as 'ray://head:10001', got {type(address).__name__}"
            )
        if checks_on not in CHECKS_ON:
            raise GiskardValidationError(
                f"checks_on must be 'caller' (checks in this process) or 'actors', got {checks_on!r}"
            )
        self.address, self.checks_on = address, checks_on
        self._started_ray = False
        self._pool: _Pool | None = None

    def __repr__(self) -> str:
        return (
            f"RayExecutor(num_actors={self.num_actors}, num_gpus_per_actor={self.num_gpus_per_actor}, "
            f"address={self.address!r}, checks_on={self.checks_on!r})"
        )

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()

    def shutdown(self) -> None:
        """Stop the actors, and Ray if this executor started it. The executor can be used again."""
        if self._pool is not None:
            self._pool.kill_all()
            self._pool = None
        if self._started_ray:
            import_ray().shutdown()
            self._started_ray = False

    # -- a run -----------------------------------------------------------------------------------------

    async def run(
        self,
        agent_factory: Callable[[], Any],
        items: Iterable[WorkItem],
        on_result: Callable[[str, Any], Any],
        *,
        task: Task,
    ) -> None:
        """Play every item with ``task`` on the actors; ``on_result(item_id, result)`` (sync or async)
        receives each result in this process as it arrives. Items are pulled lazily from ``items``."""
        if not callable(agent_factory):
            raise GiskardValidationError(
                "agent_factory must be a function without arguments that builds the agent, got "
                f"{type(agent_factory).__name__}"
            )
        ray = import_ray()
        self._connect(ray)
        if self._pool is None or self._pool.factory is not agent_factory:
            if self._pool is not None:
                self._pool.kill_all()
                self._pool = None
            self._pool = _Pool(ray, self, agent_factory)
            await self._pool.start()
        pool, run_id = self._pool, uuid.uuid4().hex
        try:
            task_ref = ray.put(task)
        except Exception as exc:
            raise GiskardValidationError(
                f"the run's work cannot be sent to the Ray actors ({type(exc).__name__}: {exc}): "
                "its checks, scenarios and models must be picklable"
            ) from exc
        await pool.prepare(run_id, task_ref)
        try:
            await _Dispatch(ray, self, pool, run_id, task, on_result).run(items)
        finally:
            pool.forget(run_id)

    def _connect(self, ray: Any) -> None:
        if ray.is_initialized():
            return
        options: dict[str, Any] = {"log_to_driver": False, "include_dashboard": False}
        if self.address is None:
            need = self.num_actors * self.num_cpus_per_actor
            options["num_cpus"] = max(int(need + 0.999), 1)
            self._started_ray = True
        else:
            options = {"address": self.address, "log_to_driver": False}
        for attempt in range(1 + _START_RETRIES):
            try:
                ray.init(**options)
                return
            except Exception as exc:
                ray.shutdown()  # what this attempt started
                if attempt < _START_RETRIES and self.address is None:
                    continue  # Ray's node start-up times out on a busy machine: once more
                self._started_ray = False
                where = (
                    "a local Ray instance" if self.address is None else f"Ray at {self.address!r}"
                )
                raise ConfigError(f"could not start {where}: {type(exc).__name__}: {exc}") from exc


class _Slot:
    """One actor of the pool (replaced by a new slot when its actor dies)."""

    __slots__ = ("handle",)

    def __init__(self, handle: Any):
        self.handle = handle


class _Pool:
    """The actors built with one ``agent_factory``, and the runs' tasks they hold."""

    def __init__(self, ray: Any, executor: RayExecutor, factory: Callable[[], Any]):
        from giskard_nb.executors._actor import AgentHost

        self.ray, self.factory = ray, factory
        self.actor_class = ray.remote(AgentHost).options(
            num_cpus=executor.num_cpus_per_actor,
            num_gpus=executor.num_gpus_per_actor,
            max_concurrency=executor.max_in_flight_per_actor,
            max_restarts=0,
            max_task_retries=0,
        )
        self.size = executor.num_actors
        self.slots: list[_Slot] = []
        self.tasks: dict[str, Any] = {}

    async def start(self) -> None:
        self.slots = await self._new_slots(self.size)

    async def _new_slots(self, n: int) -> list[_Slot]:
        try:
            handles = [self.actor_class.remote(self.factory) for _ in range(n)]
        except Exception as exc:
            raise GiskardValidationError(
                f"agent_factory cannot be sent to the Ray actors ({type(exc).__name__}: {exc}): "
                "use a function defined in an importable module, or a closure over picklable values"
            ) from exc
        errors = await asyncio.to_thread(self.ray.get, [h.ready.remote() for h in handles])
        failed = next((e for e in errors if e), None)
        if failed is not None:
            for h in handles:
                self.ray.kill(h, no_restart=True)
            raise AgentError(f"agent_factory raised on a Ray actor: {failed}")
        for run_id, task_ref in self.tasks.items():
            await asyncio.to_thread(
                self.ray.get, [h.prepare.remote(run_id, task_ref) for h in handles]
            )
        return [_Slot(h) for h in handles]

    async def replace(self, slot: _Slot) -> None:
        """A new actor in place of ``slot``'s dead one (nothing if it was already replaced)."""
        if slot not in self.slots:
            return
        index = self.slots.index(slot)
        self.ray.kill(slot.handle, no_restart=True)
        (self.slots[index],) = await self._new_slots(1)

    async def prepare(self, run_id: str, task_ref: Any) -> None:
        self.tasks[run_id] = task_ref
        refs = [s.handle.prepare.remote(run_id, task_ref) for s in self.slots]
        await asyncio.to_thread(self.ray.get, refs)

    def forget(self, run_id: str) -> None:
        self.tasks.pop(run_id, None)
        for s in self.slots:
            s.handle.forget.remote(run_id)

    def kill_all(self) -> None:
        for s in self.slots:
            with contextlib.suppress(Exception):  # already gone: nothing to stop
                self.ray.kill(s.handle, no_restart=True)
        self.slots = []


class _Dispatch:
    """One run: items sent to the actors with bounded work in flight, results taken as they come."""

    def __init__(self, ray, executor: RayExecutor, pool: _Pool, run_id: str, task: Task, on_result):
        self.ray, self.pool, self.run_id, self.task = ray, pool, run_id, task
        self.on_result = on_result
        self.limit, self.max_retries = executor.max_in_flight_per_actor, executor.max_retries
        self.in_flight: dict[Any, tuple[WorkItem, _Slot]] = {}
        self.retry: deque[WorkItem] = deque()
        self.deaths: dict[str, int] = {}
        self.seen: set[str] = set()
        self.done: set[str] = set()

    async def run(self, items: Iterable[WorkItem]) -> None:
        source = iter(items)
        try:
            while True:
                self._fill(source)
                if not self.in_flight:
                    return
                ready, _ = await asyncio.to_thread(
                    self.ray.wait, list(self.in_flight), num_returns=1, timeout=_WAIT_SECONDS
                )
                for ref in ready:
                    await self._take(ref)
        finally:
            for ref in self.in_flight:  # interrupted: nothing left running for this run
                with contextlib.suppress(Exception):
                    self.ray.cancel(ref)

    def _fill(self, source) -> None:
        for slot in list(self.pool.slots):
            load = sum(1 for _, s in self.in_flight.values() if s is slot)
            while load < self.limit:
                item = self._next(source)
                if item is None:
                    return
                ref = slot.handle.play.remote(self.run_id, item.payload)
                self.in_flight[ref] = (item, slot)
                load += 1

    def _next(self, source) -> WorkItem | None:
        if self.retry:
            return self.retry.popleft()
        item = next(source, None)
        if item is None:
            return None
        if not isinstance(item, WorkItem):
            item = WorkItem(*item)
        if item.id in self.seen:
            raise GiskardValidationError(
                f"two work items have the id {item.id!r}: each item of a run needs its own id"
            )
        self.seen.add(item.id)
        return item

    async def _take(self, ref: Any) -> None:
        item, slot = self.in_flight.pop(ref)
        exceptions = self.ray.exceptions
        try:
            raw = self.ray.get(ref)
        except exceptions.RayActorError as exc:  # the actor died: play the item again elsewhere
            await self.pool.replace(slot)
            self.deaths[item.id] = self.deaths.get(item.id, 0) + 1
            if self.deaths[item.id] <= self.max_retries:
                self.retry.append(item)
                return
            reason = (
                f"the Ray actor playing it died {self.deaths[item.id]} times "
                f"(max_retries={self.max_retries}): {type(exc).__name__}"
            )
            await self._deliver(item, self.task.lost(item.payload, reason))
            return
        except exceptions.RayTaskError as exc:
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            reason = f"it raised on the Ray actor: {type(cause).__name__}: {cause}"
            await self._deliver(item, self.task.lost(item.payload, reason))
            return
        await self._deliver(item, await self.task.in_caller(item.payload, raw))

    async def _deliver(self, item: WorkItem, result: Any) -> None:
        if item.id in self.done:  # a result is accepted once per item
            return
        self.done.add(item.id)
        out = self.on_result(item.id, result)
        if inspect.isawaitable(out):
            await out
