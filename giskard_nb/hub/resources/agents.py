"""``hub.agents``: remote agents (HTTP endpoints) of a project; calling them and testing the connection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from giskard_nb.core.sync import sync_twin
from giskard_nb.hub import schema
from giskard_nb.hub.http_reply import DEFAULT_MAX_REPLY_BYTES
from giskard_nb.hub.models.agent import Agent, AgentOutput
from giskard_nb.hub.models.base import build
from giskard_nb.hub.resources.base import Resource

__all__ = ["AgentsResource"]


class AgentsResource(Resource[Agent]):
    """Register, read, update, delete and list remote agents; ``call`` and ``test_connection`` them."""

    entity_type = "agent"
    model = Agent
    table = schema.agents
    columns = ("project_id", "name")
    secret_fields = ("headers", "url_secrets")

    def create(
        self,
        project_id: str,
        *,
        name: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        supported_languages: Sequence[str] = ("en",),
        description: str = "",
        timeout: float = 30.0,
        max_retries: int = 2,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> Agent:
        """Register an agent the Hub will POST ``{"messages": [...]}`` to. ``headers`` values are secrets
        (kept in the Hub's secrets file) and may reference environment variables (``"Bearer ${MY_TOKEN}"``).
        Credentials in the URL (``https://user:pw@host``) become an ``Authorization: Basic`` header (an
        error if an Authorization header is given too); query-string credentials (``?api_key=...``)
        move to the secrets file too (the URL keeps ``?api_key=***``). A reply over
        ``max_reply_bytes`` (on the wire or decompressed) is an error, not retried."""
        self._store.resources.projects.retrieve(project_id)
        agent = build(
            Agent,
            {
                "project_id": project_id,
                "name": name,
                "url": url,
                "headers": dict(headers or {}),
                "supported_languages": list(supported_languages),
                "description": description,
                "timeout": timeout,
                "max_retries": max_retries,
                "max_reply_bytes": max_reply_bytes,
            },
            "agent",
        )
        return self._create(agent)

    def update(
        self,
        agent_id: str,
        *,
        name: str | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        supported_languages: Sequence[str] | None = None,
        description: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_reply_bytes: int | None = None,
    ) -> Agent:
        """Change the given fields (``headers`` replaces all headers; in a new ``url``, a query-string
        credential given as ``***`` keeps the value stored for it)."""
        given = {
            "name": name,
            "url": url,
            "headers": dict(headers) if headers is not None else None,
            "supported_languages": list(supported_languages) if supported_languages else None,
            "description": description,
            "timeout": timeout,
            "max_retries": max_retries,
            "max_reply_bytes": max_reply_bytes,
        }
        return self._update(agent_id, {k: v for k, v in given.items() if v is not None})

    def list(self, *, project_id: str | None = None) -> list[Agent]:
        """All agents, or those of one project."""
        where = [self.table.c.project_id == project_id] if project_id else []
        return self._list(*where)

    async def acall(self, agent_id: str, messages: Sequence[Any]) -> AgentOutput:
        """Send a conversation to the agent and return its parsed reply (raises ``AgentError``)."""
        from giskard_nb.hub.agents import RemoteAgent

        async with RemoteAgent(self.retrieve(agent_id)) as agent:
            return await agent(messages)

    call = sync_twin(acall)

    async def atest_connection(
        self,
        agent_id: str | None = None,
        *,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> Any:
        """Send a one-message conversation to a registered agent (``agent_id``) or to ``url``; the
        ``ConnectionReport`` says whether a usable reply came back, how fast, or what went wrong."""
        from giskard_nb.hub.agents import test_connection

        if agent_id is not None:
            agent = self.retrieve(agent_id)
        else:
            agent = build(
                Agent,
                {
                    "project_id": "-",
                    "name": "connection test",
                    "url": url or "",
                    "headers": dict(headers or {}),
                    "timeout": timeout,
                    "max_retries": 0,
                },
                "agent",
            )
        return await test_connection(agent)

    test_connection = sync_twin(atest_connection)
