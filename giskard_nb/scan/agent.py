"""Calling the agent under test: chat messages in, an ``AgentReply`` out.

An agent is a callable taking a list of chat messages ``[{"role": ..., "content": ...}]`` (sync or
async). It may return a string, a message dict ``{"role": "assistant", "content": ...}`` (OpenAI-style
``tool_calls`` are kept), a dict ``{"response": <str | message>, "metadata": {...}}``, or an object with
``response`` (and ``metadata``) or ``content`` attributes. Tool calls may also be reported in
``metadata["tool_calls"]``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.core.sanitize import to_safe_data
from giskard_nb.core.workers import run_in_worker
from giskard_nb.errors import AgentError

__all__ = ["AgentReply", "call_agent", "normalize_reply"]

Agent = Callable[[list[dict[str, str]]], Any]


class AgentReply(BaseModel):
    """The agent's answer: its text, the metadata it returned and the tool calls it made."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)

    # Where a reply enters a scan: JSON-safe and capped (giskard_nb.core.sanitize), so any reply can
    # be stored as an attempt and read back.
    @field_validator("text", mode="before")
    @classmethod
    def _safe_text(cls, text: Any) -> Any:
        return to_safe_data(text) if isinstance(text, str) else text

    @field_validator("metadata", mode="before")
    @classmethod
    def _safe_metadata(cls, metadata: Any) -> Any:
        safe = to_safe_data(metadata)
        return safe if isinstance(safe, dict) else {"value": safe}

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _safe_calls(cls, calls: Any) -> Any:
        safe = to_safe_data(calls)
        if not isinstance(safe, list):
            return safe
        return [c if isinstance(c, dict) else {"value": c} for c in safe]


def _as_dict(obj: Any) -> dict[str, Any] | None:
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            out = dump()
        except Exception:  # pragma: no cover - a broken model_dump
            return None
        return out if isinstance(out, dict) else None
    if hasattr(obj, "response") or hasattr(obj, "content"):
        return {
            k: getattr(obj, k)
            for k in ("response", "content", "metadata", "tool_calls", "role")
            if hasattr(obj, k)
        }
    return None


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    if not value:
        return []
    if not isinstance(value, list | tuple):
        value = [value]
    calls = []
    for call in value:
        d = _as_dict(call) if not isinstance(call, dict) else call
        if d is None:
            d = {"name": str(call)}
        calls.append(d)
    return calls


def normalize_reply(out: Any) -> AgentReply:
    """Turn whatever the agent returned into an ``AgentReply``; raise ``AgentError`` if it cannot."""
    if isinstance(out, AgentReply):
        return out
    if isinstance(out, str):
        return AgentReply(text=out)
    data = _as_dict(out)
    if data is None:
        raise AgentError(
            f"the agent returned {type(out).__name__} ({str(out)[:80]!r}); return a string, a message "
            "dict {'role': 'assistant', 'content': ...} or {'response': ..., 'metadata': {...}}"
        )
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        metadata = {"value": metadata}
    calls = _tool_calls(data.get("tool_calls")) + _tool_calls(metadata.get("tool_calls"))
    if "response" in data:
        inner = data["response"]
        if inner is None:
            text = ""
        else:
            reply = normalize_reply(inner)
            text, calls = reply.text, reply.tool_calls + calls
            metadata = {**reply.metadata, **metadata}
    elif "content" in data:
        content = data["content"]
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
        text = "" if content is None else str(content)
    else:
        keys = ", ".join(map(str, data)) or "(none)"
        raise AgentError(
            f"the agent returned a dict with keys {keys}; expected 'content' (a chat message) or "
            "'response' (with optional 'metadata')"
        )
    return AgentReply(text=text, metadata=metadata, tool_calls=calls)


async def call_agent(
    agent: Agent,
    messages: list[dict[str, str]],
    *,
    timeout: float | None = None,
) -> AgentReply:
    """Call ``agent`` with a copy of ``messages``. Sync agents run on the core worker pool
    (``giskard_nb.core.workers``); at the timeout a hung one is abandoned and the call returns.

    Raises ``AgentError`` (with the original exception as ``__cause__``) when the agent raises,
    returns something unusable, or does not answer within ``timeout`` seconds.
    """
    payload = [dict(m) for m in messages]
    try:
        async with asyncio.timeout(timeout):  # cheaper than wait_for: no extra task per call
            if _is_async(agent):
                out = await agent(payload)
            else:
                out = await run_in_worker(agent, payload)
                if inspect.isawaitable(out):
                    out = await out
    except TimeoutError:
        raise AgentError(f"the agent did not answer within {timeout} s") from None
    except AgentError:
        raise
    except Exception as exc:
        raise AgentError(f"the agent raised {type(exc).__name__}: {exc}") from exc
    return normalize_reply(out)


def _is_async(agent: Any) -> bool:
    if inspect.iscoroutinefunction(agent):
        return True
    call = getattr(agent, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return inspect.iscoroutinefunction(call)
