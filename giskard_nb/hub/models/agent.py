"""Agents (remote HTTP endpoints). Chat messages and what an agent returns (``ChatMessage``,
``AgentOutput``) are the core's reply model (``giskard_nb.core.reply``), re-exported here."""

from __future__ import annotations

from typing import Any

from pydantic import (
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from giskard_nb.core.reply import ROLES, AgentOutput, ChatMessage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.base import HubRecord
from giskard_nb.secrets import MASK, mask_url, split_url_credentials

__all__ = ["ROLES", "Agent", "AgentOutput", "ChatMessage"]


class Agent(HubRecord):
    """A remote agent: an HTTP endpoint the Hub POSTs ``{"messages": [...]}`` to.

    ``headers`` are secrets (masked in every repr, dump, export and audit entry; kept in the Hub's
    secrets file, not its database); a value may be an environment reference such as
    ``"Bearer ${MY_TOKEN}"``, resolved at call time. Credentials in the URL (``https://user:pw@host``)
    are taken out of it into an ``Authorization: Basic`` header; given together with an
    ``Authorization`` header they are refused (the two would compete: httpx would silently replace
    the header with the URL's credentials). ``timeout`` is in
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

    @model_validator(mode="before")
    @classmethod
    def _url_credentials(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("url"), str):
            return data
        url, user, password = split_url_credentials(data["url"].strip())
        if user is None and password is None:
            return data
        headers = dict(data.get("headers") or {})
        if any(str(k).lower() == "authorization" for k in headers):
            raise GiskardValidationError(
                f"the agent URL {mask_url(data['url'])!r} carries credentials and an Authorization "
                "header is configured too: remove the credentials from the URL (keep the header), or "
                "drop the header"
            )
        import base64

        token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
        return {**data, "url": url, "headers": headers}

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
        """The header values in clear text, read from the Hub's secrets file (``${VAR}`` environment
        references not yet resolved)."""
        from giskard_nb.hub.secret_store import resolve_secret_refs

        return {
            k: resolve_secret_refs(
                v.get_secret_value(), what=f"header {k!r} of agent {self.name!r}"
            )
            for k, v in self.headers.items()
        }

    def __repr__(self) -> str:
        return f"<Agent {self.name!r} {mask_url(self.url)} id={self.id}>"
