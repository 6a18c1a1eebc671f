"""Interaction.latency_s: every call of a target is timed; static outputs are not.

The sleeps are 0.05 s and the assertions only say "at least the sleep" (a lower bound the clock
guarantees), never an upper bound on the suite's own speed.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from giskard_nb import Interact, Interaction, Scenario, Trace
from giskard_nb.llm import recording

SLEEP = 0.05
AT_LEAST = SLEEP * 0.9  # asyncio may wake a timer up to its clock resolution early


def slow_sync(inputs):
    time.sleep(SLEEP)
    return f"sync {inputs}"


async def slow_async(inputs):
    await asyncio.sleep(SLEEP)
    return f"async {inputs}"


@pytest.mark.parametrize("target", [slow_sync, slow_async])
def test_a_called_target_is_timed(target):
    result = Scenario("timed", target=target).interact("a").interact("b").run_sync()
    latencies = [i.latency_s for i in result.final_trace.interactions]
    assert len(latencies) == 2 and all(s >= AT_LEAST for s in latencies), latencies


def test_static_outputs_are_not_timed_and_outputs_callables_are():
    result = (
        Scenario("mixed")
        .interact("q", "static answer")
        .interact("q2", lambda inputs: "computed")
        .run_sync()
    )
    static, computed = result.final_trace.interactions
    assert static.latency_s is None
    assert isinstance(computed.latency_s, float) and computed.latency_s >= 0


async def test_an_interaction_returned_by_the_outputs_keeps_its_own_latency():
    def reports(inputs):
        return Interaction(inputs=inputs, outputs="x", latency_s=12.5)

    def plain(inputs):
        time.sleep(SLEEP)
        return Interaction(inputs=inputs, outputs="y", metadata={"m": 1})

    trace = await Trace.from_interactions(
        Interact("a", reports), Interact("b", plain, metadata={"spec": True})
    )
    first, second = trace.interactions
    assert first.latency_s == 12.5  # the agent's own figure wins
    assert second.latency_s >= AT_LEAST and second.metadata == {"spec": True, "m": 1}


def test_latency_round_trips_and_old_dumps_load():
    trace = Trace(interactions=[Interaction(inputs="q", outputs="a", latency_s=0.25)])
    dumped = json.loads(trace.model_dump_json())
    assert dumped["interactions"][0]["latency_s"] == 0.25
    assert Trace.model_validate(dumped) == trace
    old = {"interactions": [{"inputs": "q", "outputs": "a", "metadata": {}}]}  # before latency_s
    assert Trace.model_validate(old).interactions[0].latency_s is None


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "fast"])
def test_a_latency_must_be_a_finite_number_of_seconds(bad):
    with pytest.raises(ValueError, match="latency_s"):
        Interaction(inputs="q", outputs="a", latency_s=bad)


def test_a_replayed_call_gives_the_recorded_latency(tmp_path):
    path = tmp_path / "run.jsonl"
    calls = []

    def agent(inputs):
        calls.append(inputs)
        time.sleep(SLEEP)
        return "reply"

    with recording(path, mode="record"):
        first = Scenario("s", target=agent).interact("q").run_sync()
    line = json.loads(path.read_text().splitlines()[1])
    assert line["value"]["latency_s"] >= AT_LEAST
    with recording(path, mode="replay"):
        again = Scenario("s", target=agent).interact("q").run_sync()
    assert calls == ["q"]  # the replay did not call the agent...
    # ...and reports the time the recorded call took, not the (near zero) time of the replay
    assert again.final_trace.last.latency_s == first.final_trace.last.latency_s


def test_a_recording_made_before_calls_were_timed_replays_no_latency(tmp_path):
    path = tmp_path / "old.jsonl"

    def agent(inputs):
        return "reply"

    with recording(path, mode="record"):
        Scenario("s", target=agent).interact("q").run_sync()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    del lines[1]["value"]["latency_s"]  # what an older release wrote
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with recording(path, mode="replay"):
        again = Scenario("s", target=agent).interact("q").run_sync()
    assert again.final_trace.last.outputs == "reply"
    assert again.final_trace.last.latency_s is None
