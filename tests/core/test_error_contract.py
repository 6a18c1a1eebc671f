"""giskard-checks' error contract in the core: Interact's signature checks and missing outputs, the
names of skipped steps and of the failing phase, test-case failure lines, Interaction equality and
the generators' field validation."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

from giskard_nb import (
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    Interact,
    Interaction,
    InteractionSpec,
    LLMGenerator,
    LLMJudge,
    Scenario,
    Suite,
    TestCase,
    Trace,
    UserSimulator,
    from_fn,
)
from giskard_nb.errors import MissingOutputsError, SignatureError


def test_an_unfillable_outputs_parameter_is_a_type_error_at_construction():
    with pytest.raises(TypeError, match="Parameter 'extra' is required but not in the injection"):
        Interact(inputs="q", outputs=lambda inputs, trace, extra: "a")
    with pytest.raises(SignatureError) as info:
        Interact(inputs=lambda trace, input_type, more: "q", outputs="a")
    assert not isinstance(info.value, ValueError)  # pydantic does not wrap it
    assert "trace, input_type" in str(info.value)  # what the callable may take


async def test_missing_outputs_without_a_target_is_a_value_error():
    scenario = Scenario("s").interact("hello")
    with pytest.raises(ValueError, match="Interaction outputs are not provided and no target was"):
        await scenario.run(return_exception=False)
    with pytest.raises(MissingOutputsError):
        await Trace().with_interaction(Interact(inputs="hello"))
    result = await scenario.run()  # giskard-nb's default: the error is a result
    assert result.errored and result.steps[0].error.phase == "target"
    assert "Interaction outputs are not provided" in result.steps[0].error.message


async def test_a_skipped_step_without_checks_is_named_step():
    result = await (
        Scenario("s")
        .interact("q", "a")
        .check(Equals(expected_value="other"))
        .interact("q2", "a2")
        .run()
    )
    assert result.failed and len(result.steps) == 2
    (skipped,) = result.steps[1].results
    assert skipped.status is CheckStatus.SKIP
    assert skipped.details["check_kind"] == "step" and skipped.details["check_name"] == "step"
    assert skipped.message.startswith("Step 2 was skipped due to previous failure")


async def test_a_skipped_step_keeps_one_entry_per_check():
    result = await (
        Scenario("s")
        .interact("q", "a")
        .check(Equals(expected_value="other"))
        .interact("q2", "a2")
        .check(Equals(expected_value="a2", name="second"))
        .run()
    )
    (skipped,) = result.steps[1].results
    assert skipped.check_name == "second" and "skipped due to previous failure" in skipped.message


@InteractionSpec.register("error_contract_broken_spec")
class BrokenSpec(InteractionSpec):
    async def generate(self, trace: Trace) -> AsyncGenerator[Interaction, Trace]:
        yield Interaction(inputs="first", outputs="ok")
        raise RuntimeError("generator broke")


async def test_a_failing_custom_spec_is_an_input_generation_error():
    scenario = Scenario("s").add_interaction(BrokenSpec()).check(from_fn(lambda t: True, name="c"))
    result = await scenario.run()
    step = result.steps[0]
    assert step.error.phase == "input_generation" and step.error.exception_type == "RuntimeError"
    assert step.results[0].message == "Checks were skipped due to input generation failure"
    assert [i.inputs for i in result.final_trace.interactions] == ["first"]  # partial trace kept
    with pytest.raises(RuntimeError, match="generator broke"):
        await scenario.run(return_exception=False)


@Check.register("error_contract_raising_check")
class RaisingCheck(Check):
    async def run(self, trace: Trace) -> CheckResult:
        raise ValueError("Test error")


async def test_test_case_failure_lines_and_assertion():
    trace = Trace(interactions=[Interaction(inputs="i", outputs="output")])
    failed = await TestCase(trace=trace, checks=[Equals(expected_value="wrong")]).run()
    assert failed.format_failures() == ["equals FAILED: Expected value 'wrong' but got 'output'."]
    with pytest.raises(AssertionError, match=r"^Test case failed \(FAIL\):\n  - equals FAILED"):
        failed.assert_passed()
    errored = await TestCase(trace=trace, checks=[RaisingCheck(name="boom")]).run()
    (line,) = errored.format_failures()
    assert line == "boom ERRORED: Check 'boom' failed with error: ValueError: Test error"
    with pytest.raises(ValueError, match="Test error"):
        await TestCase(trace=trace, checks=[RaisingCheck()]).run(return_exception=False)


async def test_a_step_error_leads_the_failure_lines():
    result = (
        await Scenario("s")
        .interact("q", lambda inputs: 1 / 0)
        .check(Equals(expected_value=1))
        .run()
    )
    lines = result.steps[0].format_failures()
    assert lines[0] == "Test case ERRORED: ZeroDivisionError during target: division by zero"
    assert lines[1].startswith("equals SKIPPED: Checks were skipped due to target failure")


async def test_interaction_equality_ignores_latency():
    timed = (await Scenario("s").interact(1, lambda inputs: inputs + 1).run()).final_trace.last
    assert timed.latency_s is not None
    by_hand = Interaction(inputs=1, outputs=2, metadata={})
    assert timed == by_hand and hash(timed) == hash(by_hand)
    assert len({timed, by_hand}) == 1
    assert timed != Interaction(inputs=1, outputs=3)
    assert timed != Interaction(inputs=1, outputs=2, metadata={"k": "v"})
    assert Trace(interactions=[timed]) == Trace(interactions=[by_hand])


@pytest.mark.parametrize("value", [0, -1, "2", 1.5, True])
async def test_multiple_runs_must_be_a_positive_int(value):
    with pytest.raises(ValueError, match="multiple_runs"):
        Scenario("s", multiple_runs=value)
    with pytest.raises(ValueError, match="multiple_runs"):
        await Scenario("s").run(multiple_runs=value)


def test_generator_fields_are_validated_like_the_reference():
    with pytest.raises(ValueError, match="at least 1 character"):
        UserSimulator(persona="")
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        UserSimulator(persona="helpful_user", max_steps=-1)
    assert UserSimulator(persona="helpful_user", max_steps=0).max_steps == 0
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        LLMGenerator(prompt="p", max_steps=-1)
    with pytest.raises(ValueError, match="exactly one of prompt=.*both were given"):
        LLMGenerator(prompt="p", prompt_path="x.j2")
    with pytest.raises(ValueError, match="prompt.*prompt_path.*neither was given"):
        LLMGenerator()
    with pytest.raises(ValueError, match="LLMJudge needs exactly one of prompt=.*both were given"):
        LLMJudge(prompt="p", prompt_path="x.j2")


async def test_a_simulator_with_no_steps_sends_nothing():
    result = await (
        Scenario("s")
        .interact(UserSimulator(persona="helpful_user", max_steps=0), "a")
        .check(from_fn(lambda trace: not trace.interactions, name="nothing sent"))
        .run()
    )
    assert result.passed and result.final_trace.interactions == []


def test_suite_name_and_test_case_fields_are_required():
    with pytest.raises(ValueError, match="name\n  Field required"):
        Suite()
    with pytest.raises(ValueError, match="checks\n  Field required"):
        TestCase(trace=Trace())
    with pytest.raises(ValueError, match="trace\n  Field required"):
        TestCase(checks=[])
    assert Suite("named").name == "named" and Suite(name="kw").name == "kw"


@pytest.mark.parametrize("parallel", [True, False])
async def test_max_concurrency_is_checked_even_when_serial(parallel):
    suite = Suite("s", scenarios=[Scenario("a").interact("q", "a")])
    with pytest.raises(TypeError, match="max_concurrency must be a positive integer"):
        await suite.run(max_concurrency=True, parallel=parallel)
    with pytest.raises(TypeError, match="got str '2'"):
        await suite.run(max_concurrency="2", parallel=parallel)
    with pytest.raises(ValueError, match="max_concurrency must be a positive integer"):
        await suite.run(max_concurrency=0, parallel=parallel)
    assert len((await suite.run(max_concurrency=None, parallel=parallel)).results) == 1


def test_kind_errors_carry_the_reference_fragments():
    with pytest.raises(ValueError, match="Kind is not provided for class Check"):
        Check.model_validate({"name": "x"})
    with pytest.raises(ValueError, match="Kind 'nope' is not registered for class Check"):
        Check.model_validate({"kind": "nope"})

    class Impostor(Check):
        async def run(self, trace: Trace) -> CheckResult:
            return CheckResult.success()

    with pytest.raises(ValueError, match="Kind 'equals' is already registered for"):
        Check.register("equals")(Impostor)


async def test_a_timed_out_step_says_its_checks_were_skipped_for_the_timeout():
    import asyncio

    async def slow(inputs):
        await asyncio.sleep(0.5)
        return "late"

    result = (
        await Scenario("s")
        .interact("q", slow)
        .check(Equals(expected_value="late"))
        .run(timeout=0.05)
    )
    step = result.steps[0]
    assert step.error.phase == "timeout"
    assert step.results[0].message == "Checks were skipped due to the scenario timeout"
