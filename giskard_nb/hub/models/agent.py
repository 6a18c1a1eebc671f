"""Agents (remote HTTP endpoints). Chat messages and what an agent returns (``ChatMessage``,
``AgentOutput``) are the core's reply model (``giskard_nb.core.reply``), re-exported here."""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, quote, unquote_plus, urlsplit, urlunsplit

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
from giskard_nb.hub.http_reply import DEFAULT_MAX_REPLY_BYTES
from giskard_nb.hub.models.base import HubRecord
from giskard_nb.hub.secret_store import resolve_secret_refs
from giskard_nb.secrets import MASK, is_secret_param, mask_url, split_url_credentials

__all__ = ["ROLES", "Agent", "AgentOutput", "ChatMessage"]


class Agent(HubRecord):
    """A remote agent: an HTTP endpoint the Hub POSTs ``{"messages": [...]}`` to.

    ``headers`` are secrets (masked in every repr, dump, export and audit entry; kept in the Hub's
    secrets file, not its database); a value may be an environment reference such as
    ``"Bearer ${MY_TOKEN}"``, resolved at call time. Credentials in the URL (``https://user:pw@host``)
    are taken out of it into an ``Authorization: Basic`` header; given together with an
    ``Authorization`` header they are refused (the two would compete: httpx would silently replace
    the header with the URL's credentials). Credentials in the query string (``?api_key=``, ``token=``,
    ``key=``, ``sig=``...: ``giskard_nb.secrets.is_secret_param``) are secrets too: their values move to
    ``url_secrets`` (kept in the secrets file) and the URL keeps ``?api_key=***`` in their place; they
    are put back only in the request sent (``call_url``). ``timeout`` is in seconds, a deadline for each
    whole attempt; ``max_retries`` retries connection errors, timeouts, 408, 429 and 5xx replies;
    ``max_reply_bytes`` caps a reply (on the wire and decompressed, default 10 MB).
    """

    project_id: str
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    url: str
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    supported_languages: list[str] = Field(default_factory=lambda: ["en"])
    timeout: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    max_reply_bytes: int = Field(default=DEFAULT_MAX_REPLY_BYTES, ge=1_000, le=2_000_000_000)
    url_secrets: dict[str, SecretStr] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _url_credentials(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("url"), str):
            return data
        data = _query_secrets(data)
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

    @field_serializer("headers", "url_secrets")
    def _mask_headers(self, headers: dict[str, SecretStr], info: SerializationInfo) -> dict:
        if isinstance(info.context, dict) and info.context.get("reveal_secrets"):
            return {k: v.get_secret_value() for k, v in headers.items()}
        return dict.fromkeys(headers, MASK)

    def secret_headers(self) -> dict[str, str]:
        """The header values in clear text, read from the Hub's secrets file (``${VAR}`` environment
        references not yet resolved)."""
        return {
            k: resolve_secret_refs(
                v.get_secret_value(), what=f"header {k!r} of agent {self.name!r}"
            )
            for k, v in self.headers.items()
        }

    def call_url(self) -> str:
        """The URL with its query-string credentials put back (resolved: for a request only)."""
        from giskard_nb.hub.secrets import resolve_refs

        if not self.url_secrets:
            return self.url
        parts = urlsplit(self.url)
        pairs = []
        for pair in parts.query.split("&"):
            name, eq, value = pair.partition("=")
            if eq and value == MASK and name in self.url_secrets:
                what = f"query parameter {name!r} of agent {self.name!r}"
                value = resolve_refs(self.url_secrets[name].get_secret_value(), what=what)
                pair = f"{name}={quote(value, safe=_QUERY_SAFE)}"
            pairs.append(pair)
        return _with_query(parts, pairs)

    def named_secrets(self) -> dict[str, list[str]]:
        """Each header and query-string credential: its name and its values (as stored and resolved),
        for ``giskard_nb.secrets.redact_secrets``."""
        from giskard_nb.hub.secrets import resolve_quietly

        named: dict[str, list[str]] = {}
        for name, secret in [*self.headers.items(), *self.url_secrets.items()]:
            value = resolve_secret_refs(secret.get_secret_value(), strict=False)
            named[name] = [value, resolve_quietly(value), unquote_plus(resolve_quietly(value))]
        return named

    def __repr__(self) -> str:
        return f"<Agent {self.name!r} {mask_url(self.url)} id={self.id}>"


_QUERY_SAFE = "%+-._~!$'()*,;:@/?"


def _query_secrets(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the URL's query-string credentials moved to ``url_secrets`` (``***`` left in the
    URL); a ``***`` already there keeps the value ``url_secrets`` holds for it."""
    url = data["url"].strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return data  # the URL validator says what is wrong
    known = dict(data.get("url_secrets") or {})
    if not parts.query and not known:
        return data
    moved: dict[str, Any] = {}
    pairs = []
    for pair in parts.query.split("&"):
        name, eq, value = pair.partition("=")
        if eq and value and is_secret_param(unquote_plus(name)):
            if value in (MASK, quote(MASK, safe="")):
                if name not in known:
                    raise GiskardValidationError(
                        f"the agent URL's query parameter {name!r} is {MASK!r}, the mask shown in "
                        "dumps and exports: give the value itself, or an environment reference such "
                        "as '${MY_API_KEY}'"
                    )
                value = known[name]
            if name in moved:
                raise GiskardValidationError(
                    f"the agent URL gives the query parameter {name!r} twice: give it once"
                )
            moved[name] = value
            pair = f"{name}={MASK}"
        pairs.append(pair)
    return {**data, "url": _with_query(parts, pairs), "url_secrets": moved}


def _with_query(parts: SplitResult, pairs: list[str]) -> str:
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "&".join(pairs), parts.fragment))
