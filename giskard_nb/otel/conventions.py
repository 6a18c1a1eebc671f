"""What a span says, read through the OpenTelemetry GenAI semantic conventions (``gen_ai.*``) and
OpenInference (``openinference.span.kind``, ``llm.*``, ``tool.*``, ``input.value``/``output.value``).

- ``tool_call_of(span)``: the ``ToolCall`` a tool-execution span records (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``/``.arguments``/``.result``; OpenInference ``tool.name`` with the arguments
  in ``input.value`` and the result in ``output.value``); an error status makes it an error.
- ``requested_calls(span)``: the calls a model span asked for (``llm.output_messages.*.tool_calls``,
  ``gen_ai.completion.*.tool_calls``, ``gen_ai.output.messages`` parts of type ``tool_call``).
- ``input_text(span)`` / ``output_text(span)``: the user's last message and the model's answer.

Arguments are data: a JSON string is parsed (``parse_arguments``), never evaluated.
"""

from __future__ import annotations

import json
import re
from typing import Any

from giskard_nb.core.tools import ToolCall, parse_arguments
from giskard_nb.otel.otlp import Span

__all__ = ["input_text", "is_llm", "is_tool", "output_text", "requested_calls", "tool_call_of"]

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})


def is_tool(span: Span) -> bool:
    """Whether the span is a tool execution."""
    kind = str(span.get("openinference.span.kind") or "").upper()
    return (
        span.get("gen_ai.operation.name") == "execute_tool"
        or span.get("gen_ai.tool.name") is not None
        or kind == "TOOL"
    )


def is_llm(span: Span) -> bool:
    """Whether the span is a model call."""
    kind = str(span.get("openinference.span.kind") or "").upper()
    return kind == "LLM" or span.get("gen_ai.operation.name") in _LLM_OPERATIONS


def _data(value: Any) -> Any:
    """A JSON object or array given as a string becomes data; other values stay as they are."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        parsed, why = parse_arguments(value)
        return value if why else parsed
    return value


def tool_call_of(span: Span) -> ToolCall | None:
    """The call a tool span records (``None`` when it names no tool)."""
    name = span.get("gen_ai.tool.name", "tool.name") or re.sub(r"^execute_tool\s+", "", span.name)
    name = str(name or "").strip()
    if not name:
        return None
    raw_args = span.get("gen_ai.tool.call.arguments", "input.value")
    arguments, why = parse_arguments(raw_args)
    error = None
    if span.status_code == 2 or span.get("giskard.tool.status") == "error":
        error = str(span.get("giskard.tool.error") or span.status_message or "")
        error = error or str(span.get("error.type") or "the tool span has an error status")
    result = None if error else span.get("gen_ai.tool.call.result", "output.value")
    if span.get("giskard.tool.status") is not None and isinstance(result, str):
        result = parse_arguments(result)[0]  # giskard-nb's own export writes results as JSON
    else:
        result = _data(result)
    duration = (span.end - span.start) / 1e9 if span.end >= span.start > 0 else None
    status = "error" if error else ("ok" if result is not None else "unknown")
    call_id = span.get("gen_ai.tool.call.id", "tool_call.id", "tool.id")
    return ToolCall(
        name=name,
        arguments=arguments,
        id=None if call_id is None else str(call_id),
        result=result,
        error=error,
        status=status,
        duration_s=duration,
        server=_text(span.get("giskard.tool.server", "mcp.server.name")),
        arguments_error=why,
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


_OI_CALL = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(?:function\.)?(\w+)$"
)
_GENAI_CALL = re.compile(r"^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(\w+)$")


def requested_calls(span: Span) -> list[ToolCall]:
    """The tool calls a model span's output asked for, in order."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in span.attributes.items():
        match = _OI_CALL.match(key) or _GENAI_CALL.match(key)
        if match:
            found.setdefault((int(match[1]), int(match[2])), {})[match[3]] = value
    calls = []
    for _, fields in sorted(found.items()):
        if fields.get("name"):
            arguments, why = parse_arguments(fields.get("arguments"))
            call_id = fields.get("id")
            calls.append(
                ToolCall(
                    name=str(fields["name"]),
                    arguments=arguments,
                    id=None if call_id is None else str(call_id),
                    arguments_error=why,
                )
            )
    for message in _messages(span.get("gen_ai.output.messages")):
        for part in message.get("parts") or []:
            if isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                arguments, why = parse_arguments(part.get("arguments"))
                call_id = part.get("id")
                calls.append(
                    ToolCall(
                        name=str(part["name"]),
                        arguments=arguments,
                        id=None if call_id is None else str(call_id),
                        arguments_error=why,
                    )
                )
    return calls


def _messages(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        value, why = parse_arguments(value)
        if why:
            return []
    return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []


def _parts_text(message: dict[str, Any]) -> str:
    if isinstance(message.get("content"), str):
        return message["content"]
    parts = message.get("parts") or []
    return "".join(
        str(p.get("content") or p.get("text") or "")
        for p in parts
        if isinstance(p, dict) and p.get("type") in ("text", None)
    )


def _indexed(span: Span, prefix: str, field: str) -> list[tuple[int, Any]]:
    pattern = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.{re.escape(field)}$")
    found = []
    for key, value in span.attributes.items():
        match = pattern.match(key)
        if match:
            found.append((int(match[1]), value))
    return sorted(found, key=lambda p: p[0])


def input_text(span: Span) -> str | None:
    """The last user message a span saw (``None`` when it records none)."""
    for prefix, role_f, content_f in (
        ("llm.input_messages", "message.role", "message.content"),
        ("gen_ai.prompt", "role", "content"),
    ):
        roles = dict(_indexed(span, prefix, role_f))
        users = [c for i, c in _indexed(span, prefix, content_f) if roles.get(i) == "user"]
        if users:
            return str(users[-1])
    users = [m for m in _messages(span.get("gen_ai.input.messages")) if m.get("role") == "user"]
    if users:
        return _parts_text(users[-1])
    value = span.get("input.value")
    return None if value is None else str(value)


def output_text(span: Span) -> str | None:
    """The answer a span produced (``None`` when it records none)."""
    for prefix, field in (
        ("llm.output_messages", "message.content"),
        ("gen_ai.completion", "content"),
    ):
        texts = [str(c) for _, c in _indexed(span, prefix, field) if c]
        if texts:
            return texts[-1]
    out = [m for m in _messages(span.get("gen_ai.output.messages")) if _parts_text(m)]
    if out:
        return _parts_text(out[-1])
    value = span.get("output.value")
    return None if value is None else str(value)


def dumps(value: Any) -> str:
    """Compact JSON for an attribute value (non-JSON leaves as their text)."""
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
