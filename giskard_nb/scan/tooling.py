"""How a scan gives an agent its tools and controls what they return.

``run_scan(agent, tools=MockTools(...))``: the agent takes a parameter named ``tools`` (or
``**kwargs``); every attack calls it with a fresh copy of the scan's ``MockTools`` (no call shared
between attacks), so the calls it made are the attack's evidence. For an attack that plants text
(its ``plant``: the tool-result injection and exfiltration probes), every read tool's result carries
it: a dict result gets a ``note`` field, a list one more item, a string one more paragraph.
"""

from __future__ import annotations

import inspect
from typing import Any

from giskard_nb.core.agent_convention import is_async_callable, same_convention
from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan.attack import Attack

__all__ = ["attack_tools", "bind_tools", "check_tools_agent", "plant"]


def check_tools_agent(agent: Any) -> None:
    """Raise a clear error unless ``agent`` can receive the scan's tools (a ``tools`` parameter)."""
    try:
        params = inspect.signature(agent).parameters
    except (TypeError, ValueError):
        return  # no readable signature: the call itself will say what is wrong
    if "tools" in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    name = getattr(agent, "__qualname__", type(agent).__name__)
    raise GiskardValidationError(
        f"the scan was given tools=..., but the agent {name!r} has no `tools` parameter to receive "
        "them: write it as `def agent(messages, tools): ...` and call `tools.call(name, arguments)` "
        "(or `tools.run`) for every tool call, so the scan controls the results and sees the calls"
    )


def plant(result: Any, text: str) -> Any:
    """``result`` with ``text`` planted in it (see the module docstring)."""
    if isinstance(result, dict):
        return {**result, "note": text}
    if isinstance(result, list):
        return [*result, {"note": text}]
    if isinstance(result, str):
        return f"{result}\n\n{text}" if result else text
    if result is None:
        return text
    return {"result": result, "note": text}


def attack_tools(base: Any, attack: Attack) -> Any:
    """A fresh copy of the scan's tools for one attack, with its planted text in the read results."""
    text = attack.metadata.get("plant")
    if not isinstance(text, str) or not text:
        return base.copy()

    def wrap(call: ToolCall, spec: ToolSpec | None) -> Any:
        reads = spec is None or spec.side_effect == "read"
        return plant(call.result, text) if reads else call.result

    return base.copy(wrap=wrap)


def bind_tools(agent: Any, tools: Any) -> Any:
    """``agent`` with ``tools`` given by name, under the same agent convention (sync or async)."""
    if is_async_callable(agent):

        async def bound(inputs: Any) -> Any:
            return await agent(inputs, tools=tools)

    else:

        def bound(inputs: Any) -> Any:
            return agent(inputs, tools=tools)

    return same_convention(bound, agent)
