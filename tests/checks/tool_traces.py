"""Tool-calling traces in the three shapes the tool checks must read: OpenAI chat messages and
Anthropic content blocks (through ``core.tool_adapters.tool_calls_from``), and OpenTelemetry GenAI
spans (``ToolCall`` objects built from span attributes, as an OTLP importer builds them).

A turn is ``(user text, calls, reply)``; a call is ``(name, arguments)``, ``(name, arguments,
result)`` or ``(name, arguments, Err("message"))``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from giskard_nb import Interaction, Trace
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.core.tools import ToolCall

SHAPES = ("openai", "anthropic", "otlp")


@dataclass(frozen=True)
class Err:
    message: str


def _parts(call: tuple) -> tuple[str, dict, Any]:
    name, args, *rest = call
    return name, args, (rest[0] if rest else None)


def _openai(turn: int, calls: list[tuple]) -> list[ToolCall]:
    ids = [f"call_{turn}_{i}" for i in range(len(calls))]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": ids[i],
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args, _) in enumerate(map(_parts, calls))
            ],
        },
    ]
    for i, (_, _, out) in enumerate(map(_parts, calls)):
        if out is None:
            continue
        content = f"Error: {out.message}" if isinstance(out, Err) else json.dumps(out)
        messages.append({"role": "tool", "tool_call_id": ids[i], "content": content})
    found = tool_calls_from(messages)
    # OpenAI tool messages carry no error flag: an agent framework marks the failed ones
    return [
        c.model_copy(update={"status": "error", "error": c.result, "result": None})
        if isinstance(_parts(calls[i])[2], Err)
        else c
        for i, c in enumerate(found)
    ]


def _anthropic(turn: int, calls: list[tuple]) -> list[ToolCall]:
    ids = [f"toolu_{turn}_{i}" for i in range(len(calls))]
    uses = [
        {"type": "tool_use", "id": ids[i], "name": name, "input": args}
        for i, (name, args, _) in enumerate(map(_parts, calls))
    ]
    results = []
    for i, (_, _, out) in enumerate(map(_parts, calls)):
        if out is None:
            continue
        block = {"type": "tool_result", "tool_use_id": ids[i]}
        if isinstance(out, Err):
            block.update(content=[{"type": "text", "text": out.message}], is_error=True)
        else:
            block["content"] = [{"type": "text", "text": json.dumps(out)}]
        results.append(block)
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": uses}]
    if results:
        messages.append({"role": "user", "content": results})
    return tool_calls_from(messages)


def otlp_span(name: str, args: dict, out: Any, i: int) -> dict[str, Any]:
    """An OTLP JSON span of an ``execute_tool`` operation (GenAI semantic conventions)."""
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": name}},
        {"key": "gen_ai.tool.call.id", "value": {"stringValue": f"span-{i}"}},
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(args)}},
    ]
    if out is not None and not isinstance(out, Err):
        attrs.append({"key": "gen_ai.tool.call.result", "value": {"stringValue": json.dumps(out)}})
    status = {"code": 2, "message": out.message} if isinstance(out, Err) else {"code": 1}
    return {
        "name": f"execute_tool {name}",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000250000000",
        "attributes": attrs,
        "status": status,
    }


def call_from_span(span: dict[str, Any]) -> ToolCall:
    """What an OTLP importer makes of an ``execute_tool`` span."""
    attrs = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
    failed = span["status"].get("code") == 2
    result = attrs.get("gen_ai.tool.call.result")
    return ToolCall(
        name=attrs["gen_ai.tool.name"],
        id=attrs.get("gen_ai.tool.call.id"),
        arguments=json.loads(attrs.get("gen_ai.tool.call.arguments") or "{}"),
        result=json.loads(result) if result is not None else None,
        error=span["status"].get("message") if failed else None,
        status="error" if failed else ("ok" if result is not None else "unknown"),
        duration_s=(int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9,
    )


def _otlp(turn: int, calls: list[tuple]) -> list[ToolCall]:
    return [call_from_span(otlp_span(*_parts(c), i)) for i, c in enumerate(calls)]


_BUILD = {"openai": _openai, "anthropic": _anthropic, "otlp": _otlp}


def tool_trace(shape: str, *turns: tuple[str, list[tuple], str]) -> Trace:
    """A trace of ``turns``, its tool calls read from the ``shape`` provider format."""
    interactions = [
        Interaction(inputs=user, outputs=reply, tool_calls=_BUILD[shape](t, calls) if calls else [])
        for t, (user, calls, reply) in enumerate(turns)
    ]
    return Trace(interactions=interactions)
