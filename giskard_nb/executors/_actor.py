"""The Ray actor's body: it builds the agent once, then plays the items of the runs it is told about.

A plain class (``ray.remote`` wraps it when a run starts), so this module never imports Ray.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["AgentHost"]


class AgentHost:
    """One worker: ``agent_factory()`` is called once, here; a factory that raises leaves the actor
    alive and says why through ``ready()`` (the caller raises a clear error instead of retrying)."""

    def __init__(self, agent_factory: Callable[[], Any]):
        self.agent: Any = None
        self.error: str | None = None
        self.tasks: dict[str, Any] = {}
        try:
            self.agent = agent_factory()
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"

    async def ready(self) -> str | None:
        return self.error

    async def prepare(self, run_id: str, task: Any) -> None:
        self.tasks[run_id] = task

    async def forget(self, run_id: str) -> None:
        self.tasks.pop(run_id, None)

    async def play(self, run_id: str, payload: Any) -> Any:
        out = self.tasks[run_id].on_actor(self.agent, payload)
        if inspect.isawaitable(out):
            out = await out
        return out
