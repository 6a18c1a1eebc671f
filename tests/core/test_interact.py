from __future__ import annotations

import pytest

from giskard_nb import (
    CheckResult,
    InputGenerator,
    Interact,
    Interaction,
    Scenario,
    Trace,
    from_fn,
)


async def run(scenario: Scenario, **kw):
    return await scenario.run(**kw)


def outputs_of(result):
    return [i.outputs for i in result.final_trace.interactions]


async def test_static_inputs_and_outputs():
    r = await Scenario("s").interact("hi", "hello").run()
    assert r.skip_reason == "no checks"  # no check ran: nothing passed
    assert r.final_trace.last.inputs == "hi" and r.final_trace.last.outputs == "hello"


@pytest.mark.parametrize(
    "outputs",
    [
        lambda inputs: inputs.upper(),
        lambda x: x[-1]["content"].upper(),  # by position; not named like text: the conversation
        lambda inputs, trace: inputs.upper() + "!" * len(trace.interactions),
        lambda trace, inputs: inputs.upper() + "!" * len(trace.interactions),
    ],
)
async def test_output_callables_by_name_or_position(outputs):
    r = await Scenario("s").interact("hi", outputs).run()
    assert r.final_trace.last.outputs == "HI"


async def test_async_outputs_and_zero_arg_inputs():
    async def agent(inputs):
        return f"echo {inputs}"

    r = await Scenario("s").interact(lambda: "dynamic", agent).run()
    assert r.final_trace.last.outputs == "echo dynamic"


async def test_input_callable_receives_the_trace():
    r = await (
        Scenario("s")
        .interact("first", "one")
        .interact(lambda trace: f"after {trace.last.outputs}", lambda inputs: inputs)
        .run()
    )
    assert outputs_of(r) == ["one", "after one"]


async def test_sync_generator_multi_turn_receives_updated_trace():
    seen = []

    def turns(trace):
        for i in range(3):
            trace = yield f"turn {i}"
            seen.append(len(trace.interactions))

    r = await Scenario("s").interact(turns, lambda inputs: inputs.upper()).run()
    assert outputs_of(r) == ["TURN 0", "TURN 1", "TURN 2"]
    assert seen == [1, 2, 3]


async def test_async_generator_inputs():
    async def turns(trace):
        trace = yield "a"
        yield f"b after {trace.last.outputs}"

    r = await Scenario("s").interact(turns, lambda inputs: inputs * 2).run()
    assert outputs_of(r) == ["aa", "b after aab after aa"]


@InputGenerator.register("test_countdown")
class Countdown(InputGenerator):
    start: int = 2

    async def __call__(self, trace: Trace, input_type=None):
        n = self.start
        while n > 0:
            trace = yield f"{n} (seen {len(trace.interactions)})"
            n -= 1


async def test_input_generator_instance():
    r = await Scenario("s").interact(Countdown(start=3), lambda inputs: inputs).run()
    assert outputs_of(r) == ["3 (seen 0)", "2 (seen 1)", "1 (seen 2)"]
    restored = Scenario.model_validate(Scenario("s").interact(Countdown(), "x").model_dump())
    assert isinstance(restored.steps[0].interacts[0].inputs, Countdown)


async def test_outputs_may_return_an_interaction_with_metadata():
    def agent(inputs):
        return Interaction(inputs=inputs, outputs="reply", metadata={"tool": "search"})

    r = await Scenario("s").interact("q", agent, metadata={"case": 1}).run()
    assert r.final_trace.last.metadata == {"case": 1, "tool": "search"}


async def test_metadata_is_attached():
    r = await Scenario("s").interact("q", "a", metadata={"k": "v"}).run()
    assert r.final_trace.last.metadata == {"k": "v"}


def test_uncallable_signature_is_rejected_at_construction():
    with pytest.raises(TypeError, match="Parameter 'extra' is required"):
        Interact(inputs="x", outputs=lambda inputs, trace, extra: None)


async def test_missing_outputs_and_no_target_is_an_error_naming_the_fix():
    r = await Scenario("s").interact("q").check(from_fn(lambda trace: True)).run()
    assert r.errored
    assert "no target was bound" in r.steps[0].error.message
    assert r.steps[0].error.phase == "target"


async def test_interact_positional_and_keyword_forms_are_equivalent():
    a = Interact("x", "y")
    b = Interact(inputs="x", outputs="y")
    assert a.model_dump() == b.model_dump()


async def test_check_result_factories():
    assert CheckResult.success("ok").passed
    assert CheckResult.failure(message="no").failed
    assert CheckResult.error("boom").errored
    assert CheckResult.skip("later").skipped
    r = CheckResult.success("ok", details={"score": 0.9})
    assert r.details == {"score": 0.9} and r.metrics == []
