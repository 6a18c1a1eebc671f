"""What a model call takes and returns: chat messages in, a ``Completion`` out; and secret-name hygiene.

``normalize_messages`` accepts a prompt string or a list of ``{"role", "content"}`` messages.
``Completion`` is the reply: ``text`` (clean: the parsed model as JSON, or the stripped reply), ``raw_text``
(as the model sent it), ``parsed`` (an ``output_type`` instance), ``usage`` (what this call consumed: zero
when it came from the cache or a replay), ``cached``/``source``, ``cost_known`` (False when litellm has no
price for the model), ``repaired`` (a repair request was needed).

``SECRET_NAME`` decides which parameter or header names are secrets (never dumped, masked in reprs); it and
``without_secrets`` live in ``giskard_nb.secrets`` (the one masking module) and are re-exported here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.secrets import SECRET_NAME, without_secrets

__all__ = ["SECRET_NAME", "Completion", "Messages", "normalize_messages", "without_secrets"]

Messages = str | list[dict[str, Any]]
_ROLES = ("system", "user", "assistant", "tool", "developer")


class Completion(BaseModel):
    """A model's reply. ``usage`` is what this call consumed: zero when it came from the cache or a replay."""

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    text: str
    raw_text: str
    parsed: Any = None
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False
    source: Literal["api", "cache", "replay"] = "api"
    model: str = ""
    cost_known: bool = True
    repaired: bool = False
    duration_ms: float = 0.0

    @property
    def choices(self) -> list[Any]:
        """The reply in the giskard-agents response shape: one ``Choice`` whose message is an
        ``AssistantMessage`` holding ``raw_text`` (``completion.choices[0].message.content``)."""
        from giskard_nb.llm.types import AssistantMessage, Choice

        return [Choice(message=AssistantMessage(content=self.raw_text))]

    def __repr__(self) -> str:
        return (
            f"<Completion {self.model} source={self.source} tokens={self.usage.total_tokens} "
            f"text={self.text[:80]!r}>"
        )


def normalize_messages(messages: Any) -> list[dict[str, Any]]:
    """A prompt string, or a list of ``{"role", "content"}`` dicts (or objects with those attributes)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if not isinstance(messages, list | tuple) or not messages:
        raise GiskardValidationError(
            "messages must be a prompt string or a non-empty list of {'role': ..., 'content': ...}"
        )
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            m = {"role": getattr(m, "role", None), "content": getattr(m, "content", None)}
        if m.get("role") not in _ROLES or not isinstance(m.get("content"), str | list):
            raise GiskardValidationError(
                f"message {i} must have a role in {_ROLES} and a string content, got {m!r:.200}"
            )
        out.append(dict(m))
    return out
