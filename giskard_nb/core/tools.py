"""Tool calls as trace data: ``ToolCall`` (one call an agent made) and ``ToolSpec`` (a tool it may call).

An ``Interaction`` carries the calls of its turn in ``tool_calls``; ``Trace.tool_calls`` lists every call of
the conversation, in order. Both are plain pydantic models, so they survive JSON round trips and JSONPath
reaches them (``trace.last.tool_calls[0].arguments.amount``).

Agents report calls in many shapes (OpenAI chat completions and Responses output, Anthropic content
blocks, conversations with ``tool`` messages, plain dicts): ``giskard_nb.core.tool_adapters`` reads them
all into ``ToolCall`` objects. Arguments are data: a JSON string is parsed (an unparseable one is kept as
the string, and ``arguments_error`` says why), never evaluated.

Everything here is untrusted input (what an agent or a tool returned): sizes are capped and strings made
valid Unicode by ``giskard_nb.core.sanitize.to_safe_data`` when a call is built.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.core.sanitize import to_safe_data, valid_unicode

__all__ = ["RISKS", "SIDE_EFFECTS", "TOOL_STATUSES", "ToolCall", "ToolSpec", "parse_arguments"]

#: The statuses of a call: it returned (``ok``), it failed (``error``), or nothing says (``unknown``).
TOOL_STATUSES = ("ok", "error", "unknown")
#: What a tool does to the world: reads, writes the system's own data, or acts outside (mail, payment…).
SIDE_EFFECTS = ("read", "write", "external")
#: How much harm a wrong call can do.
RISKS = ("low", "medium", "high")

#: The longest tool name kept (longer names are cut: a name is an identifier, not a document).
MAX_NAME = 200


def parse_arguments(raw: Any) -> tuple[Any, str | None]:
    """Arguments as data and, when a JSON string could not be parsed, why (the string is kept as is).

    ``None`` and ``""`` are no arguments (``{}``); a dict, list or number is already data.
    """
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, str | bytes | bytearray):
        try:
            return json.loads(raw), None
        except (ValueError, RecursionError) as exc:
            text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
            return text, f"the arguments are not valid JSON ({type(exc).__name__}: {exc})"
    return raw, None


class ToolCall(BaseModel):
    """One call of a tool by the agent.

    ``name`` and ``arguments`` (data: usually a dict) say what was called; ``result`` what the tool
    returned and ``error`` how it failed, when known; ``status`` is ``ok``, ``error`` or ``unknown``
    (derived from ``error``/``result`` when not given). ``id`` pairs a call with its result in
    provider formats; ``turn`` is the index of the interaction the call belongs to (set when a trace
    lists its calls); ``server`` names the MCP server (or namespace) the tool came from.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    name: str
    arguments: Any = Field(default_factory=dict)
    id: str | None = None
    result: Any = None
    error: str | None = None
    status: Literal["ok", "error", "unknown"] = "unknown"
    duration_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    turn: int | None = Field(default=None, ge=0)
    server: str | None = None
    arguments_error: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        return valid_unicode(name.strip())[:MAX_NAME]

    @field_validator("arguments", "result", mode="before")
    @classmethod
    def _data(cls, value: Any) -> Any:
        return to_safe_data(value)

    @field_validator("error", "id", "server", "arguments_error")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        return None if value is None else to_safe_data(value)

    def model_post_init(self, _context: Any) -> None:
        if self.status == "unknown" and "status" not in self.model_fields_set:
            if self.error is not None:
                object.__setattr__(self, "status", "error")
            elif self.result is not None:
                object.__setattr__(self, "status", "ok")

    @property
    def failed(self) -> bool:
        """Whether the call is known to have failed."""
        return self.status == "error"

    def __hash__(self) -> int:
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True, default=str))

    def __str__(self) -> str:
        args = json.dumps(self.arguments, ensure_ascii=False, default=str)
        return f"{self.name}({args[:200]}{'…' if len(args) > 200 else ''})"


class ToolSpec(BaseModel):
    """A tool an agent may call: ``name``, ``description``, the JSON schema of its input, what it does
    to the world (``side_effect``: read / write / external), its ``risk`` (low / medium / high) and
    whether it needs the user's explicit confirmation first (``requires_confirmation``).

    ``ToolSpec.from_openai(...)``, ``from_anthropic(...)`` and ``from_mcp(...)`` read provider tool
    definitions (``giskard_nb.core.tool_adapters``).
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    side_effect: Literal["read", "write", "external"] = "read"
    risk: Literal["low", "medium", "high"] = "low"
    requires_confirmation: bool = False
    server: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        name = valid_unicode(name.strip())[:MAX_NAME]
        if not name:
            raise ValueError("a tool needs a name")
        return name

    @field_validator("input_schema", mode="before")
    @classmethod
    def _schema(cls, value: Any) -> Any:
        return {} if value is None else to_safe_data(value)

    def __hash__(self) -> int:
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True, default=str))

    @classmethod
    def from_openai(cls, tool: Any, **fields: Any) -> ToolSpec:
        """A spec from an OpenAI tool definition (``{"type": "function", "function": {...}}`` or the
        Responses API's flat ``{"type": "function", "name": ...}``)."""
        from giskard_nb.core.tool_adapters import spec_from_openai

        return spec_from_openai(tool, **fields)

    @classmethod
    def from_anthropic(cls, tool: Any, **fields: Any) -> ToolSpec:
        """A spec from an Anthropic tool definition (``{"name", "description", "input_schema"}``)."""
        return cls.from_openai({"type": "function", "function": _anthropic(tool)}, **fields)

    @classmethod
    def from_mcp(cls, tool: Any, *, server: str | None = None, **fields: Any) -> ToolSpec:
        """A spec from an MCP tool (an ``mcp.types.Tool`` or its dict: ``name``, ``description``,
        ``inputSchema``; ``annotations.readOnlyHint``/``destructiveHint`` set the side effect)."""
        from giskard_nb.core.tool_adapters import spec_from_mcp

        return spec_from_mcp(tool, server=server, **fields)


def _anthropic(tool: Any) -> dict[str, Any]:
    data = tool if isinstance(tool, dict) else to_safe_data(tool)
    if not isinstance(data, dict):
        return {"name": str(tool)}
    return {
        "name": data.get("name", ""),
        "description": data.get("description") or "",
        "parameters": data.get("input_schema") or {},
    }
