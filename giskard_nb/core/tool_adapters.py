"""Reading tool calls and tool definitions from the shapes agents and providers use.

``tool_calls_from(value)`` returns the ``ToolCall`` objects found in:

- ``ToolCall`` objects, or dicts of their fields (``{"name", "arguments", "result", ...}``);
- OpenAI chat tool calls (``{"id", "type": "function", "function": {"name", "arguments"}}``, with
  the outcome when an agent logs it: ``result``, ``error``, ``status``, ``duration_s``), an
  assistant message carrying them, or a whole chat completion (``{"choices": [{"message": ...}]}``);
- a conversation (a list of messages): the assistant's ``tool_calls`` paired by id with the ``tool``
  messages that answer them (their content is the result), and ``turn`` counted in user messages;
- OpenAI Responses output (``{"output": [...]}`` or the list): ``function_call`` items paired with
  ``function_call_output`` items by ``call_id``;
- Anthropic messages: ``tool_use`` content blocks, paired with the ``tool_result`` blocks of the
  following user message (``is_error`` makes the call an error).

``split_reply(value)`` says whether an agent's return value is a reply carrying tool calls and, if so,
its text and its calls (a plain string or a dict without tool calls is not: it returns ``None``).
Everything read is data: arguments given as a JSON string are parsed, never evaluated; at most
``MAX_CALLS`` calls are read from one value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from giskard_nb.core.sanitize import to_safe_data
from giskard_nb.core.tools import ToolCall, ToolSpec, parse_arguments

__all__ = ["MAX_CALLS", "spec_from_mcp", "spec_from_openai", "split_reply", "tool_calls_from"]

#: The most tool calls read from one value (an agent could return millions).
MAX_CALLS = 1000

_CALL_FIELDS = frozenset(ToolCall.model_fields)
#: What an OpenAI chat tool call may carry besides its ``function`` when an agent logs the outcome.
_OUTCOME = ("result", "error", "status", "duration_s")


def tool_calls_from(value: Any) -> list[ToolCall]:
    """Every tool call found in ``value`` (see the module docstring for the shapes), in order."""
    calls = _read(_plain(value))
    return calls[:MAX_CALLS]


def split_reply(value: Any) -> tuple[str, list[ToolCall]] | None:
    """``(text, calls)`` when ``value`` is an agent reply that carries tool calls, else ``None``.

    Recognised: an assistant message (OpenAI or Anthropic content blocks), a chat completion, a
    Responses output, and ``{"text"|"content"|"response"|"output": ..., "tool_calls": [...]}``.
    """
    data = _plain(value)
    if not isinstance(data, Mapping):
        return None
    calls = [] if _looks_like_call(data) else _read(data)  # a bare call is data, not a reply
    if not calls and isinstance(data.get("metadata"), Mapping):
        calls = _read({"tool_calls": data["metadata"].get("tool_calls")})
    if not calls:
        return None
    return _text(data), calls[:MAX_CALLS]


def spec_from_openai(tool: Any, **fields: Any) -> ToolSpec:
    """A ``ToolSpec`` from an OpenAI tool definition (chat or Responses shape); ``fields`` (such as
    ``side_effect``, ``risk``) are added."""
    data = _plain(tool)
    if not isinstance(data, Mapping):
        raise ValueError(f"an OpenAI tool definition is a dict, got {type(tool).__name__}")
    fn = data.get("function") if isinstance(data.get("function"), Mapping) else data
    return ToolSpec(
        name=str(fn.get("name") or ""),
        description=str(fn.get("description") or ""),
        input_schema=fn.get("parameters") or {},
        **fields,
    )


def spec_from_mcp(tool: Any, *, server: str | None = None, **fields: Any) -> ToolSpec:
    """A ``ToolSpec`` from an MCP tool (``name``, ``description``, ``inputSchema``, ``annotations``):
    ``destructiveHint`` makes it a ``write`` tool needing confirmation, ``openWorldHint`` an
    ``external`` one, unless ``fields`` say otherwise."""
    data = _plain(tool)
    if not isinstance(data, Mapping):
        raise ValueError(f"an MCP tool is a dict or an mcp.types.Tool, got {type(tool).__name__}")
    hints = data.get("annotations") if isinstance(data.get("annotations"), Mapping) else {}
    derived: dict[str, Any] = {}
    if hints.get("readOnlyHint") is not True:
        if hints.get("destructiveHint"):
            derived = {"side_effect": "write", "risk": "high", "requires_confirmation": True}
        elif hints.get("openWorldHint"):
            derived = {"side_effect": "external", "risk": "medium"}
    return ToolSpec(
        name=str(data.get("name") or ""),
        description=str(data.get("description") or ""),
        input_schema=data.get("inputSchema") or data.get("input_schema") or {},
        server=server,
        **{**derived, **fields},
    )


def _plain(value: Any) -> Any:
    """Plain dicts and lists for models (pydantic, OpenAI/Anthropic SDK objects); others unchanged."""
    if isinstance(value, ToolCall):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return dump()
        except Exception:  # an object whose dump fails is read as it is
            return value
    return value


def _read(data: Any) -> list[ToolCall]:
    if isinstance(data, ToolCall):
        return [data]
    if isinstance(data, Sequence) and not isinstance(data, str | bytes | bytearray):
        return _read_list(list(data)[: MAX_CALLS * 4])
    if not isinstance(data, Mapping):
        return []
    if isinstance(data.get("choices"), Sequence) and data["choices"]:
        first = _plain(data["choices"][0])
        return _read(first.get("message")) if isinstance(first, Mapping) else []
    if isinstance(data.get("output"), Sequence) and not isinstance(data["output"], str):
        return _read_list(list(data["output"]))
    calls = []
    if isinstance(data.get("content"), Sequence) and not isinstance(data["content"], str):
        calls = _anthropic_blocks(list(data["content"]))
    raw = data.get("tool_calls")
    if isinstance(raw, Sequence) and not isinstance(raw, str | bytes):
        calls += [c for c in (_one(_plain(item)) for item in raw) if c is not None]
    elif _looks_like_call(data):
        one = _one(data)
        calls += [one] if one is not None else []
    return calls


def _read_list(items: list[Any]) -> list[ToolCall]:
    """A list of calls, of Responses items, or a conversation of messages."""
    items = [_plain(i) for i in items]
    if any(isinstance(i, Mapping) and "role" in i for i in items):
        return _conversation(items)
    if any(isinstance(i, Mapping) and i.get("type") in _RESPONSES_TYPES for i in items):
        return _responses(items)
    return [c for c in (_one(i) for i in items) if c is not None]


_RESPONSES_TYPES = frozenset({"function_call", "function_call_output", "mcp_call"})


def _one(item: Any) -> ToolCall | None:
    """One call from a ``ToolCall``, our dict shape or an OpenAI chat tool call."""
    if isinstance(item, ToolCall):
        return item
    if not isinstance(item, Mapping):
        return None
    fn = item.get("function")
    if isinstance(fn, Mapping):  # OpenAI chat
        args, why = parse_arguments(fn.get("arguments"))
        extra = {k: item[k] for k in _OUTCOME if item.get(k) is not None}  # a logged outcome
        return _call(
            name=fn.get("name"), arguments=args, id=item.get("id"), arguments_error=why, **extra
        )
    if item.get("type") == "tool_use":  # an Anthropic block on its own
        return _call(name=item.get("name"), arguments=item.get("input"), id=item.get("id"))
    if "name" not in item:
        return None
    fields = {k: v for k, v in item.items() if k in _CALL_FIELDS}
    if "arguments" not in fields and "args" in item:
        fields["arguments"] = item["args"]
    if isinstance(fields.get("arguments"), str | bytes):
        fields["arguments"], why = parse_arguments(fields["arguments"])
        fields.setdefault("arguments_error", why)
    return _call(**fields)


def _call(**fields: Any) -> ToolCall | None:
    fields["name"] = str(fields.get("name") or "").strip()
    if not fields["name"]:
        return None
    if fields.get("id") is not None:
        fields["id"] = str(fields["id"])
    try:
        return ToolCall(**fields)
    except ValueError:  # a field of the wrong type: keep what the call was, as data
        keep = {k: fields[k] for k in ("name", "arguments", "id") if k in fields}
        return ToolCall(**keep) if "name" in keep else None


def _looks_like_call(data: Mapping[str, Any]) -> bool:
    return "name" in data and ("arguments" in data or "args" in data) and "role" not in data


def _conversation(messages: list[Any]) -> list[ToolCall]:
    """Calls of a conversation, results paired by id, ``turn`` counted in user messages."""
    calls: list[ToolCall] = []
    index: dict[str, int] = {}
    turn = -1
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        content = message.get("content")
        if role == "user" and not _only_tool_results(content):
            turn += 1
        if role == "tool":  # OpenAI: the result of one call
            _attach(calls, index, message.get("tool_call_id"), content, None)
            continue
        blocks = list(content) if isinstance(content, list) else []
        if role == "user" and blocks:  # Anthropic: tool_result blocks answer earlier calls
            for block in blocks:
                if isinstance(block, Mapping) and block.get("type") == "tool_result":
                    error = block.get("content") if block.get("is_error") else None
                    result = None if error is not None else block.get("content")
                    _attach(calls, index, block.get("tool_use_id"), result, _text_of(error))
            continue
        if role == "assistant":
            for call in _read(message):
                call = call.model_copy(update={"turn": max(turn, 0)})
                if call.id:
                    index[call.id] = len(calls)
                calls.append(call)
    return calls


def _only_tool_results(content: Any) -> bool:
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)
    )


def _attach(
    calls: list[ToolCall], index: dict[str, int], call_id: Any, result: Any, error: str | None
) -> None:
    at = index.get(str(call_id)) if call_id is not None else None
    if at is None:
        return
    update: dict[str, Any] = {"status": "error" if error is not None else "ok"}
    if error is not None:
        update["error"] = error
    else:
        update["result"] = to_safe_data(_text_or(result))
    calls[at] = calls[at].model_copy(update=update)


def _responses(items: list[Any]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    index: dict[str, int] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind in ("function_call", "mcp_call"):
            args, why = parse_arguments(item.get("arguments"))
            call_id = item.get("call_id") or item.get("id")
            call = _call(
                name=item.get("name"),
                arguments=args,
                id=call_id,
                arguments_error=why,
                server=item.get("server_label"),
            )
            if call is None:
                continue
            if kind == "mcp_call" and (item.get("output") is not None or item.get("error")):
                error = item.get("error")
                update = {"error": str(error)} if error else {"result": item.get("output")}
                call = ToolCall.model_validate({**call.model_dump(), **update})
            if call.id:
                index[call.id] = len(calls)
            calls.append(call)
        elif kind == "function_call_output":
            _attach(calls, index, item.get("call_id"), item.get("output"), None)
    return calls


def _anthropic_blocks(blocks: list[Any]) -> list[ToolCall]:
    calls = []
    for block in blocks:
        block = _plain(block)
        if isinstance(block, Mapping) and block.get("type") == "tool_use":
            call = _call(name=block.get("name"), arguments=block.get("input"), id=block.get("id"))
            if call is not None:
                calls.append(call)
    return calls


def _text_or(value: Any) -> Any:
    """A tool result: content blocks become their text, other values stay data."""
    if isinstance(value, list) and value and all(isinstance(b, Mapping) for b in value):
        texts = [b.get("text") for b in value if isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return value


def _text_of(value: Any) -> str | None:
    if value is None:
        return None
    out = _text_or(value)
    return out if isinstance(out, str) else str(out)


def _text(data: Mapping[str, Any]) -> str:
    """The text of a reply that carries tool calls (joined text blocks; empty when there is none)."""
    if isinstance(data.get("choices"), Sequence) and data["choices"]:
        first = _plain(data["choices"][0])
        message = first.get("message") if isinstance(first, Mapping) else None
        return _text(message) if isinstance(message, Mapping) else ""
    for key in ("text", "content", "response", "output_text"):
        value = data.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping):
            return _text(value)
        if isinstance(value, list):
            return _blocks_text(value)
    if isinstance(data.get("output"), list):
        return _blocks_text(
            [c for item in data["output"] if isinstance(item, Mapping) for c in _msg(item)]
        )
    return ""


def _msg(item: Mapping[str, Any]) -> list[Any]:
    content = item.get("content") if item.get("type") == "message" else None
    return list(content) if isinstance(content, list) else []


def _blocks_text(blocks: list[Any]) -> str:
    parts = []
    for block in blocks:
        block = _plain(block)
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)
