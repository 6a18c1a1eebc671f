"""Replies and chat messages stored by an earlier release read back as the core's one reply model."""

from __future__ import annotations

import shutil
from pathlib import Path

from giskard_nb.core.reply import AgentOutput, ChatMessage
from giskard_nb.hub import Hub

RELEASE_DB = Path(__file__).parent / "data" / "hub_layout2_release_93f59d6.sqlite"


def test_replies_written_before_the_one_model_read_back(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    shutil.copy(RELEASE_DB, path)
    hub = Hub(str(path))
    try:
        (chat,) = hub.playground_chats.list()
        assert chat.messages == [
            ChatMessage(role="user", content="hi"),
            ChatMessage(role="assistant", content="hello"),
        ]
        (evaluation,) = hub.evaluations.list()
        outputs = [r.agent_output for r in hub.evaluations.results.list(evaluation.id)]
        assert len(outputs) == 12 and all(isinstance(o, AgentOutput) for o in outputs)
        assert all(o.text and o.response.role == "assistant" for o in outputs)
        assert any(o.metadata.get("sources") for o in outputs)
    finally:
        hub.close()
