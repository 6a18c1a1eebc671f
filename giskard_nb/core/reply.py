"""What an agent returns: one reply model (``AgentOutput``) and one normaliser (``to_agent_output``).

Every reply enters through here — a local function under a Hub evaluation, a remote endpoint, a
playground chat, the agent under a scan — so the Hub and the scan read the same object:

- ``AgentOutput.response`` is the reply's ``ChatMessage`` (``role``, ``content``), ``metadata`` is free
  JSON-safe data (usage, sources, ``tool_calls``…). ``text`` is the content; ``tool_calls`` the tool
  calls the agent reported, as a list of dicts (read from ``metadata["tool_calls"]``).
- ``to_agent_output(value)`` accepts a string, a ``ChatMessage`` or ``AgentOutput``, a message dict
  ``{"role": "assistant", "content": ...}`` (OpenAI-style ``tool_calls`` kept; content parts joined),
  a dict ``{"response": <str | message>, "metadata": {...}}`` (``"message"`` is accepted for
  ``"response"``), a pydantic model or dataclass of those shapes, or an object with ``response`` (and
  ``metadata``) or ``content`` attributes. Tool calls found on the message and in the metadata are merged
  into ``metadata["tool_calls"]``. A reply in another shape that carries tool calls (``{"text": ...,
  "tool_calls": [...]}``, an OpenAI chat completion or Responses output, Anthropic content blocks:
  ``core.tool_adapters.split_reply``) is its text, with its calls in ``metadata["tool_calls"]``.
  Anything else raises ``AgentError`` naming what came back and the
  accepted shapes. A message without content is accepted only when it carries tool calls.
- ``AgentOutput(text=..., metadata=..., tool_calls=...)`` is shorthand for an assistant reply.

Sanitised once, here: the metadata through ``giskard_nb.core.sanitize.to_safe_data`` and the content made
valid Unicode and capped at ``max_string``, so any reply can be stored and read back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from giskard_nb.core.sanitize import limit_from_env, to_safe_data, valid_unicode
from giskard_nb.core.tool_adapters import split_reply
from giskard_nb.errors import AgentError

__all__ = [
    "ROLES",
    "AgentOutput",
    "ChatMessage",
    "last_user_content",
    "reply_text",
    "to_agent_output",
    "with_content",
]

#: The roles a chat message may have.
ROLES = ("system", "user", "assistant", "tool")

_SHAPES = (
    "return a string, a message dict {'role': 'assistant', 'content': ...}, "
    "{'response': ..., 'metadata': {...}} or an object with response (and metadata) attributes"
)


def _unset(value: Any) -> bool:
    return value is None


def with_content(message: Any) -> Any:
    """A message dict whose ``content`` is ``None`` but that calls tools, with ``""`` as content
    (how OpenAI writes an assistant turn that only calls tools); anything else as it is."""
    if isinstance(message, dict) and message.get("content") is None and message.get("tool_calls"):
        return {**message, "content": ""}
    return message


class _Value(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    def __str__(self) -> str:
        return repr(self)


class ChatMessage(_Value):
    """One chat message: ``role`` (system, user, assistant or tool) and text ``content``.

    A conversation with tool use in the OpenAI format keeps its structure: an assistant message's
    ``tool_calls`` (OpenAI chat tool calls, as data; its content is then often empty) and a ``tool``
    message's ``tool_call_id`` (the call it answers). Both are left out of dumps when unset.
    ``with_content(message)`` gives a message dict whose ``content`` is ``None`` (an assistant turn
    that only calls tools, as OpenAI writes it) an empty content."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[dict[str, Any]] | None = Field(default=None, exclude_if=_unset)
    tool_call_id: str | None = Field(default=None, exclude_if=_unset)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if value is not None or name not in ("tool_calls", "tool_call_id"):
                yield name, value

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _calls_as_data(cls, calls: Any) -> Any:
        if not calls:
            return None
        safe = to_safe_data(list(calls) if isinstance(calls, tuple) else calls)
        return (
            [c if isinstance(c, dict) else {"value": c} for c in safe]
            if isinstance(safe, list)
            else safe
        )

    @field_validator("content")
    @classmethod
    def _valid_text(cls, content: str) -> str:
        return valid_unicode(content)  # a lone surrogate would make the stored JSON unreadable


class AgentOutput(_Value):
    """An agent's reply: the ``response`` message and free ``metadata`` (tool calls, sources, usage...)."""

    response: ChatMessage
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "text" not in data or "response" in data:
            return data
        if set(data) - {"text", "tool_calls", "metadata"}:
            return data  # validation names the unknown fields
        calls = _calls(data.get("tool_calls"))
        return {
            "response": {"role": "assistant", "content": data["text"]},
            "metadata": _merged({}, _meta(data.get("metadata")), calls),
        }

    @field_validator("metadata", mode="before")
    @classmethod
    def _safe_metadata(cls, metadata: Any) -> Any:
        if metadata is None:
            return {}
        safe = to_safe_data(metadata)
        return safe if isinstance(safe, dict) else {"value": safe}

    @field_validator("response")
    @classmethod
    def _capped_reply(cls, response: ChatMessage) -> ChatMessage:
        capped = _capped(response.content)
        if capped is response.content:
            return response
        return response.model_copy(update={"content": capped})

    @property
    def content(self) -> str:
        """The reply's text (``response.content``)."""
        return self.response.content

    @property
    def text(self) -> str:
        """The reply's text (``response.content``), under the scan's name."""
        return self.response.content

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The tool calls the agent reported (``metadata["tool_calls"]``), as a list of dicts."""
        return _calls(self.metadata.get("tool_calls"))


def _capped(text: str) -> str:
    """A reply's text cut to the ``max_string`` cap (``GISKARD_NB_MAX_STRING``), as ``to_safe_data``
    cuts it (the same string when it is within the cap)."""
    return text if len(text) <= limit_from_env("max_string") else to_safe_data(text)


def reply_text(value: str) -> str:
    """The text an ``AgentOutput`` holds for a plain-string reply (``to_agent_output(value).content``:
    lone surrogates replaced, cut to the cap), without building the models."""
    return _capped(valid_unicode(value))


def to_agent_output(value: Any, *, agent_name: str = "the agent") -> AgentOutput:
    """Turn whatever an agent returned into an ``AgentOutput``; raise ``AgentError`` if it cannot.

    ``agent_name`` names the agent in the error (``"local agent 'bot'"``)."""
    if isinstance(value, AgentOutput):
        return value
    if isinstance(value, str):
        return AgentOutput(response=ChatMessage(role="assistant", content=value))
    if isinstance(value, ChatMessage):
        return AgentOutput(response=value)
    data = _fields(value)
    if data is None:
        raise AgentError(
            f"{agent_name} returned {type(value).__name__} ({_snippet(value)}): {_SHAPES}"
        )
    metadata = _meta(data.get("metadata"))
    if "response" in data or "message" in data:
        inner = data["response"] if "response" in data else data["message"]
        message, inner_metadata = _message(inner, agent_name)
        calls = [*_calls(message.get("tool_calls")), *_calls(data.get("tool_calls"))]
        return _build(message, _merged(inner_metadata, metadata, calls), agent_name)
    if "content" in data:
        calls = _calls(data.get("tool_calls"))
        if not calls and isinstance(data["content"], list):  # Anthropic blocks: tool_use
            blocks = split_reply({"content": data["content"]})
            calls = [] if blocks is None else [_call_data(c) for c in blocks[1]]
        return _build(data, _merged({}, metadata, calls), agent_name)
    split = split_reply(data)  # {"text", "tool_calls"}, a chat completion, a Responses output...
    if split is not None:
        own = split_reply({k: v for k, v in data.items() if k != "metadata"})
        calls = [] if own is None else own[1]  # else the metadata's calls: already in it
        return AgentOutput(
            response=ChatMessage(role="assistant", content=split[0]),
            metadata=_merged({}, metadata, [_call_data(c) for c in calls]),
        )
    keys = ", ".join(map(str, data)) or "(none)"
    raise AgentError(
        f"{agent_name} returned a dict with keys {keys}; expected 'content' (a chat message) or "
        "'response' (with optional 'metadata')"
    )


def _message(inner: Any, agent_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The message inside ``{"response": ...}`` and the metadata it brings (a nested reply's)."""
    if isinstance(inner, str):
        return {"content": inner}, {}
    if isinstance(inner, AgentOutput):
        return inner.response.model_dump(), inner.metadata
    if isinstance(inner, ChatMessage):
        return inner.model_dump(), {}
    data = _fields(inner)
    if data is None or "content" not in data:
        raise AgentError(
            f"{agent_name} returned a reply whose 'response' is {type(inner).__name__} "
            f"({_snippet(inner)}): the response is a string or a message {{'role', 'content'}}"
        )
    return data, {}


def _build(message: dict[str, Any], metadata: dict[str, Any], agent_name: str) -> AgentOutput:
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    if content is None and not metadata.get("tool_calls"):
        raise AgentError(f"{agent_name} returned a message without content (and no tool calls)")
    if content is not None and not isinstance(content, str):
        raise AgentError(
            f"{agent_name} returned message content of type {type(content).__name__} "
            f"({_snippet(content)}): the content is a string"
        )
    return AgentOutput(
        response=ChatMessage(role=_role(message.get("role")), content=content or ""),
        metadata=metadata,
    )


def _merged(
    inner: dict[str, Any], outer: dict[str, Any], calls: list[dict[str, Any]]
) -> dict[str, Any]:
    """Metadata of a reply (the outer wins) with every tool call in ``tool_calls``: the nested
    reply's, the message's, then the outer metadata's. Metadata with no other calls is kept as is."""
    merged = {**inner, **outer}
    before = [*_calls(inner.get("tool_calls")), *calls]
    if before:
        merged["tool_calls"] = [*before, *_calls(outer.get("tool_calls"))]
    return merged


def _meta(metadata: Any) -> dict[str, Any]:
    if metadata is None:
        return {}
    return metadata if isinstance(metadata, dict) else {"value": metadata}


def _role(role: Any) -> str:
    return role if isinstance(role, str) and role in ROLES else "assistant"


def _fields(obj: Any) -> dict[str, Any] | None:
    """A dict view of a reply: the dict itself, a model's dump, or its reply attributes."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            out = dump()
        except Exception:  # a broken model_dump: unreadable
            return None
        return out if isinstance(out, dict) else None
    if hasattr(obj, "response") or hasattr(obj, "content"):
        keys = ("response", "content", "metadata", "tool_calls", "role")
        return {k: getattr(obj, k) for k in keys if hasattr(obj, k)}
    return None


def _calls(value: Any) -> list[dict[str, Any]]:
    if not value:
        return []
    if not isinstance(value, list | tuple):
        value = [value]
    calls = []
    for call in value:
        d = call if isinstance(call, dict) else _fields(call)
        calls.append(d if d is not None else {"name": str(call)})
    return calls


def _call_data(call: Any) -> dict[str, Any]:
    return call.model_dump(mode="json", exclude_defaults=True)


def _snippet(value: Any) -> str:
    try:
        return repr(str(value)[:80])
    except Exception:  # a __str__ that raises
        return f"<unprintable {type(value).__name__}>"


def last_user_content(messages: Sequence[ChatMessage]) -> str | None:
    """The content of the last ``user`` message of a conversation (the question a test case asks),
    ``None`` when there is none."""
    return next((m.content for m in reversed(messages) if m.role == "user"), None)
