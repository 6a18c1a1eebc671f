"""The one reply model and its normaliser: every accepted shape, tool calls merged, clear errors."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from giskard_nb.core.reply import AgentOutput, ChatMessage, to_agent_output
from giskard_nb.errors import AgentError

CALL = {"name": "search", "arguments": "{}"}


class Reply(BaseModel):
    content: str
    metadata: dict = {}


class Call(BaseModel):
    name: str


@pytest.mark.parametrize(
    "value",
    [
        "hi",
        {"role": "assistant", "content": "hi"},
        {"response": "hi"},
        {"message": {"role": "assistant", "content": "hi"}},
        {"response": {"content": [{"type": "text", "text": "h"}, {"type": "text", "text": "i"}]}},
        ChatMessage(role="assistant", content="hi"),
        AgentOutput(text="hi"),
        Reply(content="hi"),
        SimpleNamespace(response=SimpleNamespace(content="hi")),
        SimpleNamespace(content="hi", metadata=None),
    ],
)
def test_every_accepted_shape_gives_the_same_reply(value):
    out = to_agent_output(value)
    assert out == AgentOutput(response=ChatMessage(role="assistant", content="hi"))
    assert out.text == out.content == "hi" and out.tool_calls == []


def test_roles_are_kept_when_valid_and_metadata_when_given():
    out = to_agent_output({"response": {"role": "tool", "content": "x"}, "metadata": {"k": 1}})
    assert out.response.role == "tool" and out.metadata == {"k": 1}
    assert to_agent_output({"role": "bot", "content": "x"}).response.role == "assistant"
    assert to_agent_output({"content": "x", "metadata": 7}).metadata == {"value": 7}


def test_tool_calls_from_the_message_and_the_metadata_are_merged_in_order():
    other = {"name": "refund"}
    out = to_agent_output(
        {
            "response": {"content": None, "tool_calls": [CALL]},
            "tool_calls": Call(name="x"),
            "metadata": {"tool_calls": [other], "n": 1},
        }
    )
    assert out.content == ""
    assert out.tool_calls == [CALL, {"name": "x"}, other]
    assert out.metadata == {"tool_calls": out.tool_calls, "n": 1}
    # metadata with calls of its own only is stored as given; the property reads it as dicts
    raw = to_agent_output({"content": "ok", "metadata": {"tool_calls": "search"}})
    assert raw.metadata == {"tool_calls": "search"} and raw.tool_calls == [{"name": "search"}]


def test_a_nested_reply_brings_its_metadata_and_the_outer_metadata_wins():
    inner = AgentOutput(text="a", metadata={"k": 1, "j": 1}, tool_calls=[CALL])
    out = to_agent_output({"response": inner, "metadata": {"k": 2}})
    assert out.text == "a" and out.metadata == {"k": 2, "j": 1, "tool_calls": [CALL]}


def test_the_text_shorthand_builds_an_assistant_reply():
    reply = AgentOutput(text="ok", tool_calls=[CALL], metadata={"m": 1})
    assert reply.response == ChatMessage(role="assistant", content="ok")
    assert reply.tool_calls == [CALL] and reply.metadata == {"m": 1, "tool_calls": [CALL]}
    with pytest.raises(ValueError, match="extra"):
        AgentOutput(text="ok", colour="red")


def test_a_reply_dumps_to_the_stored_shape_and_reads_back():
    reply = to_agent_output({"role": "assistant", "content": "hé", "tool_calls": [CALL]})
    dumped = json.loads(reply.model_dump_json())
    assert dumped == {
        "response": {"role": "assistant", "content": "hé"},
        "metadata": {"tool_calls": [CALL]},
    }
    assert AgentOutput.model_validate(dumped) == reply == to_agent_output(dumped)


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (42, "returned int ('42'): return a string"),
        (None, "returned NoneType"),
        ({"answer": "x"}, "dict with keys answer; expected 'content'"),
        ({"response": None}, "whose 'response' is NoneType"),
        ({"response": {"text": "x"}}, "whose 'response' is dict"),
        ({"content": None}, "without content (and no tool calls)"),
        ({"content": 5}, "content of type int"),
    ],
)
def test_unreadable_replies_are_agent_errors_naming_what_came_back(value, needle):
    with pytest.raises(AgentError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        to_agent_output(value, agent_name="local agent 'bot'")
    with pytest.raises(AgentError, match="^local agent 'bot'"):
        to_agent_output(value, agent_name="local agent 'bot'")
