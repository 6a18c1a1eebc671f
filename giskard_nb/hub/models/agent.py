"""Agents (remote HTTP endpoints), chat messages and what an agent returns."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    field_validator,
)

from giskard_nb.core.sanitize import limits_from_env, to_safe_data, valid_unicode
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.hub.secrets import MASK, mask_url

__all__ = ["ROLES", "Agent", "AgentOutput", "ChatMessage"]

#: The roles a chat message may have.
ROLES = ("system", "user", "assistant", "tool")


class ChatMessage(HubModel):
    """One chat message: ``role`` (system, user, assistant or tool) and text ``content``."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str

    @field_validator("content")
    @classmethod
    def _valid_text(cls, content: str) -> str:
        return valid_unicode(content)  # a lone surrogate would make the stored JSON unreadable


class AgentOutput(HubModel):
    """An agent's reply: the ``response`` message and free ``metadata`` (tool calls, sources, usage...)."""

    response: ChatMessage
    metadata: dict[str, Any] = Field(default_factory=dict)

    # Where every reply enters the Hub (local, remote and playground agents): JSON-safe, capped
    # (giskard_nb.core.sanitize), so that any reply can be stored and read back.
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
        if len(response.content) <= limits_from_env().max_string:
            return response
        return response.model_copy(update={"content": to_safe_data(response.content)})

    @property
    def content(self) -> str:
        return self.response.content


class Agent(HubRecord):
    """A remote agent: an HTTP endpoint the Hub POSTs ``{"messages": [...]}`` to.

    ``headers`` are secrets (masked in every repr, dump, export and audit entry); a value may be an
    environment reference such as ``"Bearer ${MY_TOKEN}"``, resolved at call time. ``timeout`` is in
    seconds; ``max_retries`` retries connection errors, timeouts, 408, 429 and 5xx replies.
    """

    project_id: str
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    url: str
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    supported_languages: list[str] = Field(default_factory=lambda: ["en"])
    timeout: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        url = url.strip()
        if not url.startswith(("http://", "https://")):
            raise GiskardValidationError(
                f"an agent URL starts with http:// or https://, got {mask_url(url)!r}"
            )
        return url

    @field_serializer("headers")
    def _mask_headers(self, headers: dict[str, SecretStr], info: SerializationInfo) -> dict:
        if isinstance(info.context, dict) and info.context.get("reveal_secrets"):
            return {k: v.get_secret_value() for k, v in headers.items()}
        return dict.fromkeys(headers, MASK)

    def secret_headers(self) -> dict[str, str]:
        """The header values in clear text (as stored; ``${VAR}`` references not yet resolved)."""
        return {k: v.get_secret_value() for k, v in self.headers.items()}

    def __repr__(self) -> str:
        return f"<Agent {self.name!r} {mask_url(self.url)} id={self.id}>"
