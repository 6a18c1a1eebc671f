"""LLMGenerator: a model writes the inputs, through litellm (FakeLLMServer) and in process (FakeModel)."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from giskard_nb import (
    BaseLLMGenerator,
    InputGenerator,
    Interact,
    LLMGenerator,
    Scenario,
    StringMatching,
    Trace,
    UserSimulator,
    set_default_generator,
)
from giskard_nb.llm import track_usage
from giskard_nb.testing import FakeLLMServer, FakeModel, FakeRequest

GOAL = "Ask for a refund of order 1234; the goal is reached once a refund date is given."


@pytest.fixture(autouse=True)
def _clean_default():
    set_default_generator(None)
    yield
    set_default_generator(None)


def turn(message=None, goal_reached=False, schema_issue=None) -> dict:
    return {"goal_reached": goal_reached, "message": message, "schema_issue": schema_issue}


def refund_desk(inputs: str) -> str:
    return "Your refund will arrive on May 3." if "1234" in inputs else "Which order?"


def test_multi_turn_conversation_stops_when_the_goal_is_reached():
    def writer(request: FakeRequest) -> dict:
        if "refund will arrive" in request.prompt:
            return turn(goal_reached=True)
        if "Which order?" in request.prompt:
            return turn("It is order 1234.")
        return turn("I want a refund.")

    with FakeLLMServer(reply=writer) as server:
        set_default_generator(server.generator())
        with track_usage() as usage:
            result = (
                Scenario("refund")
                .interact(LLMGenerator(prompt=GOAL, max_steps=5), refund_desk)
                .check(StringMatching(keyword="May 3"))
                .run_sync()
            )
        prompts = [r.prompt for r in server.chat_requests]
    assert result.passed, result
    assert [i.inputs for i in result.final_trace.interactions] == [
        "I want a refund.",
        "It is order 1234.",
    ]
    assert len(prompts) == 3 and usage.usage.llm_calls == 3
    assert GOAL in prompts[0] and "Write the first input" in prompts[0]
    assert "User: I want a refund.\nAssistant: Which order?" in prompts[1]
    assert "turn 2 of at most 5" in prompts[1]


def test_max_steps_caps_the_conversation_and_zero_sends_nothing():
    with FakeLLMServer(reply=turn("again")) as server:
        set_default_generator(server.generator())
        capped = Scenario("cap").interact(LLMGenerator(prompt="Say again."), "ok").run_sync()
        none = (
            Scenario("zero")
            .interact(LLMGenerator(prompt="Say again.", max_steps=0), "ok")
            .interact("last", "ok")
            .run_sync()
        )
        calls = len(server.chat_requests)
    assert [i.inputs for i in capped.final_trace.interactions] == ["again"] * 3  # default 3
    assert [i.inputs for i in none.final_trace.interactions] == ["last"]
    assert calls == 3
    with pytest.raises(ValueError):
        LLMGenerator(prompt="x", max_steps=-1)


def test_an_empty_message_ends_the_conversation():
    replies = [turn("first"), turn("   ")]
    with FakeLLMServer(replies=replies) as server:
        result = Scenario("e").interact(
            LLMGenerator(prompt="Go.", generator=server.generator()), "ok"
        )
        result = result.run_sync()
    assert [i.inputs for i in result.final_trace.interactions] == ["first"]


@pytest.mark.parametrize(
    "junk",
    [
        "Sure! Here is the next message: hello",
        '{"goal_reached": "no", "message": "hello"}',
        '{"goal_reached": false, "message": "hi"} {"goal_reached": true}',
        '{"goal_reached": false, "message": "hi", "schema_issue": "cannot"}',
    ],
)
def test_junk_replies_end_in_an_input_generation_error_never_a_pass(junk):
    with FakeLLMServer(reply=junk) as server:
        result = (
            Scenario("junk")
            .interact(LLMGenerator(prompt="Go.", generator=server.generator()), "ok")
            .check(StringMatching(keyword="ok"))
            .run_sync()
        )
        calls = len(server.chat_requests)
    error = result.steps[0].error
    assert result.status.value == "error" and error.phase == "input_generation"
    assert "LLMGenerator got no usable input" in error.message
    assert "3 attempt(s)" in error.message and "even after one repair request" in error.message
    assert calls == 6  # (request + repair) x (1 + max_retries=2)
    assert result.final_trace.interactions == []


def test_a_schema_issue_is_retried_uncached_then_reported():
    issue = turn(schema_issue="the input has no text field")
    with FakeLLMServer(replies=[issue, turn("hello")]) as server:
        gen = server.generator(temperature=0)  # cached calls: the retry must not read the cache
        ok = Scenario("retry").interact(
            LLMGenerator(prompt="Go.", generator=gen, max_steps=1), "ok"
        )
        ok = ok.run_sync()
    assert [i.inputs for i in ok.final_trace.interactions] == ["hello"]
    with FakeLLMServer(reply=issue) as server:
        gen = server.generator()
        bad = Scenario("issue").interact(
            LLMGenerator(prompt="Go.", generator=gen, max_retries=1), "x"
        )
        bad = bad.run_sync()
        calls = len(server.chat_requests)
    assert calls == 2 and "schema issue: the input has no text field" in bad.steps[0].error.message


class Order(BaseModel):
    order_id: int
    question: str


def test_structured_inputs_follow_the_target_annotation():
    seen: list[Order] = []

    def desk(inputs: Order) -> str:
        seen.append(inputs)
        return f"order {inputs.order_id} noted"

    reply = turn({"order_id": 1234, "question": "Where is my refund?"})
    with FakeLLMServer(replies=[reply, turn(goal_reached=True)]) as server:
        set_default_generator(server.generator())
        result = (
            Scenario("typed")
            .interact(LLMGenerator(prompt=GOAL), desk)
            .check(StringMatching(keyword="order 1234 noted"))
            .run_sync()
        )
        request = server.chat_requests[0]
    assert result.passed and seen == [Order(order_id=1234, question="Where is my refund?")]
    assert '"order_id"' in request.prompt  # the input schema is in the prompt
    assert request.schema_name == "LLMGeneratorOutput_Order"


def test_a_literal_prompt_is_sent_as_written_and_a_template_is_rendered():
    literal = "Reply with {{ not a variable }} and {% raw %}"
    model = FakeModel(replies=[turn("a"), turn(goal_reached=True)])
    Scenario("lit").interact(LLMGenerator(prompt=literal, generator=model), "ok").run_sync()
    assert literal in model.calls[0][0]["content"]
    model = FakeModel(replies=[turn("a"), turn("b"), turn(goal_reached=True)])
    templated = LLMGenerator(
        prompt="Turn {{ turn }}/{{ max_steps }}. So far:\n{{ history }}",
        as_template=True,
        generator=model,
    )
    result = Scenario("tpl").interact(templated, lambda inputs: inputs.upper()).run_sync()
    assert [i.outputs for i in result.final_trace.interactions] == ["A", "B"]
    second = "\n".join(m["content"] for m in model.calls[1])
    assert "Turn 2/3. So far:\nUser: a\nAssistant: A" in second
    assert "<<<CONVERSATION>>>" not in second  # the template reads history: not repeated


def test_a_template_with_message_blocks_is_sent_as_written():
    prompt = "{% message system %}You test a bank bot.{% endmessage %}{% message user %}Go{% endmessage %}"
    model = FakeModel(replies=[turn("Hi bank"), turn(goal_reached=True)])
    gen = LLMGenerator(prompt=prompt, as_template=True, generator=model)
    Scenario("blocks").interact(gen, "ok").run_sync()
    assert [m["role"] for m in model.calls[0]] == ["system", "user"]
    assert model.calls[0][0]["content"].startswith("You test a bank bot.")


def test_prompt_path_files_and_clear_configuration_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "refund.j2").write_text("Ask for a refund (turn {{ turn }}).")
    (tmp_path / "direct.txt").write_text("Ask about shipping.")
    model = FakeModel(replies=[turn(goal_reached=True)], repeat_last=True)
    for path, expected in (("refund.j2", "Ask for a refund (turn 1)."), ("direct.txt", "shipping")):
        Scenario("file").interact(LLMGenerator(prompt_path=path, generator=model), "ok").run_sync()
        assert expected in model.calls[-1][0]["content"]
    with pytest.raises(ValueError, match="exactly one of prompt= .* or prompt_path="):
        LLMGenerator()
    with pytest.raises(ValueError, match="exactly one of"):
        LLMGenerator(prompt="a", prompt_path="direct.txt")
    with pytest.raises(ValueError, match="prompt_path 'missing.j2' is not a file"):
        LLMGenerator(prompt_path="missing.j2")
    with pytest.raises(ValueError, match="must not be empty"):
        LLMGenerator(prompt="  ")
    missing = Scenario("ns").interact(
        LLMGenerator(prompt_path="nowhere::x.j2", generator=model), "ok"
    )
    error = missing.run_sync().steps[0].error
    assert error.phase == "input_generation" and "'nowhere::x.j2' not found" in error.message


def test_without_a_model_the_step_is_an_error_with_the_remedy():
    result = Scenario("no model").interact(LLMGenerator(prompt="Go."), "hi").run_sync()
    error = result.steps[0].error
    assert error.phase == "input_generation" and "set_default_generator" in error.message


def test_round_trip_by_kind():
    gen = LLMGenerator(
        prompt="Go {{ turn }}",
        as_template=True,
        max_steps=4,
        max_retries=1,
        generator="openai/gpt-4o",
    )
    dumped = json.loads(gen.model_dump_json())
    assert dumped["kind"] == "llm_generator" and dumped["generator"]["kind"] == "litellm"
    restored = InputGenerator.model_validate(dumped)
    assert type(restored) is LLMGenerator and restored == gen
    spec = Interact.model_validate({"kind": "interact", "inputs": dumped, "outputs": "static"})
    assert isinstance(spec.inputs, LLMGenerator) and spec.inputs.max_steps == 4


def test_in_process_model_and_the_shared_base():
    model = FakeModel(replies=[turn("one"), turn("two"), turn(goal_reached=True)])
    result = Scenario("inproc").interact(LLMGenerator(prompt="Count.", generator=model), "ok")
    assert [i.inputs for i in result.run_sync().final_trace.interactions] == ["one", "two"]
    assert len(model.calls) == 3
    assert isinstance(UserSimulator(persona="helpful_user"), BaseLLMGenerator)
    with pytest.raises(TypeError):
        BaseLLMGenerator()


async def test_a_custom_subclass_of_the_base():
    @InputGenerator.register("test_llm_generator_echo_topic")
    class TopicAsker(BaseLLMGenerator):
        topic: str

        def get_prompt(self):
            return "Ask one question about {{ topic }} (turn {{ turn }})."

        async def get_inputs(self, trace: Trace):
            return {**await super().get_inputs(trace), "topic": self.topic}

    model = FakeModel(fn=lambda messages: turn(f"Q about {messages[-1]['content'][-9:]}"))
    asker = TopicAsker(topic="tides", max_steps=2, generator=model)
    result = await Scenario("sub").interact(asker, "ok").run()
    assert [i.inputs for i in result.final_trace.interactions] == [
        "Q about (turn 1).",
        "Q about (turn 2).",
    ]
    saved = TopicAsker(topic="tides", generator="openai/gpt-4o").model_dump()
    assert type(InputGenerator.model_validate(saved)) is TopicAsker
