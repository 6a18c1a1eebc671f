"""EvaluationRunner, headless: background runs with live counters, cancel, open results."""

from __future__ import annotations

import asyncio
import importlib
import threading

import pytest

from giskard_nb import EvaluationRunner, GiskardValidationError, Scenario, StringMatching, Suite
from giskard_nb.widgets.evaluation_runner import offload_sync_agent

samples = importlib.import_module("frontend_samples")


async def test_run_button_runs_in_the_background_and_opens_results():
    seen = []
    runner = EvaluationRunner(
        {"support": samples.agent}, {"sample": samples.build_suite()}, on_finish=seen.append
    )
    assert runner._w["state"].value.startswith("Pick an agent")
    runner._w["run"].click()
    assert runner.job is not None and runner.job.mode == "task"
    assert runner.state == "running" and runner._w["run"].disabled
    result = await runner.job
    assert runner.state == "finished"
    assert runner.counts == {"pass": 2, "fail": 2, "error": 1, "skip": 0}
    assert runner._w["progress"].value == 5
    assert "2 passed" in runner._w["counters"].value and "1 errored" in runner._w["counters"].value
    assert seen == [result] and runner.result is result
    assert runner.viewer is not None and runner._w["results"].children == (runner.viewer.widget,)
    assert not runner._w["open"].disabled and not runner._w["run"].disabled


async def test_sync_agents_do_not_block_the_event_loop():
    release = threading.Event()

    def slow_agent(inputs):
        release.wait(5)
        return "hello"

    suite = Suite(
        "s", scenarios=[Scenario("a").interact("x").check(StringMatching(keyword="hello"))]
    )
    runner = EvaluationRunner(slow_agent, suite)
    job = runner.run()
    ticks = 0
    while ticks < 5:  # the loop keeps turning while the agent is busy on a worker thread
        await asyncio.sleep(0.01)
        ticks += 1
    assert not job.done()
    release.set()
    assert (await job).passed_count == 1


async def test_cancel_keeps_finished_results():
    gate = asyncio.Event()

    async def agent(inputs):
        if inputs == "slow":
            await gate.wait()
        return "hello"

    scenarios = [Scenario("fast").interact("fast").check(StringMatching(keyword="hello"))]
    scenarios += [Scenario(f"slow {i}").interact("slow") for i in range(3)]
    runner = EvaluationRunner(agent, scenarios, max_concurrency=1)
    job = runner.run()
    while not runner.counts["pass"]:
        await asyncio.sleep(0.005)
    runner._w["cancel"].click()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert runner.state == "cancelled" and job.cancelled
    assert [r.scenario_name for r in runner.result.results] == ["fast"]
    assert "Cancelled after 1 of 4" in runner._w["state"].value
    assert runner.cancel() is False  # nothing left to cancel


def test_script_mode_runs_on_a_thread():
    runner = EvaluationRunner(samples.agent, samples.build_suite())
    job = runner.run()
    assert job.mode == "thread"
    assert job.wait(10).failed_count == 2
    assert runner.open_results().items[0].name == "greets"


def test_bad_input_is_explained():
    with pytest.raises(GiskardValidationError, match="needs agents="):
        EvaluationRunner(samples.agent)
    runner = EvaluationRunner(samples.agent, {"d": [Scenario("a").interact("x")]})
    with pytest.raises(GiskardValidationError, match="unknown dataset 'nope'.*'d'"):
        runner.run(dataset="nope")
    with pytest.raises(GiskardValidationError, match="run\\(\\) first"):
        runner.open_results()
    bad = EvaluationRunner(samples.agent, {"d": ["not a scenario"]})
    with pytest.raises(GiskardValidationError, match="give a Suite or a list of Scenarios"):
        bad.run()


async def test_offload_keeps_parameter_injection():
    def agent(trace, inputs):
        return f"{inputs}:{len(trace.interactions)}"

    wrapped = offload_sync_agent(agent)
    assert asyncio.iscoroutinefunction(wrapped)
    result = await Scenario("s").interact("hi").run(wrapped)
    assert result.final_trace.last.outputs == "hi:0"

    async def already_async(inputs):
        return inputs

    assert offload_sync_agent(already_async) is already_async
    assert offload_sync_agent("static answer") == "static answer"
