"""Every rule-based example of the seed documents (checks-readme.txt, checks-core-api.txt), run as written
with ``giskard.checks`` replaced by ``giskard_nb``. Placeholders the seeds leave undefined (``my_model``,
``some_security_analysis``, ``process``, ``check1``...) are defined here. The LLM examples (Groundedness,
LLMJudge, Conformity, UserSimulator, custom BaseLLMCheck) run in ``test_seed_llm_examples.py`` against the
fake LLM server."""

from __future__ import annotations

import asyncio

import pytest

# --- checks-readme.txt ------------------------------------------------------------------------------------


async def test_readme_suite_with_shared_target():
    from giskard_nb import Equals, Scenario, Suite

    scenario1 = (
        Scenario("s1")
        .interact("hello")
        .check(Equals(expected_value="Echo: hello", key="trace.last.outputs"))
    )
    scenario2 = (
        Scenario("s2")
        .interact("world")
        .check(Equals(expected_value="Echo: world", key="trace.last.outputs"))
    )
    target_sut = lambda inputs: f"Echo: {inputs}"  # noqa: E731
    suite = Suite(name="my_suite", target=target_sut)
    suite.append(scenario1)
    suite.append(scenario2)
    results = await suite.run()
    print(f"Aggregated pass rate: {results.pass_rate * 100}%")
    assert results.pass_rate == 1.0


def test_readme_run_in_a_script_with_asyncio_run():
    from giskard_nb import Scenario

    scenario = Scenario("script").interact("hello", "hi")

    async def main():
        result = await scenario.run()
        print(result)
        return result

    result = asyncio.run(main())
    assert result.skipped and result.skip_reason == "no checks" and not result.error


async def test_readme_serialization():
    from giskard_nb import Check, CheckResult, Interaction, TestCase, Trace

    @Check.register("my_custom_check")
    class MyCustomCheck(Check):
        async def run(self, trace: Trace) -> CheckResult:
            return CheckResult.success("Check passed")

    trace = Trace(interactions=[Interaction(inputs="test", outputs="result")])
    check = MyCustomCheck(name="test")
    testcase = TestCase(trace=trace, checks=[check], name="example")
    serialized = testcase.model_dump()
    restored = TestCase.model_validate(serialized)
    assert isinstance(restored.checks[0], MyCustomCheck)
    assert (await restored.run()).passed


async def test_readme_custom_check_and_interaction_spec():
    from giskard_nb import Check, CheckResult, Interaction, InteractionSpec, Scenario, Trace

    async def some_security_analysis(outputs):
        return 0.9

    @Check.register("advanced_security")
    class AdvancedSecurityCheck(Check):
        threshold: float = 0.8

        async def run(self, trace: Trace) -> CheckResult:
            current = trace.last
            score = await some_security_analysis(current.outputs)
            if score >= self.threshold:
                return CheckResult.success(f"Security score {score:.2f} meets threshold")
            return CheckResult.failure(
                f"Security score {score:.2f} below threshold {self.threshold}"
            )

    @InteractionSpec.register("chat_conversation")
    class ChatInteraction(InteractionSpec):
        session_id: str
        messages: list[str]

        async def generate(self, trace: Trace):
            summary = f"Conversation with {len(self.messages)} messages"
            record = Interaction(
                inputs=self.messages,
                outputs={"summary": summary},
                metadata={"session_id": self.session_id},
            )
            yield record

    chat = ChatInteraction(session_id="session_123", messages=["hi", "hello"])
    check = AdvancedSecurityCheck(name="security_test", threshold=0.7)
    scenario = Scenario(name="custom_test").extend(chat, check)

    serialized = scenario.model_dump()
    restored = Scenario.model_validate(serialized)
    result = await restored.run()
    assert result.passed
    assert result.final_trace.last.metadata == {"session_id": "session_123"}
    assert result.final_trace.last.outputs == {"summary": "Conversation with 2 messages"}


async def test_readme_binding_a_target_at_three_levels():
    from giskard_nb import Equals, Scenario, Suite

    def my_sut(inputs):
        return f"scenario:{inputs}"

    def shared_sut(inputs):
        return f"suite:{inputs}"

    def emergency_override_sut(inputs):
        return f"run:{inputs}"

    result = await Scenario("test", target=my_sut).interact("hello").run()
    assert result.final_trace.last.outputs == "scenario:hello"

    scenario = (
        Scenario("test", target=my_sut)
        .interact("hello")
        .check(Equals(expected_value="suite:hello"))
    )
    suite = Suite(name="my_suite", target=shared_sut)
    suite.append(scenario)
    result = await suite.run()
    assert result.passed_count == 1

    result = await suite.run(target=emergency_override_sut)
    assert result.results[0].final_trace.last.outputs == "run:hello"


async def test_readme_structured_data():
    from giskard_nb import Equals, Scenario, StringMatching

    result = await (
        Scenario("structured-example")
        .interact(
            {"question": "What is the capital of France?"},
            lambda inputs: {"answer": "Paris is the capital of France.", "confidence": 0.95},
        )
        .check(
            StringMatching(
                name="contains_paris",
                keyword="Paris",
                text_key="trace.last.outputs.answer",
            )
        )
        .check(
            Equals(
                name="high_confidence",
                expected_value=0.95,
                key="trace.last.outputs.confidence",
            )
        )
        .run()
    )

    assert result.passed
    print(f"Scenario completed in {result.duration_ms}ms")


async def test_readme_dynamic_interaction_generation():
    from giskard_nb import Scenario, Trace, from_fn

    async def input_generator(trace: Trace):
        count = len(trace.interactions)
        next_input = {"message": f"Hello! This is message #{count + 1}"}
        yield next_input

    result = await (
        Scenario("dynamic-example")
        .interact(
            input_generator,
            lambda inputs: {
                "response": f"Hi there! Received: {inputs['message']}",
            },
        )
        .check(from_fn(lambda trace: True, name="noop"))
        .run()
    )
    assert result.passed
    assert result.final_trace.last.outputs == {
        "response": "Hi there! Received: Hello! This is message #1"
    }


async def test_readme_advanced_manual_trace_for_a_test_case():
    from giskard_nb import Equals, Interaction, StringMatching, TestCase, Trace

    def process(text):
        return text.upper()

    check1 = StringMatching(keyword="SOME")
    check2 = Equals(expected_value="SOME TEXT")

    trace = Trace(
        interactions=[
            Interaction(inputs="some text", outputs=process("some text")),
        ]
    )
    tc = TestCase(trace=trace, checks=[check1, check2], name="advanced_example")
    test_case_result = await tc.run()
    assert test_case_result.passed


async def test_readme_programmatic_scenario():
    from giskard_nb import (
        Equals,  # Inherits from `Check`
        Interact,  # Inherits from `InteractionSpec`
        Scenario,
    )

    scenario = Scenario(name="programmatic_scenario").extend(
        Interact(inputs="Hello", outputs=lambda inputs: "Hi"),
        Equals(expected_value="Hi", key="trace.last.outputs"),
    )
    result = await scenario.run()
    assert result.passed


def test_readme_troubleshooting_names_exist():
    from giskard_nb import DuplicateKindError, scenario

    assert issubclass(DuplicateKindError, ValueError)
    assert scenario("lowercase").name == "lowercase"


# --- checks-core-api.txt ----------------------------------------------------------------------------------


async def test_core_api_custom_check():
    from giskard_nb import Check, CheckResult, Interaction, Trace

    @Check.register("my_custom_check_api")
    class MyCustomCheck(Check):
        threshold: float = 0.8

        def _calculate_score(self, trace):
            return len(trace.last.outputs) / 10

        async def run(self, trace: Trace) -> CheckResult:
            score = self._calculate_score(trace)

            if score >= self.threshold:
                return CheckResult.success(
                    message=f"Score {score} meets threshold",
                    details={"score": score},
                )
            else:
                return CheckResult.failure(
                    message=f"Score {score} below threshold {self.threshold}",
                    details={"score": score},
                )

    trace = Trace(interactions=[Interaction(inputs="q", outputs="0123456789")])
    assert (await MyCustomCheck().run(trace)).details == {"score": 1.0}


def test_core_api_check_result_factories_and_status():
    from giskard_nb import CheckResult, CheckStatus

    result = CheckResult.success(message="All validations passed", details={"score": 0.95})
    assert result.passed
    result = CheckResult.failure(message="Score below threshold", details={"score": 0.65})
    assert result.failed
    result = CheckResult.error(message="Failed to connect to API")
    assert result.errored
    result = CheckResult.skip(message="Skipped: No outputs available")
    assert result.skipped
    assert CheckResult.success().status == CheckStatus.PASS
    if result.status == CheckStatus.PASS:
        print("Success!")


def test_core_api_interactions():
    from giskard_nb import Interaction

    interaction = Interaction(
        inputs="What is the capital of France?",
        outputs="The capital of France is Paris.",
        metadata={"model": "gpt-5", "tokens": 15},
    )
    assert interaction.metadata["tokens"] == 15
    interaction = Interaction(
        inputs={"query": "weather", "location": "Paris"},
        outputs={"temperature": 20, "conditions": "sunny"},
        metadata={"api": "weather_service", "latency_ms": 120},
    )
    with pytest.raises(Exception, match="frozen"):
        interaction.outputs = "changed"


async def test_core_api_trace_check():
    from giskard_nb import Check, CheckResult, Scenario, Trace

    @Check.register("trace_check")
    class TraceCheck(Check):
        async def run(self, trace: Trace) -> CheckResult:
            last = trace.last  # most recent interaction
            all_interactions = trace.interactions  # full history
            count = len(trace.interactions)
            assert last is all_interactions[-1]
            return CheckResult.success(message=f"Processed {count} interactions")

    result = await Scenario("t").interact("a", "b").interact("c", "d").check(TraceCheck()).run()
    assert result.steps[0].results[0].message == "Processed 2 interactions"


async def test_core_api_interaction_spec_forms():
    from giskard_nb import Scenario

    def my_model(inputs):
        return f"model({inputs})"

    def generate_response(inputs):
        return f"response({inputs})"

    scenario = Scenario("static").interact(inputs="test input", outputs="test output")
    assert (await scenario.run()).final_trace.last.outputs == "test output"
    scenario = Scenario("dynamic").interact(
        inputs="test query",
        outputs=lambda inputs: my_model(inputs),
    )
    assert (await scenario.run()).final_trace.last.outputs == "model(test query)"
    scenario = Scenario("context").interact(
        inputs=lambda trace: f"Previous: {trace.last.outputs if trace.last else 'None'}",
        outputs=lambda inputs: generate_response(inputs),
    )
    assert (await scenario.run()).final_trace.last.outputs == "response(Previous: None)"


async def test_core_api_scenario_with_fn_checks():
    from giskard_nb import FnCheck, Scenario

    result = await (
        Scenario("multi_step_flow")
        .interact(inputs="Hello", outputs="Hi there!")
        .check(FnCheck(fn=lambda trace: "Hi" in trace.last.outputs, name="greeting"))
        .interact(inputs="What's the weather?", outputs="It's sunny!")
        .check(FnCheck(fn=lambda trace: len(trace.interactions) == 2, name="count"))
        .run()
    )
    print(f"Status: {result.status}")
    assert result.passed


def test_core_api_extractors():
    from giskard_nb import Interaction, Trace
    from giskard_nb.core.extraction import NoMatch, resolve

    trace = Trace(
        interactions=[
            Interaction(inputs="q", outputs={"answer": "a"}, metadata={"model": "m"}),
        ]
    )
    value = resolve(trace, "trace.last.outputs.answer")
    if isinstance(value, NoMatch):
        pytest.fail("no value found")
    model_name = resolve(trace, "trace.interactions[0].metadata.model")
    assert (value, model_name) == ("a", "m")
    assert resolve(trace, "trace.interactions[-1]") == resolve(trace, "trace.last")
    assert resolve(trace, "trace.last.inputs") == "q"
