"""hub.playground_chats: store conversations, talk to an agent, turn a chat into a test case."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub


def test_chat_with_an_agent_and_turn_it_into_a_test_case(mem_hub: Hub, setup, agent_server) -> None:
    project, dataset = setup()
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"))
    chat = mem_hub.playground_chats.create(project.id, agent_id=agent.id)
    chat = mem_hub.playground_chats.send(chat.id, "What are your opening hours?")
    assert [m.role for m in chat.messages] == ["user", "assistant"]
    assert chat.messages[1].content == "We are open Monday to Friday, 9am to 6pm."
    assert chat.title == "What are your opening hours?" and chat.user == "tester"
    chat = mem_hub.playground_chats.send(chat.id, "Say it again")
    assert agent_server.requests[-1]["body"]["messages"][0]["content"] == (
        "What are your opening hours?"
    )  # the agent received the whole conversation
    assert len(chat.messages) == 4

    case = mem_hub.playground_chats.to_test_case(
        chat.id,
        dataset.id,
        checks=[{"identifier": "string_match", "params": {"keyword": "Monday"}}],
        tags=["from-playground"],
    )
    assert [m.role for m in case.messages] == ["user", "assistant", "user"]
    assert case.demo_output.content.startswith("As I said")
    assert case.metadata["source"] == {"kind": "playground_chat", "chat_id": chat.id}
    first_turn = mem_hub.playground_chats.to_test_case(chat.id, dataset.id, upto=2)
    assert [m.role for m in first_turn.messages] == ["user"] and first_turn.demo_output
    evaluation = mem_hub.evaluations.create(
        project.id, agent.id, dataset.id, tags=["from-playground"], progress=False
    )
    assert evaluation.counts["pass"] == 1


def test_stored_chats_list_frame_and_errors(mem_hub: Hub, setup) -> None:
    project, dataset = setup()
    hand = mem_hub.playground_chats.create(
        project.id,
        messages=[
            {"role": "user", "content": "<img src=x onerror=alert(1)> hi"},
            {"role": "assistant", "content": "hello"},
        ],
    )
    assert hand.agent_id is None and hand.title.startswith("<img")
    assert mem_hub.playground_chats.list(project.id) == [hand]
    assert mem_hub.playground_chats.list(project.id, agent_id="other") == []
    df = mem_hub.playground_chats.to_dataframe(project.id)
    assert df.loc[0, "n_messages"] == 2 and df.loc[0, "last_reply"] == "hello"
    with pytest.raises(GiskardValidationError, match="no agent"):
        mem_hub.playground_chats.send(hand.id, "hi")
    with pytest.raises(GiskardValidationError, match="role"):
        mem_hub.playground_chats.create(project.id, messages=[{"role": "robot", "content": "x"}])
    empty = mem_hub.playground_chats.create(project.id)
    with pytest.raises(GiskardValidationError, match="no user message"):
        mem_hub.playground_chats.to_test_case(empty.id, dataset.id)
    mem_hub.playground_chats.delete(hand.id)
    with pytest.raises(NotFoundError):
        mem_hub.playground_chats.retrieve(hand.id)
