"""Typed chat messages and completion responses: the giskard-agents spelling of a model call.

``ChatMessage`` (``role``, ``content``: text, a list of content parts or None, optional ``tool_calls``)
and its role subtypes ``SystemMessage``, ``UserMessage``, ``AssistantMessage``, ``ToolMessage``;
``CompletionResponse`` (``choices`` of ``Choice(message, finish_reason, index)``, optional ``usage``,
``model``, ``id``). A ``BaseGenerator`` (``giskard_nb.llm.base_generator``) receives typed messages and
returns a ``CompletionResponse``; the rest of giskard-nb passes OpenAI-style dicts, and
``to_dicts`` / ``from_dicts`` convert between the two.

These are data read from a model (or a test double): the text of a reply is ``response.text``, never
evaluated; a message of an unknown role is a ``GiskardValidationError`` naming the roles allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from giskard_nb.core.usage import Usage as CallUsage
from giskard_nb.errors import GiskardValidationError

__all__ = [
    "AssistantMessage",
    "ChatMessage",
    "Choice",
    "CompletionResponse",
    "GenerationParams",
    "SystemMessage",
    "ToolMessage",
    "Usage",
    "UserMessage",
    "from_dicts",
    "to_dicts",
]

Role = Literal["system", "user", "assistant", "tool", "developer"]
_ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool", "developer")


def content_text(content: Any) -> str:
    """The text of a message content: the string itself, the ``text`` of each text part joined by
    newlines for a list of parts, ``""`` for None."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


class ChatMessage(BaseModel):
    """One chat message. ``content`` is a string, a list of OpenAI-style content parts
    (``{"type": "text", "text": ...}``) or None (an assistant message carrying only tool calls)."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        """The message's text (text parts joined by newlines; ``""`` when there is none)."""
        return content_text(self.content)

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI-style dict giskard-nb passes internally (unset optional keys left out)."""
        return self.model_dump(exclude_none=True) | {"content": self.content}


class SystemMessage(ChatMessage):
    role: Literal["system"] = "system"


class UserMessage(ChatMessage):
    role: Literal["user"] = "user"


class AssistantMessage(ChatMessage):
    role: Literal["assistant"] = "assistant"


class ToolMessage(ChatMessage):
    role: Literal["tool"] = "tool"


_BY_ROLE: dict[str, type[ChatMessage]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolMessage,
}


class Usage(BaseModel):
    """Tokens one completion consumed, as a provider reports them."""

    model_config = ConfigDict(extra="ignore")

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    total_tokens: int = Field(default=0, ge=0)


class Choice(BaseModel):
    """One candidate reply of a completion."""

    message: ChatMessage
    finish_reason: str | None = "stop"
    index: int = 0


class CompletionResponse(BaseModel):
    """What a ``BaseGenerator._call_model`` returns: ``choices`` (the first one is the reply), and the
    optional ``usage``, ``model`` and ``id`` the provider reported."""

    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None
    model: str | None = None
    id: str | None = None

    @property
    def message(self) -> ChatMessage:
        """The first choice's message (the reply)."""
        return self.choices[0].message

    @property
    def text(self) -> str:
        """The reply's text (``""`` for a reply carrying only tool calls)."""
        return self.message.text

    def call_usage(self) -> CallUsage:
        """This response as giskard-nb's usage record: its tokens, and one model call."""
        u = self.usage
        if u is None:
            return CallUsage(llm_calls=1)
        total = u.total_tokens or u.prompt_tokens + u.completion_tokens
        return CallUsage(
            prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens,
            total_tokens=total,
            llm_calls=1,
        )


def from_dicts(messages: Iterable[Mapping[str, Any] | ChatMessage]) -> list[ChatMessage]:
    """Typed messages (a role subtype each) from OpenAI-style dicts; ``ChatMessage``s pass through."""
    out: list[ChatMessage] = []
    for i, m in enumerate(messages):
        if isinstance(m, ChatMessage):
            out.append(m)
            continue
        role = m.get("role") if isinstance(m, Mapping) else None
        if role not in _ROLES:
            raise GiskardValidationError(
                f"message {i} has role {role!r}; a chat message's role is one of {_ROLES}"
            )
        known = {k: v for k, v in m.items() if k in ChatMessage.model_fields}
        try:
            out.append(_BY_ROLE.get(role, ChatMessage).model_validate(known))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]
            )
            raise GiskardValidationError(f"message {i} is not a chat message: {problems}") from None
    return out


def to_dicts(messages: Iterable[Mapping[str, Any] | ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI-style dicts from typed messages (dicts are copied as they are)."""
    return [m.to_dict() if isinstance(m, ChatMessage) else dict(m) for m in messages]


class GenerationParams(BaseModel):
    """The sampling parameters of a call. Only the fields set explicitly are sent (``sent()``), so
    a model's own default applies to the others; other keys (``top_p``, ``seed``...) are kept and sent.
    ``response_format`` is the pydantic class of a structured reply (set by giskard-nb for the call)."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    temperature: float = Field(default=1.0, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    response_format: Any = None
    tools: list[Any] = Field(default_factory=list)
    timeout: float | None = Field(default=None, gt=0)

    def sent(self) -> dict[str, Any]:
        """The parameters set explicitly (fields and extra keys), as a dict."""
        return {k: getattr(self, k) for k in self.model_fields_set}

    def generator_fields(self) -> dict[str, Any]:
        """The explicitly set keys as ``Generator(...)`` keywords: ``temperature``, ``max_tokens`` and
        ``timeout`` are its fields, the others (``tools``, ``top_p``...) go to its litellm ``params``."""
        sent = self.sent()
        if sent.get("timeout", 0) is None:
            del sent["timeout"]  # no timeout given: the Generator keeps its own
        if not sent.get("tools", True):
            del sent["tools"]
        return sent

    def merged(self, overrides: GenerationParams | Mapping[str, Any] | None) -> GenerationParams:
        """A copy with ``overrides`` on top (their explicitly set keys win; ``tools`` concatenate)."""
        over = (
            overrides.sent() if isinstance(overrides, GenerationParams) else dict(overrides or {})
        )
        base = self.sent()
        data = {**base, **over}
        if "tools" in base and "tools" in over:
            data["tools"] = [*base["tools"], *over["tools"]]
        return GenerationParams.model_validate(data)
