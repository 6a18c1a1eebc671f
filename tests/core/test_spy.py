from __future__ import annotations

import json

from giskard_nb import Interact, Scenario, WithSpy, from_fn


def agent(inputs):
    return json.dumps({"q": inputs})


async def test_with_spy_wraps_the_real_function_and_records_calls():
    spec = WithSpy(interaction_generator=Interact("hello", agent), target="json.dumps")
    r = await Scenario("s").add_interaction(spec).check(from_fn(lambda trace: True)).run()
    last = r.final_trace.last
    assert last.outputs == '{"q": "hello"}'  # the real json.dumps ran
    record = last.metadata["json.dumps"]
    assert record["call_count"] == 1 and record["calls"][0]["args"] == [{"q": "hello"}]
    assert json.dumps({"a": 1}) == '{"a": 1}'  # unpatched afterwards


async def test_with_spy_return_value_replaces_and_target_binding_reaches_the_inner_spec():
    spec = WithSpy(
        interaction_generator=Interact("hello"), target="json.dumps", return_value="stub"
    )
    r = await Scenario("s", target=agent).add_interaction(spec).run()
    assert r.final_trace.last.outputs == "stub"
    assert r.final_trace.last.metadata["json.dumps"]["call_count"] == 1
