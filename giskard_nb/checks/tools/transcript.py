"""A tool-using conversation as text for a judge: each turn's user message, the tool calls the agent
made (numbered, with their arguments, status, result or error, capped) and its reply; and the tools
it could call. Everything written is data the judge is told not to obey (see ``_data.j2``).
"""

from __future__ import annotations

import json
from typing import Any

from giskard_nb.checks.tools.common import input_text, reply_text
from giskard_nb.core.interaction import Trace
from giskard_nb.core.tools import ToolCall, ToolSpec

__all__ = ["MAX_RESULT_CHARS", "numbered_calls", "tools_text", "transcript"]

#: The most characters of one tool result or error shown to a judge.
MAX_RESULT_CHARS = 2000
#: The most characters of one call's arguments shown to a judge.
MAX_ARGS_CHARS = 1000


def _json(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def call_text(number: int, call: ToolCall) -> str:
    line = f"  Tool call #{number}: {call.name}({_json(call.arguments, MAX_ARGS_CHARS)})"
    if call.status == "error":
        return line + f"\n    -> ERROR: {_json(call.error or '', MAX_RESULT_CHARS)}"
    if call.result is not None:
        return line + f"\n    -> result: {_json(call.result, MAX_RESULT_CHARS)}"
    return line + "\n    -> (no result recorded)"


def numbered_calls(trace: Trace, last_turn: int | None = None) -> list[ToolCall]:
    """The calls the transcript shows, in its numbering (call ``#n`` is item ``n - 1``)."""
    stop = len(trace.interactions) if last_turn is None else last_turn + 1
    return [c for c in trace.tool_calls if (c.turn or 0) < stop]


def transcript(trace: Trace, last_turn: int | None = None) -> str:
    """The conversation up to ``last_turn`` (all of it by default), turn by turn."""
    stop = len(trace.interactions) if last_turn is None else last_turn + 1
    lines, number = [], 0
    for turn, interaction in enumerate(trace.interactions[:stop]):
        lines.append(f"[Turn {turn}]")
        lines.append(f"User: {input_text(interaction.inputs)}")
        for call in interaction.tool_calls:
            number += 1
            lines.append(call_text(number, call))
        lines.append(f"Assistant: {reply_text(interaction.outputs)}")
    return "\n".join(lines)


def tools_text(specs: list[ToolSpec]) -> str:
    """The tools the agent could call, one paragraph each (empty when none were given)."""
    out = []
    for spec in specs:
        head = f"- {spec.name} ({spec.side_effect}, risk {spec.risk}"
        head += ", needs confirmation)" if spec.requires_confirmation else ")"
        if spec.description:
            head += f": {_json(spec.description, 1000)}"
        if spec.input_schema:
            head += f"\n  input schema: {_json(spec.input_schema, MAX_ARGS_CHARS)}"
        out.append(head)
    return "\n".join(out)
