"""Latency: the target's measured reply time against a limit; no measured time is an ERROR, never a PASS.

The targets sleep 0.05 s and the limits are 0.01 s (always exceeded) or 5 s (never reached on any
machine), so no assertion depends on how fast the suite runs.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from giskard_nb import Check, Interaction, Latency, Not, Scenario, Suite, Trace
from giskard_nb.core.sync import run_sync
from giskard_nb.core.testcase import run_check

SLEEP, TIGHT, LOOSE = 0.05, 0.01, 5.0


def run_check_sync(check, trace):
    return run_sync(run_check(check, trace))


def slow_sync(inputs):
    time.sleep(SLEEP)
    return "ok"


async def slow_async(inputs):
    await asyncio.sleep(SLEEP)
    return "ok"


def fast(inputs):
    return "ok"


@pytest.mark.parametrize("target", [slow_sync, slow_async])
def test_a_slow_target_fails_a_tight_limit_and_passes_a_loose_one(target):
    scenario = (
        Scenario("slow", target=target)
        .interact("q")
        .check(Latency(max_seconds=LOOSE))
        .check(Latency(max_seconds=TIGHT, name="tight"))
    )
    result = scenario.run_sync()
    loose, tight = result.steps[0].results
    assert loose.passed and "within 5 s" in loose.message
    assert loose.details["threshold"] == LOOSE and loose.details["actual_value"] >= SLEEP * 0.9
    assert loose.metric("latency_s") == loose.details["actual_value"]
    assert tight.failed and "more than the 0.01 s allowed" in tight.message
    assert tight.details["actual_value"] == result.final_trace.last.latency_s
    assert tight.details["threshold"] == TIGHT and tight.details["interaction_index"] == 0


def test_scope_all_judges_the_slowest_interaction():
    calls = iter([slow_sync, fast, fast])

    def agent(inputs):
        return next(calls)(inputs)

    scenario = (
        Scenario("turns", target=agent)
        .interact("a")
        .interact("b")
        .interact("c")
        .check(Latency(max_seconds=TIGHT))  # the last turn was fast
        .check(Latency(max_seconds=TIGHT, scope="all"))  # the first one was not
        .check(Latency(max_seconds=LOOSE, scope="all"))
    )
    last, every, loose = scenario.run_sync(return_exception=True).steps[0].results
    assert last.passed
    assert every.failed and every.details["interaction_index"] == 0
    assert "the slowest reply (interaction 0)" in every.message
    assert every.details["actual_value"] == max(every.details["latencies_s"])
    assert loose.passed and len(loose.details["latencies_s"]) == 3


def test_static_outputs_and_hand_built_traces_are_errors_that_say_how_to_measure():
    static = Scenario("static").interact("q", "a static answer").check(Latency(max_seconds=LOOSE))
    result = static.run_sync().steps[0].results[0]
    assert result.errored, result
    assert "no latency was recorded for the last interaction" in result.message
    assert (
        "Scenario(target=...)" in result.message and "Interaction(latency_s=...)" in result.message
    )
    by_hand = Trace(interactions=[Interaction(inputs="q", outputs="a")])
    assert Latency(max_seconds=LOOSE).run(by_hand).errored
    assert run_check_sync(Not(check=Latency(max_seconds=LOOSE)), by_hand).errored  # never green
    assert Latency(max_seconds=LOOSE).run(Trace()).errored  # no interaction at all


def test_scope_all_with_a_gap_is_an_error_unless_a_measured_turn_already_fails():
    trace = Trace(
        interactions=[
            Interaction(inputs="a", outputs="x", latency_s=0.2),
            Interaction(inputs="b", outputs="y"),  # not measured
            Interaction(inputs="c", outputs="z", latency_s=0.1),
        ]
    )
    gap = Latency(max_seconds=1.0, scope="all").run(trace)
    assert gap.errored and gap.details["unmeasured_interactions"] == [1]
    assert gap.details["latencies_s"] == [0.2, None, 0.1]
    over = Latency(max_seconds=0.15, scope="all").run(trace)
    assert over.failed and over.details["actual_value"] == 0.2  # decided without the gap
    by_hand = Latency(max_seconds=0.5).run(trace)
    assert by_hand.passed and by_hand.details["actual_value"] == 0.1  # a time given by hand


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "fast"])
def test_a_limit_must_be_a_positive_number_of_seconds(bad):
    with pytest.raises(ValueError, match="max_seconds"):
        Latency(max_seconds=bad)
    with pytest.raises(ValueError, match="scope"):
        Latency(max_seconds=1, scope="any")


async def test_round_trip_by_kind_and_a_timed_trace_round_trip():
    scenario = Scenario("s").interact("q", fast).check(Latency(max_seconds=2.5, scope="all"))
    dumped = json.loads(json.dumps(scenario.steps[0].checks[0].model_dump(mode="json")))
    assert dumped == {
        "kind": "latency",
        "name": None,
        "description": None,
        "max_seconds": 2.5,
        "scope": "all",
    }
    restored = Check.model_validate(dumped)
    assert isinstance(restored, Latency) and restored == Latency(max_seconds=2.5, scope="all")
    result = await scenario.run()
    trace = Trace.model_validate_json(result.final_trace.model_dump_json())
    assert trace.last.latency_s == result.final_trace.last.latency_s
    assert (await run_check(restored, trace)).passed


def test_a_suite_of_async_targets_is_timed_per_call():
    suite = Suite("many", target=slow_async)
    for i in range(8):
        suite.append(Scenario(f"s{i}").interact(f"q{i}").check(Latency(max_seconds=LOOSE)))
    result = suite.run_sync(max_concurrency=8)
    assert result.passed_count == 8
    for scenario_result in result.results:
        assert scenario_result.final_trace.last.latency_s >= SLEEP * 0.9


def test_hub_evaluations_time_the_agent_and_store_it():
    from giskard_nb.hub import Hub

    def agent(messages):
        time.sleep(SLEEP)
        return "We open at 9."

    with Hub(":memory:", actor="tester") as hub:
        project = hub.projects.create("latency")
        dataset = hub.datasets.upload(
            project.id,
            [
                {
                    "messages": [{"role": "user", "content": "When do you open?"}],
                    "checks": [
                        {"identifier": "latency", "params": {"max_seconds": LOOSE}},
                        {"identifier": "latency", "params": {"max_seconds": TIGHT}},
                    ],
                }
            ],
            name="timed",
        )
        evaluation = hub.evaluations.create_local(agent, dataset.id, progress=False)
        (stored,) = hub.evaluations.results.list(evaluation.id)  # read back from the database
    assert [c.status for c in stored.checks] == ["pass", "fail"]
    assert stored.checks[0].threshold == LOOSE
    assert stored.scenario_result.final_trace.last.latency_s >= SLEEP * 0.9
