"""UserSimulator: personas drive multi-turn conversations through the fake server."""

from __future__ import annotations

import json

import pytest

from giskard_nb import (
    InputGenerator,
    Interact,
    Scenario,
    StringMatching,
    UserSimulator,
    set_default_generator,
)
from giskard_nb.input_generators import PERSONAS
from giskard_nb.llm import track_usage
from giskard_nb.testing import FakeLLMServer, FakeRequest


@pytest.fixture(autouse=True)
def _clean_default():
    set_default_generator(None)
    yield
    set_default_generator(None)


def scripted_user(messages: list[str]):
    """A fake simulating model: says each message in turn, then that the goal is reached."""

    def reply(request: FakeRequest) -> dict:
        turn = request.prompt.count("User: ")
        if turn < len(messages):
            return {"goal_reached": False, "message": messages[turn]}
        return {"goal_reached": True, "message": None}

    return reply


def test_at_least_eight_predefined_personas():
    assert len(PERSONAS) >= 8
    for key in ("helpful_user", "frustrated_customer", "confused_user", "non_native_speaker"):
        assert key in PERSONAS and len(PERSONAS[key]) > 40


def test_persona_drives_a_three_turn_conversation():
    agent_turns: list[str] = []

    def agent(inputs: str) -> str:
        agent_turns.append(inputs)
        return f"Sorry to hear that ({len(agent_turns)})."

    lines = ["My order is late!", "That's not good enough.", "Fine, send it tomorrow then."]
    with FakeLLMServer(reply=scripted_user(lines)) as server:
        set_default_generator(server.generator())
        with track_usage() as usage:
            result = (
                Scenario("late order")
                .interact(
                    UserSimulator(
                        persona="frustrated_customer", context="delayed order", max_turns=5
                    ),
                    agent,
                )
                .check(StringMatching(keyword="(3)"))
                .run_sync()
            )
        prompts = [r.prompt for r in server.chat_requests]
    assert result.passed
    assert agent_turns == lines
    assert [i.inputs for i in result.final_trace.interactions] == lines
    assert len(prompts) == 4  # three messages, then "goal reached"
    assert PERSONAS["frustrated_customer"] in prompts[0]
    assert "delayed order" in prompts[0] and "opening message" in prompts[0]
    assert "User: My order is late!\nAssistant: Sorry to hear that (1)." in prompts[1]
    assert usage.usage.llm_calls == 4


def test_max_turns_caps_the_conversation_and_max_steps_is_an_alias():
    with FakeLLMServer(reply={"goal_reached": False, "message": "again"}) as server:
        set_default_generator(server.generator())
        result = (
            Scenario("cap")
            .interact(UserSimulator(persona="impatient_user", max_steps=2), lambda inputs: "ok")
            .run_sync()
        )
    assert len(result.final_trace.interactions) == 2


def test_goal_reached_on_the_first_turn_is_ignored_and_empty_messages_stop():
    replies = [
        {"goal_reached": True, "message": "Hello, I need help with my bill."},
        {"goal_reached": False, "message": "   "},
    ]
    with FakeLLMServer(replies=replies) as server:
        set_default_generator(server.generator())
        result = (
            Scenario("stop")
            .interact(UserSimulator(persona="A retired teacher who writes very politely"), "Sure.")
            .run_sync()
        )
    assert [i.inputs for i in result.final_trace.interactions] == [
        "Hello, I need help with my bill."
    ]


def test_custom_description_goal_and_its_own_generator():
    with FakeLLMServer(reply={"goal_reached": True, "message": "Bonjour"}) as server:
        sim = UserSimulator(
            persona="A tourist who only speaks French",
            goal="book a table for two",
            generator=server.generator(),
        )
        result = Scenario("fr").interact(sim, "Welcome!").run_sync()
        prompt = server.chat_requests[0].prompt
    assert result.final_trace.interactions[0].inputs == "Bonjour"
    assert "A tourist who only speaks French" in prompt and "book a table for two" in prompt


def test_without_a_model_the_step_is_an_error_with_the_remedy():
    result = Scenario("no model").interact(UserSimulator(persona="helpful_user"), "hi").run_sync()
    error = result.steps[0].error
    assert error.phase == "input_generation"
    assert "set_default_generator" in error.message


def test_an_empty_opening_message_is_an_input_generation_error():
    with FakeLLMServer(reply={"goal_reached": False, "message": ""}) as server:
        set_default_generator(server.generator())
        result = Scenario("empty").interact(UserSimulator(persona="novice_user"), "hi").run_sync()
    assert result.steps[0].error.phase == "input_generation"
    assert "empty opening message" in result.steps[0].error.message


def test_validation_and_round_trip():
    with pytest.raises(ValueError, match="unknown persona 'frustrated_custmer'"):
        UserSimulator(persona="frustrated_custmer")
    with pytest.raises(ValueError, match="must not be empty"):
        UserSimulator(persona="  ")
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        UserSimulator(persona="helpful_user", max_turns=-1)
    assert UserSimulator(persona="helpful_user", max_steps=0).max_steps == 0
    sim = UserSimulator(
        persona="verbose_user", context="c", goal="g", max_turns=4, generator="openai/gpt-4o"
    )
    dumped = json.loads(sim.model_dump_json())
    assert dumped["kind"] == "user_simulator"
    restored = InputGenerator.model_validate(dumped)
    assert restored == sim and restored.generator.model == "openai/gpt-4o"
    spec = Interact.model_validate({"kind": "interact", "inputs": dumped, "outputs": "static"})
    assert isinstance(spec.inputs, UserSimulator)
