"""The one agent adapter: calling user code (targets, agents, input callables) and agents by the
agent convention (``giskard_nb.core.agent_convention``: the conversation, or its last user message).

Scenario and Suite targets and ``outputs=`` callables (``core.spec``), Hub local agents
(``hub.agents.LocalAgent``, so the CLI too), scans (``scan.agent.call_agent``) and the widgets
(Playground and ScenarioBuilder, through scenarios) all call agents through ``timed_call_agent`` or
``call_with_messages``. Sync functions run on the worker pool (``core.workers``), async ones on the
event loop.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

from giskard_nb.core.agent_convention import (
    agent_inputs,
    convention_of,
    is_async_callable,
    shape_error,
)
from giskard_nb.core.inject import Injector, injector
from giskard_nb.core.workers import run_in_worker

__all__ = [
    "call_user",
    "call_with_messages",
    "is_async_callable",  # defined with the convention, which reads it too
    "timed_call_agent",
    "timed_call_user",
]


async def call_user(plan: Injector, values: dict[str, Any]) -> Any:
    """Call user code: an async function on the event loop, a sync one on a worker thread (an
    awaitable it returns is awaited on the loop)."""
    return (await timed_call_user(plan, values))[0]


async def timed_call_user(plan: Injector, values: dict[str, Any]) -> tuple[Any, float]:
    """``call_user`` and the wall-clock seconds the call took (two ``perf_counter`` reads; a sync
    function is timed on its worker thread, so waiting for a thread is not counted)."""
    if is_async_callable(plan.fn):
        start = time.perf_counter()
        out = plan.call(values)
        if inspect.isawaitable(out):
            out = await out
        return out, time.perf_counter() - start
    out, seconds = await run_in_worker(_timed, plan.call, values)
    if inspect.isawaitable(out):  # a sync function returning an awaitable: its wait counts too
        start = time.perf_counter()
        out = await out
        seconds += time.perf_counter() - start
    return out, seconds


def _timed(fn: Callable[[dict[str, Any]], Any], values: dict[str, Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(values)
    return out, time.perf_counter() - start


async def timed_call_agent(
    agent: Any, inputs: Any, values: dict[str, Any], plan: Injector | None = None
) -> tuple[Any, float]:
    """Call ``agent`` with ``inputs`` shaped by its convention (the trace, if any, in ``values``) and
    the other ``values`` by name; its output and the seconds the call took. A mismatch of shapes
    raises ``AgentInputError`` from the agent's error."""
    convention = convention_of(agent)
    value = agent_inputs(convention, inputs, values.get("trace"))
    plan = plan or injector(agent, ("inputs", *values))
    try:
        return await timed_call_user(plan, {**values, "inputs": value})
    except Exception as exc:
        mismatch = shape_error(agent, convention, value, exc)
        if mismatch is None:
            raise
        raise mismatch from exc


async def call_with_messages(agent: Any, messages: Sequence[Any]) -> Any:
    """Call ``agent`` with a conversation (Hub local agents, scans): the conversation or its last user
    message, by the convention; returns what the agent returned (not yet normalised)."""
    return (await timed_call_agent(agent, list(messages), {}))[0]
