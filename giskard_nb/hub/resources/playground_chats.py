"""``hub.playground_chats``: conversations held with an agent, kept for analysis or as test cases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema_more
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.dataset import HubTestCase
from giskard_nb.hub.models.workflow import PlaygroundChat
from giskard_nb.hub.resources.base import Resource

__all__ = ["PlaygroundChatsResource"]


class PlaygroundChatsResource(Resource[PlaygroundChat]):
    """Create, read, list and delete chats; ``send`` a message to the chat's agent; turn a chat into a
    test case with ``to_test_case``."""

    entity_type = "playground_chat"
    model = PlaygroundChat
    table = schema_more.playground_chats
    columns = ("project_id", "agent_id")

    def create(
        self,
        project_id: str,
        *,
        agent_id: str | None = None,
        messages: Sequence[Any] = (),
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> PlaygroundChat:
        """Store a conversation (``{role, content}`` messages) held with ``agent_id`` (optional)."""
        self._store.resources.projects.retrieve(project_id)
        if agent_id is not None:
            agent = self._store.resources.agents.retrieve(agent_id)
            if agent.project_id != project_id:
                raise GiskardValidationError(
                    f"agent {agent.name!r} belongs to project {agent.project_id}, not {project_id}"
                )
        chat = build(
            PlaygroundChat,
            {
                "project_id": project_id,
                "agent_id": agent_id,
                "messages": list(messages),
                "title": title if title is not None else _title(messages),
                "user": self._store.actor,
                "metadata": dict(metadata or {}),
            },
            "playground chat",
        )
        return self._create(chat)

    async def asend(self, chat_id: str, content: str) -> PlaygroundChat:
        """Add a user message, call the chat's agent with the whole conversation, store its reply."""
        chat = self.retrieve(chat_id)
        if chat.agent_id is None:
            raise GiskardValidationError(
                "this chat has no agent: create it with agent_id= to talk to an agent"
            )
        if not content.strip():
            raise GiskardValidationError("the message is empty")
        messages = [*chat.messages, {"role": "user", "content": content}]
        conversation = [m if isinstance(m, dict) else m.model_dump() for m in messages]
        output = await self._store.resources.agents.acall(chat.agent_id, conversation)
        updated = [*conversation, {"role": "assistant", "content": output.content}]
        title = chat.title or _title(updated)
        return self._update(chat_id, {"messages": updated, "title": title})

    send = sync_twin(asend)

    def list(
        self,
        project_id: str | None = None,
        *,
        agent_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[PlaygroundChat]:
        """Chats, oldest first, of a project and/or an agent."""
        where = []
        if project_id is not None:
            where.append(self.table.c.project_id == project_id)
        if agent_id is not None:
            where.append(self.table.c.agent_id == agent_id)
        return self._list(*where, limit=limit, offset=offset)

    def to_test_case(
        self,
        chat_id: str,
        dataset_id: str,
        *,
        upto: int | None = None,
        checks: Sequence[Any] = (),
        tags: Sequence[str] = (),
        keep_reply: bool = True,
        name: str | None = None,
    ) -> HubTestCase:
        """A test case from the chat: the messages up to the last user message (or the first ``upto``
        messages), the agent's reply to it as ``demo_output`` (``keep_reply``), and ``checks``."""
        chat = self.retrieve(chat_id)
        dataset = self._store.resources.datasets.retrieve(dataset_id)
        if dataset.project_id != chat.project_id:
            raise GiskardValidationError(
                f"dataset {dataset.name!r} belongs to another project than the chat"
            )
        messages = [m.model_dump() for m in chat.messages[: upto if upto is not None else None]]
        last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=None)
        if last_user is None:
            raise GiskardValidationError("the chat has no user message to test")
        reply = messages[last_user + 1] if last_user + 1 < len(messages) else None
        return self._store.resources.test_cases.create(
            dataset_id,
            messages=messages[: last_user + 1],
            demo_output=reply["content"] if keep_reply and reply else None,
            checks=list(checks),
            tags=list(tags),
            metadata={"source": {"kind": "playground_chat", "chat_id": chat.id}},
            name=name or chat.title or None,
        )

    def to_dataframe(self, project_id: str | None = None, **filters: Any) -> Any:
        from giskard_nb.frames.hub_records import chats_frame

        return chats_frame(self.list(project_id, **filters))


def _title(messages: Sequence[Any]) -> str:
    for m in messages:
        role = m.get("role") if isinstance(m, dict) else getattr(m, "role", None)
        content = m.get("content") if isinstance(m, dict) else getattr(m, "content", "")
        if role == "user" and isinstance(content, str) and content.strip():
            text = " ".join(content.split())
            return text if len(text) <= 60 else text[:59] + "…"
    return ""
