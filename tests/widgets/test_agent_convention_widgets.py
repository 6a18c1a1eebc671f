"""Playground and ScenarioBuilder follow the one agent convention: a function of the conversation gets
the conversation so far, a function of text gets the message, and the wrong shape is named."""

from __future__ import annotations

import pytest

from giskard_nb import AgentInputError, Playground, ScenarioBuilder, StringMatching


def readme_agent(messages):
    return f"{len(messages)} messages, last: {messages[-1]['content']}"


def text_agent(question: str) -> str:
    return f"you asked {question}"


def test_playground_sends_each_shape():
    pg = Playground({"messages": readme_agent, "text": text_agent})
    assert pg.send("hi", agent="messages").wait(5) == "1 messages, last: hi"
    assert pg.send("and then?", agent="messages").wait(5) == "3 messages, last: and then?"
    assert pg.send("refund?", agent="text").wait(5) == "you asked refund?"
    assert [i.inputs for i in pg.trace.interactions] == ["hi", "and then?", "refund?"]
    assert "you asked refund?" in pg._w["chat"].value


def test_playground_names_the_wrong_shape():
    def misread(inputs):  # named like text, reads the conversation
        return inputs[-1]["content"]

    pg = Playground(misread)
    with pytest.raises(AgentInputError, match="received the last user message as a string"):
        pg.send("hi").wait(5)
    assert "AgentInputError" in pg._w["chat"].value and "agent_input" in pg._w["chat"].value
    assert pg.trace.interactions == []


def test_scenario_builder_runs_each_shape():
    builder = ScenarioBuilder(agents={"messages": readme_agent, "text": text_agent})
    builder.add_interaction("hello")
    builder.add_interaction("bye")
    builder.add_check("string_matching", keyword="last: bye")
    assert builder.run("messages").wait(10).passed
    builder.remove_last()
    builder.add_check(StringMatching(keyword="you asked bye"))
    result = builder.run("text").wait(10)
    assert result.passed, result
    assert [i.outputs for i in result.final_trace.interactions] == [
        "you asked hello",
        "you asked bye",
    ]


def test_scenario_builder_names_the_wrong_shape():
    def lowering(history):
        return history.lower()

    builder = ScenarioBuilder(agents=lowering)
    builder.add_interaction("HELLO")
    builder.add_check("string_matching", keyword="hello")
    result = builder.run().wait(10)
    assert result.errored and result.steps[0].error.exception_type == "AgentInputError"
    assert "'list' object has no attribute 'lower'" in result.steps[0].error.message
