"""Calling the agent under test: chat messages in, an ``AgentReply`` out.

An agent is a callable taking a list of chat messages ``[{"role": ..., "content": ...}]`` (sync or
async), or the last user message when its first parameter is annotated ``str`` or named like text: the
one agent convention and adapter, ``giskard_nb.core.agent_call``. What it returns is read by the core's one normaliser (``giskard_nb.core.reply``): a string, a
message dict ``{"role": "assistant", "content": ...}`` (OpenAI-style ``tool_calls`` are kept), a dict
``{"response": <str | message>, "metadata": {...}}``, or an object with ``response`` (and ``metadata``)
or ``content`` attributes. Tool calls may also be reported in ``metadata["tool_calls"]``.

``AgentReply`` is the core's ``AgentOutput`` (the very class the Hub stores), under the scan's name;
``AgentReply(text=..., tool_calls=[...])`` builds one. ``normalize_reply`` is
``giskard_nb.core.reply.to_agent_output``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from giskard_nb.core.agent_call import call_with_messages
from giskard_nb.core.reply import AgentOutput, to_agent_output
from giskard_nb.errors import AgentError

__all__ = ["AgentReply", "call_agent", "normalize_reply"]

Agent = Callable[[list[dict[str, str]]], Any]

#: The agent's answer: its text, the metadata it returned and the tool calls it made.
AgentReply = AgentOutput

#: Turn whatever the agent returned into an ``AgentReply``; raise ``AgentError`` if it cannot.
normalize_reply = to_agent_output


async def call_agent(
    agent: Agent,
    messages: list[dict[str, str]],
    *,
    timeout: float | None = None,
) -> AgentReply:
    """Call ``agent`` with a copy of ``messages`` (or their last user message, by the agent
    convention). Sync agents run on the core worker pool (``giskard_nb.core.workers``); at the
    timeout a hung one is abandoned and the call returns.

    Raises ``AgentError`` (with the original exception as ``__cause__``) when the agent raises,
    returns something unusable, or does not answer within ``timeout`` seconds; an
    ``AgentInputError`` when it failed as if it expected the other input shape.
    """
    try:
        async with asyncio.timeout(timeout):  # cheaper than wait_for: no extra task per call
            out = await call_with_messages(agent, messages)
    except TimeoutError:
        raise AgentError(f"the agent did not answer within {timeout} s") from None
    except AgentError:
        raise
    except Exception as exc:
        raise AgentError(f"the agent raised {type(exc).__name__}: {exc}") from exc
    return normalize_reply(out)
