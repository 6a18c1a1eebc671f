"""What the tool checks share: the calls a check looks at (``turn=``), expected calls read from data,
argument normalisation and comparison with a per-argument diff, and the text of a turn.

Everything read from a trace is untrusted: names, arguments and replies are compared as data, never
evaluated, and what goes into ``details`` is the calls' short form (``name({...})``, capped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from giskard_nb.checks.base import normalize_data
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.core.tools import ToolCall, ToolSpec, parse_arguments
from giskard_nb.errors import GiskardValidationError

__all__ = [
    "ToolCheck",
    "args_diff",
    "as_call",
    "as_calls",
    "as_specs",
    "call_key",
    "calls_match",
    "compile_pattern",
    "input_text",
    "normalise_args",
    "reply_text",
    "short",
]

#: The most calls listed in one ``details`` entry (the count is always given).
MAX_LISTED = 50


class ToolCheck(Check):
    """Base of the tool checks (not registered): ``turn`` picks the interaction whose calls are checked
    (an index; negative counts from the end, ``-1`` is the last turn); ``None`` checks the whole
    conversation."""

    turn: int | None = Field(
        default=None,
        description="index of the interaction checked (-1: the last); None: the whole conversation",
    )

    def scope(self, trace: Trace) -> list[ToolCall] | CheckResult:
        """The calls in scope (each with ``turn`` set), or an ERROR when ``turn`` names no interaction."""
        index = self.turn_index(trace)
        if isinstance(index, CheckResult):
            return index
        calls = trace.tool_calls
        return calls if index is None else [c for c in calls if c.turn == index]

    def turn_index(self, trace: Trace) -> int | CheckResult | None:
        if self.turn is None:
            return None
        count = len(trace.interactions)
        index = self.turn + count if self.turn < 0 else self.turn
        if not 0 <= index < count:
            return CheckResult.error(
                f"turn={self.turn} names no interaction: the trace has {count} "
                f"interaction{'s' if count != 1 else ''} (use 0 to {max(count - 1, 0)}, -1 for the "
                "last, or turn=None for the whole conversation)",
                details={"turn": self.turn, "interactions": count},
            )
        return index

    def where(self) -> str:
        return "in the conversation" if self.turn is None else f"in turn {self.turn}"


def as_call(value: Any) -> ToolCall:
    """An expected call from data: a ``ToolCall``, a tool name, or one call as a dict (our fields, an
    OpenAI tool call or an Anthropic ``tool_use`` block)."""
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, str):
        if not value.strip():
            raise GiskardValidationError("an expected tool call needs a tool name, got ''")
        return ToolCall(name=value)
    if isinstance(value, Mapping):
        if value.get("name") and set(value) <= set(ToolCall.model_fields):  # our own fields
            fields = dict(value)
            if isinstance(fields.get("arguments"), str):
                fields["arguments"], fields["arguments_error"] = parse_arguments(
                    fields["arguments"]
                )
            try:
                return ToolCall.model_validate(fields)
            except ValueError as exc:
                raise GiskardValidationError(f"an expected tool call is not valid: {exc}") from None
        calls = tool_calls_from(dict(value))
        if len(calls) == 1:
            return calls[0]
    raise GiskardValidationError(
        f"an expected tool call is a tool name, a ToolCall or a dict such as "
        f'{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}, got {value!r:.120}'
    )


def as_calls(value: Any) -> Any:
    """A list of expected calls (``as_call`` on each item); other values are left to pydantic."""
    if isinstance(value, list | tuple):
        return [as_call(v) for v in value]
    return value


def as_specs(value: Any) -> Any:
    """Tool definitions from data: ``ToolSpec`` objects, their dicts, or OpenAI / Anthropic / MCP
    definitions (read by ``ToolSpec.from_openai`` / ``from_anthropic`` / ``from_mcp``)."""
    if not isinstance(value, list | tuple):
        return value
    specs = []
    for item in value:
        if isinstance(item, Mapping) and ("function" in item or item.get("type") == "function"):
            specs.append(ToolSpec.from_openai(item))
        elif isinstance(item, Mapping) and "inputSchema" in item:
            specs.append(ToolSpec.from_mcp(item))
        else:
            specs.append(item)
    return specs


def compile_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise GiskardValidationError(
            f"invalid regular expression {pattern!r} for a tool name: {exc}"
        ) from None


def _plain_number(value: Any) -> Any:
    """Integral floats as ints (``1.0`` and ``1`` are the same argument); bools stay bools."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): _plain_number(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_number(v) for v in value]
    return value


def normalise_args(value: Any, *, casefold: bool = False) -> Any:
    """Arguments compared as data: strings NFKC-normalised, whitespace collapsed and stripped (and
    casefolded when asked), integral floats as ints, dict keys as strings, tuples as lists."""
    value = _plain_number(normalize_data(value, "NFKC"))
    if casefold:
        return _casefold(value)
    return value


def _casefold(value: Any) -> Any:
    if isinstance(value, str):
        return value.casefold()
    if isinstance(value, dict):
        return {k: _casefold(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_casefold(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):  # True is not 1
        return type(a) is type(b) and a == b
    return a == b


def args_diff(
    expected: Any, actual: Any, *, mode: str = "subset", path: str = "$"
) -> list[dict[str, Any]]:
    """How ``actual`` arguments differ from ``expected`` (both normalised first by the caller), one
    entry per argument: ``{"argument": "$.city", "problem": "missing" | "different" | "unexpected",
    "expected": ..., "actual": ...}``. ``subset``: the expected keys must be there with equal values
    (nested dicts compared the same way); ``exact``: and no other key."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[dict[str, Any]] = []
        for key, want in expected.items():
            where = f"{path}.{key}"
            if key not in actual:
                out.append({"argument": where, "problem": "missing", "expected": want})
            else:
                out += args_diff(want, actual[key], mode=mode, path=where)
        if mode == "exact":
            out += [
                {"argument": f"{path}.{k}", "problem": "unexpected", "actual": v}
                for k, v in actual.items()
                if k not in expected
            ]
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        out = []
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            out += args_diff(want, got, mode="exact", path=f"{path}[{i}]")
        return out
    if _same(expected, actual):
        return []
    return [{"argument": path, "problem": "different", "expected": expected, "actual": actual}]


def calls_match(
    expected: ToolCall, actual: ToolCall, *, mode: str = "subset", casefold: bool = False
) -> bool:
    """Same tool name and arguments matching (``subset``: the expected ones are there; ``exact``:
    equal; ``name``: arguments ignored)."""
    if expected.name != actual.name:
        return False
    if mode == "name":
        return True
    want = normalise_args(expected.arguments, casefold=casefold)
    got = normalise_args(actual.arguments, casefold=casefold)
    return not args_diff(want, got, mode=mode)


def call_key(call: ToolCall, *, with_arguments: bool = True) -> str:
    """A hashable identity of a call: its name and normalised arguments as canonical JSON."""
    if not with_arguments:
        return call.name
    args = json.dumps(
        normalise_args(call.arguments), sort_keys=True, ensure_ascii=False, default=str
    )
    return f"{call.name}\x00{args}"


def short(calls: list[ToolCall]) -> list[str]:
    """The calls' short forms for ``details`` (at most ``MAX_LISTED``)."""
    return [f"turn {c.turn}: {c}" if c.turn is not None else str(c) for c in calls[:MAX_LISTED]]


def _as_text(value: Any) -> str:
    from giskard_nb.llm.templates import prompt_text

    return str(prompt_text(value))


def reply_text(value: Any) -> str:
    """The text of an agent's reply (a string, an ``AgentOutput``-like dict or message; else JSON)."""
    if value is None or isinstance(value, str):
        return value or ""
    from giskard_nb.core.reply import to_agent_output
    from giskard_nb.errors import AgentError

    try:
        return to_agent_output(value).content
    except (AgentError, ValueError, TypeError):
        return _as_text(value)


def input_text(value: Any) -> str:
    """The text of a user turn: a string, or the last user message of a conversation."""
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, Mapping) and isinstance(value.get("content"), str):
        return value["content"]
    if isinstance(value, list | tuple):
        for message in reversed(value):
            if isinstance(message, Mapping) and message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else _as_text(content)
    return _as_text(value)
