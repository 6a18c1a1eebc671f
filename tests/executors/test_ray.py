"""RayExecutor on the tests' local Ray instance (2 CPUs, no dashboard: ``ray_session``, started once).

The agents are built on the actors by factories defined here (this module is pickled by value, so the
workers need not import it); file markers carry what happened on an actor back to the test.
"""

from __future__ import annotations

import functools
import os
import sys
import time
import uuid
from pathlib import Path

import pytest

from giskard_nb import Equals, Scenario, Suite, from_fn
from giskard_nb.errors import AgentError, ConfigError, GiskardValidationError
from giskard_nb.executors import RayExecutor, WorkItem

from .agents import obey

#: Pickled by value with this module (``ray_local``, tests/conftest.py).
RAY_BY_VALUE = (obey.__module__,)


# -- the agent the actors build ------------------------------------------------------------------------


def reply(marks: str, inputs):
    """Upper-cases its input; ``boom`` raises; ``die:<name>`` kills its process the first time;
    ``gate:<name>`` waits (at most 20 s) for the marker ``<name>`` to be written by the caller.
    Given a conversation (a scan), it says the code it is told to say."""
    if said := obey(inputs):
        return said
    if inputs == "boom":
        raise RuntimeError("the agent broke on purpose")
    kind, _, name = inputs.partition(":")
    if kind == "die" and not Path(marks, name).exists():
        Path(marks, name).touch()
        os._exit(1)
    if kind == "gate":
        deadline = time.monotonic() + 20
        while not Path(marks, name).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return "OPEN" if Path(marks, name).exists() else "NEVER OPENED"
    return inputs.upper()


def build_agent(marks: str):
    """The factory: one marker file per call, so the test counts the agents built."""
    Path(marks, f"factory-{uuid.uuid4().hex}").touch()
    return functools.partial(reply, marks)


def reply_here(inputs):
    return reply("", inputs)


def built(marks: Path) -> int:
    return len(list(marks.glob("factory-*")))


@pytest.fixture(scope="module")
def marks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("marks")


@pytest.fixture(scope="module")
def shared(ray_local, marks):
    """Two actors kept for the module (one factory: the agents are built once per actor)."""
    factory = functools.partial(build_agent, str(marks))
    with RayExecutor(num_actors=2, num_cpus_per_actor=0.5) as executor:
        yield executor, factory


def suite_of(*inputs: str, turns: int = 1) -> Suite:
    suite = Suite("ray")
    for i, text in enumerate(inputs):
        scenario = Scenario(f"s{i}")
        for t in range(turns):
            scenario.interact(f"{text}{t or ''}" if turns > 1 else text).check(
                Equals(expected_value=(f"{text}{t or ''}" if turns > 1 else text).upper())
            )
        suite.append(scenario)
    return suite


def verdicts(result) -> list[tuple]:
    return [
        (
            r.scenario_name,
            r.status,
            [s.status for s in r.steps],
            [s.error.summary() if s.error else None for s in r.steps],
            [i.outputs for i in r.final_trace.interactions],
        )
        for r in result.results
    ]


# -- tests ---------------------------------------------------------------------------------------------


async def test_a_suite_on_actors_has_the_verdicts_of_the_local_run(shared, marks):
    suite = suite_of("hello", "boom", "world", "x", "y", "z")
    suite.append(Scenario("fails").interact("a").check(Equals(expected_value="b")))
    suite.append(
        Scenario("stops")
        .interact("one")
        .check(Equals(expected_value="nope"))
        .interact("two")
        .check(Equals(expected_value="TWO"))
    )
    suite.append(suite_of("multi", turns=3).scenarios[0].model_copy(update={"name": "multi"}))
    executor, factory = shared
    local = await suite.run(target=reply_here)
    remote = await suite.run(executor=executor, agent_factory=factory)
    assert built(marks) == 2  # once per actor
    again = await suite.run(executor=executor, agent_factory=factory)
    assert built(marks) == 2  # the same factory: the actors (and their agents) are kept
    assert verdicts(remote) == verdicts(local) == verdicts(again)
    statuses = {r.scenario_name: r.status.value for r in remote.results}
    assert statuses["s1"] == "error" and statuses["fails"] == "fail" and statuses["multi"] == "pass"
    boom = remote.results[1].steps[0].error
    assert (boom.exception_type, boom.phase) == ("RuntimeError", "target")
    stops = remote.results[7]
    assert [s.status.value for s in stops.steps] == ["fail", "skip"]
    assert len(stops.final_trace.interactions) == 1  # as locally: the trace stops at the failure


async def test_results_stream_to_the_caller_before_the_run_ends(shared, marks):
    """The gated item waits for a marker that only the caller's on_result writes when another
    item's result arrives: if results came at the end, it would never open."""
    suite = Suite("stream").extend(
        [
            Scenario("gate").interact("gate:opened").check(Equals(expected_value="OPEN")),
            Scenario("first").interact("a").check(Equals(expected_value="A")),
        ]
    )
    order: list[int] = []

    def on_result(index, result):
        order.append(index)
        Path(marks, "opened").touch()

    executor, factory = shared
    result = await suite.run(executor=executor, agent_factory=factory, on_result=on_result)
    assert order == [1, 0]
    assert [r.status.value for r in result.results] == ["pass", "pass"]


async def test_a_dead_actor_has_its_item_retried_on_a_new_actor(shared, marks):
    suite = suite_of("a", "b", "die:once", "c", "d", "e")
    seen: list[int] = []
    executor, factory = shared
    before = built(marks)
    result = await suite.run(
        executor=executor, agent_factory=factory, on_result=lambda i, r: seen.append(i)
    )
    assert sorted(seen) == list(range(6))  # every item once: none lost, none twice
    assert [r.status.value for r in result.results] == ["pass"] * 6
    assert result.results[2].final_trace.last.outputs == "DIE:ONCE"
    assert built(marks) == before + 1  # the actor that replaced the dead one


async def test_an_item_whose_actors_keep_dying_gets_an_error_result(ray_local, marks):
    suite = Suite("dies").extend(
        [
            Scenario("ok").interact("ok").check(Equals(expected_value="OK")),
            Scenario("dies").interact("die:always").check(Equals(expected_value="x")),
        ]
    )

    def always_die(marks: str):
        agent = build_agent(marks)
        return lambda inputs: os._exit(1) if inputs.startswith("die") else agent(inputs)

    with RayExecutor(
        num_actors=1, num_cpus_per_actor=0.5, max_retries=0, max_in_flight_per_actor=1
    ) as executor:
        result = await suite.run(
            executor=executor, agent_factory=functools.partial(always_die, str(marks))
        )
    ok, dies = result.results
    assert ok.status.value == "pass"
    assert dies.status.value == "error"
    assert "died 1 times (max_retries=0)" in dies.steps[0].error.message


async def test_checks_run_in_the_caller_by_default_and_on_the_actors_when_asked(shared):
    caller = os.getpid()
    here = from_fn(lambda trace: os.getpid() == caller, name="in the caller")
    suite = Suite("where").extend([Scenario("s").interact("q").check(here)])
    executor, factory = shared
    by_default = await suite.run(executor=executor, agent_factory=factory)
    with RayExecutor(num_actors=1, num_cpus_per_actor=0.5, checks_on="actors") as executor:
        on_actors = await suite.run(executor=executor, agent_factory=factory)
    assert by_default.results[0].status.value == "pass"
    assert on_actors.results[0].status.value == "fail"
    assert on_actors.results[0].final_trace.last.outputs == "Q"


async def test_a_factory_that_raises_is_a_clear_error(ray_local):
    def broken():
        raise OSError("no such model file: weights.bin")

    with (
        RayExecutor(num_actors=1, num_cpus_per_actor=0.5) as executor,
        pytest.raises(AgentError, match="weights.bin"),
    ):
        await suite_of("a").run(executor=executor, agent_factory=broken)


async def test_a_scan_on_actors_has_the_verdicts_of_the_local_scan(shared):
    from giskard_nb.scan import run_scan

    options = {
        "probe_ids": ["injection.direct_override", "injection.multi_turn_escalation"],
        "max_attempts_per_probe": 3,
        "judge": None,
        "generator": None,
    }
    local = await run_scan(reply_here, **options)
    seen = []
    executor, factory = shared
    remote = await run_scan(
        None, executor=executor, agent_factory=factory, on_attempt=seen.append, **options
    )

    def verdict(report):
        return sorted(
            (a.attack.id, a.successful, a.severity, a.output, a.error) for a in report.attempts
        )

    assert verdict(remote) == verdict(local)
    assert any(a.successful for a in remote.attempts)
    assert any(len(a.attack.turns) > 1 for a in remote.attempts)  # multi-turn attacks played
    assert len(seen) == len(remote.attempts) == remote.planned_attacks
    assert remote.grade == local.grade and remote.status == "completed"


async def test_bad_arguments_are_clear_errors(shared):
    with pytest.raises(GiskardValidationError, match="num_actors"):
        RayExecutor(num_actors=0)
    with pytest.raises(GiskardValidationError, match="checks_on"):
        RayExecutor(checks_on="gpu")
    suite = suite_of("a")
    with pytest.raises(GiskardValidationError, match="agent_factory"):
        await suite.run(executor=RayExecutor(num_actors=1))
    with pytest.raises(GiskardValidationError, match="executor="):
        await suite.run(agent_factory=lambda: str.upper)
    executor, factory = shared
    items = [WorkItem("same", 1), WorkItem("same", 2)]
    with pytest.raises(GiskardValidationError, match="id 'same'"):
        await executor.run(factory, items, lambda i, r: None, task=_Echo())


class _Echo:
    async def on_actor(self, agent, payload):
        return payload

    async def in_caller(self, payload, raw):
        return raw

    def lost(self, payload, reason):
        return reason


async def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"giskard-nb\[ray\]"):
        await suite_of("a").run(executor=RayExecutor(num_actors=1), agent_factory=lambda: str.upper)


def test_importing_giskard_nb_does_not_import_ray():
    import subprocess

    code = "import giskard_nb, giskard_nb.executors, sys; print('ray' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "False"


async def test_a_local_ray_that_does_not_start_is_a_clear_error_after_a_second_try(monkeypatch):
    calls: list = []

    class NoStart:  # stands for the ray module: its node never starts
        def is_initialized(self):
            return False

        def init(self, **options):
            calls.append(options)
            raise RuntimeError("The current node timed out during startup.")

        def shutdown(self):
            calls.append("shutdown")

    monkeypatch.setitem(sys.modules, "ray", NoStart())
    executor = RayExecutor(num_actors=2)
    with pytest.raises(ConfigError, match="could not start a local Ray instance: RuntimeError"):
        await suite_of("a").run(executor=executor, agent_factory=lambda: str.upper)
    options = {"log_to_driver": False, "include_dashboard": False, "num_cpus": 2}
    assert calls == [options, "shutdown", options, "shutdown"]
    executor.shutdown()  # nothing was started: nothing to stop
