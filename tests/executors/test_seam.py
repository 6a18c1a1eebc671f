"""The executor seam without Ray: an executor that plays each item in this process, but only through
what a real one sends (the task, the factory and each payload pickled with cloudpickle, the raw outcome
pickled back), so the record-and-replay of scenarios and the conversation/verdict split of scans are
checked against local runs on every machine."""

from __future__ import annotations

import asyncio
import inspect
import pickle

import pytest

from giskard_nb import Equals, Scenario, Suite, from_fn
from giskard_nb.errors import GiskardValidationError
from giskard_nb.executors import Executor, WorkItem

from .agents import obey

try:  # what Ray sends with; the standard pickle otherwise (everything below is importable)
    from ray import cloudpickle as _pickler
except ImportError:
    _pickler = pickle


def through(value):
    """``value`` after a trip across a process boundary."""
    return pickle.loads(_pickler.dumps(value))


class PickledExecutor:
    """Plays items one worker at a time, through pickles (what crosses a process boundary)."""

    def __init__(self, checks_on: str = "caller", workers: int = 2):
        self.checks_on, self.workers, self.built = checks_on, workers, 0
        self.lost_reason: str | None = None

    async def run(self, agent_factory, items, on_result, *, task) -> None:
        factory = through(agent_factory)
        agents = []
        for _ in range(self.workers):
            agents.append(factory())
            self.built += 1
        remote_task = through(task)
        for n, item in enumerate(items):
            if self.lost_reason is not None:
                result = task.lost(item.payload, self.lost_reason)
            else:
                payload = through(item.payload)
                raw = remote_task.on_actor(agents[n % self.workers], payload)
                if inspect.isawaitable(raw):
                    raw = await raw
                raw = through(raw)
                result = await task.in_caller(item.payload, raw)
            out = on_result(item.id, result)
            if inspect.isawaitable(out):
                await out

    def shutdown(self) -> None:
        pass


def agent(inputs):
    if inputs == "boom":
        raise RuntimeError("the agent broke on purpose")
    if said := obey(inputs):  # a scan's attack: it says the code it is told to say
        return said
    return inputs.upper()


def make_agent():
    return agent


def verdicts(result) -> list[tuple]:
    return [
        (
            r.scenario_name,
            r.status,
            r.runs_executed if r.multiple_runs > 1 else None,
            [s.status for s in r.steps],
            [[c.status for c in s.results] for s in r.steps],
            [
                (s.error.exception_type, s.error.phase, s.error.message) if s.error else None
                for s in r.steps
            ],
            [i.outputs for i in r.final_trace.interactions],
        )
        for r in result.results
    ]


async def slow(inputs):
    await asyncio.sleep(2)
    return inputs


def three_turns(trace) -> bool:
    return len(trace.interactions) == 3


class Recorder:
    """A check function that notes each call in its own list (a pickled copy has its own)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, trace) -> bool:
        self.calls += 1
        return True


def a_suite() -> Suite:
    return Suite("seam").extend(
        [
            Scenario("pass").interact("a").check(Equals(expected_value="A")),
            Scenario("fail").interact("a").check(Equals(expected_value="b")),
            Scenario("boom").interact("boom").check(Equals(expected_value="x")),
            Scenario("stops")
            .interact("one")
            .check(Equals(expected_value="nope"))
            .interact("two")
            .check(Equals(expected_value="TWO")),
            Scenario("multi")
            .interact("one")
            .interact("two")
            .check(Equals(expected_value="TWO"))
            .interact("three")
            .check(from_fn(three_turns, name="three turns")),
            Scenario("fixed").interact("q", "given").check(Equals(expected_value="given")),
            Scenario("runs", multiple_runs=3).interact("r").check(Equals(expected_value="R")),
            Scenario("runs-fail", multiple_runs=3).interact("r").check(Equals(expected_value="x")),
            Scenario("late-error")
            .interact("ok")
            .check(Equals(expected_value="OK"))
            .interact("boom")
            .check(Equals(expected_value="x")),
            Scenario("timeout").interact("t", slow).check(Equals(expected_value="t")),
        ]
    )


@pytest.mark.parametrize("checks_on", ["caller", "actors"])
async def test_a_suite_through_the_seam_has_the_verdicts_of_the_local_run(checks_on):
    suite = a_suite()
    local = await suite.run(target=agent, timeout=0.5)
    executor = PickledExecutor(checks_on=checks_on)
    assert isinstance(executor, Executor)
    seen = []
    remote = await suite.run(
        executor=executor,
        agent_factory=make_agent,
        timeout=0.5,
        on_result=lambda i, r: seen.append(i),
    )
    assert verdicts(remote) == verdicts(local)
    assert sorted(seen) == list(range(len(suite.scenarios)))
    assert executor.built == 2
    statuses = [r.status.value for r in remote.results]
    assert statuses == [
        "pass", "fail", "error", "fail", "pass", "pass", "pass", "fail", "error", "error",
    ]  # fmt: skip


async def test_checks_run_in_the_caller_by_default():
    recorder = Recorder()
    suite = Suite("where").extend([Scenario("s").interact("q").check(from_fn(recorder, name="r"))])
    result = await suite.run(executor=PickledExecutor(), agent_factory=make_agent)
    assert result.results[0].passed and recorder.calls == 1  # the caller's own check ran
    result = await suite.run(executor=PickledExecutor(checks_on="actors"), agent_factory=make_agent)
    assert result.results[0].passed and recorder.calls == 1  # a copy ran on the "actor"


async def test_an_item_that_could_not_be_played_is_an_error_result_naming_why():
    executor = PickledExecutor()
    executor.lost_reason = "the Ray actor playing it died 3 times (max_retries=2)"
    suite = a_suite()
    result = await suite.run(executor=executor, agent_factory=make_agent)
    stops = result.results[3]
    assert [s.status.value for s in stops.steps] == ["error", "skip"]
    assert "died 3 times" in stops.steps[0].error.message
    assert stops.steps[0].error.phase == "target"
    assert all(r.status.value == "error" for r in result.results)


async def test_a_run_on_an_executor_checks_its_arguments():
    suite = a_suite()
    with pytest.raises(GiskardValidationError, match="agent_factory="):
        await suite.run(executor=PickledExecutor())
    with pytest.raises(GiskardValidationError, match="instead of target="):
        await suite.run(target=agent, executor=PickledExecutor(), agent_factory=make_agent)
    with pytest.raises(GiskardValidationError, match="executor= must be an Executor"):
        await suite.run(executor=object(), agent_factory=make_agent)
    with pytest.raises(GiskardValidationError, match="return_exception=False"):
        await suite.run(
            executor=PickledExecutor(), agent_factory=make_agent, return_exception=False
        )
    with pytest.raises(GiskardValidationError, match="checks_on"):
        await suite.run(executor=PickledExecutor(checks_on="gpu"), agent_factory=make_agent)


@pytest.mark.parametrize("checks_on", ["caller", "actors"])
async def test_a_scan_through_the_seam_has_the_verdicts_of_the_local_scan(checks_on):
    from giskard_nb.scan import run_scan

    options = {
        "probe_ids": ["injection.direct_override", "injection.multi_turn_escalation"],
        "max_attempts_per_probe": 3,
        "judge": None,
        "generator": None,
    }
    local = await run_scan(agent, **options)
    seen = []
    remote = await run_scan(
        None,
        executor=PickledExecutor(checks_on=checks_on),
        agent_factory=make_agent,
        on_attempt=seen.append,
        **options,
    )

    def verdict(report):
        return sorted(
            (a.attack.id, a.successful, a.severity, a.output, a.error, a.agent_calls, a.reason)
            for a in report.attempts
        )

    assert verdict(remote) == verdict(local)
    assert any(a.successful for a in remote.attempts)
    assert any(len(a.attack.turns) > 1 for a in remote.attempts)
    assert len(seen) == len(remote.attempts) == remote.planned_attacks
    assert (remote.grade, remote.status) == (local.grade, "completed")


async def test_a_scan_on_an_executor_checks_its_arguments():
    from giskard_nb.scan import run_scan

    with pytest.raises(GiskardValidationError, match="pass None as the agent"):
        await run_scan(agent, executor=PickledExecutor(), agent_factory=make_agent)
    with pytest.raises(GiskardValidationError, match="pass executor= too"):
        await run_scan(None, agent_factory=make_agent)


def test_work_items_are_id_and_payload():
    assert WorkItem("1", "x") == ("1", "x")
