"""The one agent convention (core/agent_convention.py) through the core: what a function receives,
decided once from its signature, in Scenarios and Suites; the override; the mismatch error."""

from __future__ import annotations

import functools
import inspect
from typing import Optional

import pytest

from giskard_nb import (
    AgentError,
    AgentInputError,
    GiskardValidationError,
    Scenario,
    StringMatching,
    Suite,
    agent_input,
)
from giskard_nb.core import agent_convention
from giskard_nb.core.agent_convention import convention_of


def chat_agent(messages):
    """The README's agent: the conversation."""
    return f"{len(messages)}:{messages[-1]['content']}"


def text_agent(question: str) -> str:
    """The quickstart's agent: the last user message."""
    return question.lower()


def outputs(result):
    return [i.outputs for i in result.final_trace.interactions]


# -- the rule -------------------------------------------------------------------------------------------


def _optional(q: Optional[str]): ...  # noqa: UP045 - the spelling the rule must read
def _union(q: str | None): ...
def _listed(inputs: list[dict]): ...
def _sequence(query: list): ...
def _trace_first(trace, history): ...
def _with_default(history, style="short"): ...
def _no_inputs(trace): ...


class _Shouter:
    def __call__(self, text):
        return text.upper()


class _AsyncChat:
    async def __call__(self, conversation):
        return conversation[-1]["content"]


@pytest.mark.parametrize(
    ("agent", "mode"),
    [
        (chat_agent, "messages"),
        (text_agent, "text"),
        (_optional, "text"),
        (
            _union,
            "text",
        ),  # `str | None` as a string: this module has `from __future__ import annotations`
        (lambda inputs: inputs, "text"),
        (lambda inputs, trace: inputs, "text"),
        (lambda x: x, "messages"),
        (_listed, "messages"),  # an annotation wins over the name
        (_sequence, "messages"),
        (_trace_first, "messages"),
        (_with_default, "messages"),
        (_no_inputs, None),
        (_Shouter(), "text"),
        (_AsyncChat(), "messages"),
        (functools.partial(_with_default, style="long"), "messages"),
        (functools.partial(text_agent), "text"),
        (str.upper, None),  # a builtin: values pass unchanged
    ],
)
def test_what_a_function_receives_is_read_from_its_first_parameter(agent, mode):
    assert convention_of(agent).mode == mode


@pytest.mark.parametrize("name", ["inputs", "text", "question", "prompt", "message", "query"])
def test_every_text_name(name):
    namespace: dict = {}
    exec(f"def agent({name}): return {name}", namespace)
    assert convention_of(namespace["agent"]).mode == "text"


def test_an_annotation_that_does_not_evaluate_is_read_as_written():
    def agent(history: typing.Optional[str]):  # noqa: F821 - `typing` is not imported here
        return history

    def other(history: NoSuchType):  # noqa: F821 - never defined
        return history

    assert convention_of(agent).mode == "text"  # the annotation's text says str
    assert convention_of(other).mode == "messages"  # neither str nor a text name


def test_decided_once_per_agent(monkeypatch):
    seen = []
    real = inspect.signature

    def counting(fn, *args, **kwargs):
        if fn is counted and kwargs.get(
            "eval_str"
        ):  # the convention's reading (not the injector's)
            seen.append(fn)
        return real(fn, *args, **kwargs)

    def counted(messages):
        return messages[-1]["content"]

    monkeypatch.setattr(agent_convention.inspect, "signature", counting)
    suite = Suite("s", scenarios=[Scenario(f"s{i}").interact(f"q{i}") for i in range(5)])
    result = suite.run_sync(counted)
    assert [r.final_trace.last.outputs for r in result.results] == [f"q{i}" for i in range(5)]
    assert len(seen) == 1


# -- through scenarios and suites -----------------------------------------------------------------------


def test_a_string_input_reaches_each_convention():
    scenario = Scenario("two turns").interact("Hi").interact("REFUND?")
    assert outputs(scenario.run_sync(chat_agent)) == ["1:Hi", "3:REFUND?"]
    assert outputs(scenario.run_sync(text_agent)) == ["hi", "refund?"]
    seen = []

    def recording(messages):
        seen.append(messages)
        return "ok"

    scenario.run_sync(recording)
    assert seen[1] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "REFUND?"},
    ]
    # the trace records what the scenario sent, not the conversation built from it
    assert [i.inputs for i in scenario.run_sync(chat_agent).final_trace.interactions] == [
        "Hi",
        "REFUND?",
    ]


def test_a_conversation_input_reaches_each_convention():
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Open on SUNDAY?"},
        {"role": "assistant", "content": "No."},
        {"role": "user", "content": "And MONDAY?"},
    ]
    scenario = Scenario("conv").interact(conversation)
    assert outputs(scenario.run_sync(chat_agent)) == ["4:And MONDAY?"]
    assert outputs(scenario.run_sync(text_agent)) == ["and monday?"]
    # earlier conversations are spread into the history without repeating their turns
    scenario.interact("and tuesday?")
    assert outputs(scenario.run_sync(chat_agent))[1] == "6:and tuesday?"


def test_other_inputs_pass_unchanged():
    def agent(inputs):
        return f"Paris is the capital of {inputs['country']}."

    def positional(x):
        return x * 2

    assert outputs(Scenario("d").interact({"country": "France"}, agent).run_sync()) == [
        "Paris is the capital of France."
    ]
    assert outputs(Scenario("n").interact(21, positional).run_sync()) == [42]


def test_readme_and_quickstart_agents_in_one_suite():
    suite = Suite(
        "both",
        scenarios=[
            Scenario("text")
            .interact("Can I get a REFUND?")
            .check(StringMatching(keyword="refund")),
            Scenario("messages")
            .interact([{"role": "user", "content": "Can I get a REFUND?"}])
            .check(StringMatching(keyword="refund")),
        ],
    )
    suite.run_sync(text_agent).assert_passed()

    def readme_agent(messages):
        return "refund in 30 days" if "refund" in messages[-1]["content"].lower() else "?"

    suite.run_sync(readme_agent).assert_passed()


async def test_async_callable_objects_partials_and_the_trace_form():
    async def async_text(prompt: str):
        return prompt[::-1]

    def with_trace(inputs, trace):
        return f"{inputs}#{len(trace.interactions)}"

    def reversed_order(trace, messages):
        return f"{len(messages)}#{len(trace.interactions)}"

    def styled(messages, style):
        return f"{style}:{messages[-1]['content']}"

    scenario = Scenario("s").interact("abc").interact("de")
    assert outputs(await scenario.run(async_text)) == ["cba", "ed"]
    assert outputs(await scenario.run(_AsyncChat())) == ["abc", "de"]
    assert outputs(await scenario.run(_Shouter())) == ["ABC", "DE"]
    assert outputs(await scenario.run(with_trace)) == ["abc#0", "de#1"]
    assert outputs(await scenario.run(reversed_order)) == ["1#0", "3#1"]
    assert outputs(await scenario.run(functools.partial(styled, style="x"))) == ["x:abc", "x:de"]


def test_the_override():
    @agent_input("text")
    def history_as_text(history):
        return history.upper()

    @agent_input("messages")
    def query_as_messages(query):
        return len(query)

    class Bot:
        def answer(self, history):
            return history.upper()

    bound = agent_input("text", Bot().answer)  # a bound method takes no attribute: wrapped
    assert convention_of(bound).mode == "text"
    scenario = Scenario("s").interact("hi").interact("there")
    assert outputs(scenario.run_sync(history_as_text)) == ["HI", "THERE"]
    assert outputs(scenario.run_sync(query_as_messages)) == [1, 3]
    assert outputs(scenario.run_sync(bound)) == ["HI", "THERE"]
    with pytest.raises(GiskardValidationError, match='"messages".*"text"'):
        agent_input("conversation")
    with pytest.raises(GiskardValidationError, match="callable"):
        agent_input("text", "not a function")


# -- a mismatch is named ---------------------------------------------------------------------------------


def test_a_messages_agent_given_a_string_shape_gets_a_clear_error():
    def quickstart_agent(inputs):  # named like text, written for the conversation
        return inputs[-1]["content"]

    result = Scenario("s").interact("hello").run_sync(quickstart_agent)
    error = result.steps[0].error
    assert error.exception_type == "AgentInputError" and error.phase == "target"
    message = error.message
    assert (
        "agent 'test_a_messages_agent_given_a_string_shape_gets_a_clear_error.<locals>." in message
    )
    assert "received the last user message as a string" in message
    assert "its first parameter is named 'inputs'" in message
    assert "string indices must be integers" in message  # the agent's own words
    assert "an agent receives the conversation" in message  # the convention
    assert "`messages`" in message and '@agent_input("messages")' in message  # the two switches
    assert "Agents: what your function receives" in message
    with pytest.raises(AgentInputError) as raised:
        Scenario("s").interact("hello").run_sync(quickstart_agent, return_exception=False)
    assert isinstance(raised.value, AgentError)
    assert isinstance(raised.value.__cause__, TypeError)


def test_a_text_agent_given_the_conversation_gets_a_clear_error():
    def lowering(history):  # not named like text, written for a string
        return "refund" in history.lower()

    with pytest.raises(AgentInputError) as raised:
        Scenario("s").interact("refund?").run_sync(lowering, return_exception=False)
    message = str(raised.value)
    assert "received the conversation, a list of {'role', 'content'} messages" in message
    assert "its first parameter 'history' is not annotated `str` nor named like text" in message
    assert "'list' object has no attribute 'lower'" in message
    assert "annotate its first parameter `str`" in message and '@agent_input("text")' in message
    assert isinstance(raised.value.__cause__, AttributeError)

    def reading_a_mapping(question: str):  # annotated str, reads a dict
        return question.get("content")

    error = Scenario("s").interact("hi").run_sync(reading_a_mapping).steps[0].error
    assert error.exception_type == "AgentInputError"
    assert "its first parameter 'question' is annotated `str`" in error.message


@pytest.mark.parametrize(
    "failing",
    [
        lambda messages: {}["missing key"],  # a KeyError of its own
        lambda messages: [][3],  # an IndexError of its own
        lambda messages: int("not a number"),  # a ValueError
        lambda messages: None + 1,  # a TypeError that says nothing of the shape
        lambda messages: messages[-1].content,  # wants message objects: no str method is missing
        lambda messages: messages.content,
    ],
)
def test_unrelated_errors_stay_the_agents_own(failing):
    result = Scenario("s").interact("hi").run_sync(failing)
    assert result.errored
    assert result.steps[0].error.exception_type != "AgentInputError"
    assert "convention" not in result.steps[0].error.message
