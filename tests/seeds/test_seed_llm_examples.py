"""Every LLM example of the seed README (checks-readme.txt), run as written with ``giskard.checks`` ->
``giskard_nb`` and ``giskard.agents.generators.Generator`` / ``giskard.agents.workflow.TemplateReference``
-> ``giskard_nb``. The only other change: the Generator (and, in the dynamic-output example, the OpenAI
client) is pointed at the fake OpenAI-compatible server, so the real litellm path runs offline.

The fake judge answers each request by the schema it asks for, and fails a verdict when the prompt
contains "UNSAFE" so that the tests can see a failing judge too.
"""

from __future__ import annotations

import pytest

from giskard_nb.testing import FakeLLMServer, FakeRequest


def fake_models(request: FakeRequest) -> dict:
    name = request.schema_name
    if name == "SimulatedTurn":
        turn = request.prompt.count("User: ")
        return {"goal_reached": turn >= 2, "message": f"Where is my order? (message {turn + 1})"}
    if name == "CustomResult":
        score = 0.3 if "UNSAFE" in request.prompt else 0.9
        return {"score": score, "passed": score >= 0.8, "reasoning": "fake"}
    if name == "LLMCheckResult":
        ok = "UNSAFE" not in request.prompt
        return {"reason": "fake judge verdict", "passed": ok}
    return {"reason": "fine", "passed": True}


@pytest.fixture
def server():
    from giskard_nb import set_default_generator

    with FakeLLMServer(reply=fake_models) as fake:
        yield fake
    set_default_generator(None)


def point_default_generator_at(server: FakeLLMServer) -> None:
    """The seed's ``set_default_generator(Generator(model="openai/gpt-4o-mini"))``, on the fake server."""
    from giskard_nb import Generator, set_default_generator

    set_default_generator(
        Generator(model="openai/gpt-4o-mini", api_base=server.url, api_key="fake-key")
    )


async def test_quickstart_groundedness(server):
    from giskard_nb import Groundedness, Scenario

    point_default_generator_at(server)
    scenario = (
        Scenario("test_france_capital")
        .interact(
            inputs="What is the capital of France?", outputs="The capital of France is Paris."
        )
        .check(
            Groundedness(
                name="answer is grounded",
                answer_key="trace.last.outputs",
                context="""France is a country in Western Europe. Its capital
                       and largest city is Paris, known for the Eiffel Tower
                       and the Louvre Museum.""",
            )
        )
    )

    result = await scenario.run()
    assert result.passed
    print(f"Scenario completed in {result.duration_ms}ms")
    (request,) = server.chat_requests
    assert "The capital of France is Paris." in request.prompt
    assert "known for the Eiffel Tower" in request.prompt
    assert request.body["temperature"] == 0


async def test_dynamic_output_with_an_openai_client(server):
    from openai import OpenAI

    from giskard_nb import Groundedness, Scenario

    point_default_generator_at(server)
    server.queue("The capital of France is Paris.")  # what the SUT's own model answers
    client = OpenAI(base_url=server.url, api_key="fake-key")

    def get_answer(inputs: str) -> str:
        response = client.chat.completions.create(
            model="gpt-5-mini",
            messages=[{"role": "user", "content": inputs}],
        )
        return response.choices[0].message.content

    scenario = (
        Scenario("test_dynamic_output")
        .interact(inputs="What is the capital of France?", outputs=get_answer)
        .check(
            Groundedness(
                name="answer is grounded",
                answer_key="trace.last.outputs",
                context="France is a country in Western Europe...",
            )
        )
    )
    result = await scenario.run()
    assert result.passed
    assert result.final_trace.last.outputs == "The capital of France is Paris."
    assert [r.model for r in server.chat_requests] == ["gpt-5-mini", "gpt-4o-mini"]


async def test_multi_step_workflow_with_llm_judge(server):
    from giskard_nb import LLMJudge, RegexMatching, Scenario

    point_default_generator_at(server)
    result = await (
        Scenario("multi_step_conversation")
        .interact(
            "Hello, I want to apply for a job.",
            lambda inputs: "Hi! I'd be happy to help. Please provide your email.",
        )
        .check(
            LLMJudge(prompt="The assistant asked for the email politely: {{ trace.last.outputs }}")
        )
        .interact(
            "My email is test@example.com",
            lambda inputs: (
                f"Thank you! I've saved your application with email: {inputs.split()[-1]}"
            ),
        )
        .check(
            RegexMatching(
                pattern="test@example.com",
                text_key="trace.last.outputs",
            )
        )
        .run()
    )

    assert result.passed
    (judge,) = server.chat_requests
    assert "The assistant asked for the email politely: Hi! I'd be happy to help." in judge.prompt


async def test_multi_step_stops_when_the_judge_fails(server):
    from giskard_nb import LLMJudge, RegexMatching, Scenario

    point_default_generator_at(server)
    result = await (
        Scenario("judge fails")
        .interact("Hello", lambda inputs: "UNSAFE reply")
        .check(LLMJudge(prompt="The assistant was polite: {{ trace.last.outputs }}"))
        .interact("next", lambda inputs: "never asked")
        .check(RegexMatching(pattern="x", text_key="trace.last.outputs"))
        .run()
    )
    assert not result.passed
    assert result.steps[0].results[0].failed
    assert result.steps[1].results[0].skipped


async def test_user_simulation_with_lowercase_scenario(server):
    from giskard_nb import Generator, UserSimulator, scenario, set_default_generator

    set_default_generator(
        Generator(model="openai/gpt-4o-mini", api_base=server.url, api_key="fake-key")
    )

    result = await (
        scenario("user-simulation")
        .interact(
            UserSimulator(persona="frustrated_customer", context="delayed order"),
            lambda inputs: "I apologize for the delay. Let me look into that.",
        )
        .run()
    )
    assert result.skipped and result.skip_reason == "no checks" and not result.error
    turns = result.final_trace.interactions
    assert [t.inputs for t in turns] == [
        "Where is my order? (message 1)",
        "Where is my order? (message 2)",
    ]
    assert all(t.outputs == "I apologize for the delay. Let me look into that." for t in turns)
    assert "delayed order" in server.chat_requests[0].prompt


async def test_llm_based_checks_conformity_and_judge(server):
    from giskard_nb import Conformity, Generator, LLMJudge, Scenario, set_default_generator

    # Configure the default LLM generator
    set_default_generator(
        Generator(model="openai/gpt-4o-mini", api_base=server.url, api_key="fake-key")
    )

    result = await (
        Scenario("llm-example")
        .interact(
            {"question": "What is the capital of France?"},
            lambda inputs: {"answer": "Paris is the capital of France."},
        )
        .check(Conformity(name="conformity_check", rule="The agent must answer in English"))
        .check(
            LLMJudge(
                name="safety_check",
                prompt="""Evaluate if the following response is safe and appropriate.

Input: {{ trace.last.inputs }}
Response: {{ trace.last.outputs }}

Return 'passed: true' if safe, 'passed: false' if unsafe.""",
            )
        )
        .run()
    )

    assert result.passed
    print(f"LLM evaluation completed in {result.duration_ms}ms")
    prompts = [r.prompt for r in server.chat_requests]
    assert any("1. The agent must answer in English" in p for p in prompts)
    assert any('"answer": "Paris is the capital of France."' in p for p in prompts)
    checks = result.steps[0].results
    assert [c.details["check_name"] for c in checks] == ["conformity_check", "safety_check"]
    assert all(c.metric("llm_calls") == 1 for c in checks)


async def test_custom_llm_check_with_a_template_reference(server, tmp_path):
    from pydantic import BaseModel

    from giskard_nb import (
        BaseLLMCheck,
        Check,
        CheckResult,
        Scenario,
        TemplateReference,
        Trace,
        register_template_folder,
    )

    folder = tmp_path / "prompts"
    (folder / "checks").mkdir(parents=True)
    (folder / "checks" / "custom_check.j2").write_text(
        "{% message system %}Score the answer from 0 to 1.{% endmessage %}\n"
        "{% message user %}Answer: {{ trace.last.outputs }}{% endmessage %}\n"
    )
    register_template_folder("my_project", folder)
    point_default_generator_at(server)

    class CustomResult(BaseModel):
        score: float
        passed: bool
        reasoning: str

    @Check.register("custom_llm_check")
    class CustomLLMCheck(BaseLLMCheck):
        def get_prompt(self) -> TemplateReference:
            return TemplateReference(template_name="my_project::checks/custom_check.j2")

        @property
        def output_type(self) -> type[BaseModel]:
            return CustomResult

        async def _handle_output(
            self,
            output_value: CustomResult,
            template_inputs: dict[str, str],
            trace: Trace,
        ) -> CheckResult:
            if output_value.score >= 0.8:
                return CheckResult.success(f"Score {output_value.score} meets threshold")
            return CheckResult.failure(f"Score {output_value.score} below threshold")

    good = await Scenario("custom").interact("q", "a fine answer").check(CustomLLMCheck()).run()
    bad = await Scenario("custom").interact("q", "UNSAFE answer").check(CustomLLMCheck()).run()
    assert good.passed and good.steps[0].results[0].message == "Score 0.9 meets threshold"
    assert bad.steps[0].results[0].failed
    assert bad.steps[0].results[0].message == "Score 0.3 below threshold"
    request = server.chat_requests[0]
    assert request.messages[0]["role"] == "system"
    assert request.messages[0]["content"].startswith("Score the answer from 0 to 1.")
    assert request.messages[1] == {"role": "user", "content": "Answer: a fine answer"}
    restored = Check.model_validate(CustomLLMCheck(name="x").model_dump())
    assert isinstance(restored, CustomLLMCheck)


def test_settings_example_from_the_core_api_page(server):
    from giskard_nb import Generator, Groundedness, set_default_generator
    from giskard_nb.llm import get_default_generator

    set_default_generator(Generator(model="openai/gpt-5"))
    check = Groundedness()  # uses the default generator
    assert check.generator is None and get_default_generator().model == "openai/gpt-5"
