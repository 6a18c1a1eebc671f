from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from giskard_nb import (
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    Scenario,
    StringMatching,
    Trace,
    from_fn,
    run_sync,
)


def test_fluent_builder_groups_steps():
    s = (
        Scenario("s")
        .interact("a", "1")
        .interact("b", "2")
        .check(Equals(expected_value="2"))
        .check(StringMatching(keyword="2"))
        .interact("c", "3")
        .checks(Equals(expected_value="3"))
    )
    assert [len(step.interacts) for step in s.steps] == [2, 1]
    assert [len(step.checks) for step in s.steps] == [2, 1]
    assert s.name == "s" and Scenario(name="t").name == "t"


async def test_a_check_first_runs_on_an_empty_trace():
    r = await Scenario("s").check(from_fn(lambda trace: trace.last is None)).run()
    assert r.passed


async def test_first_failing_step_stops_and_later_steps_are_skipped():
    calls = []

    def agent(inputs):
        calls.append(inputs)
        return inputs

    r = await (
        Scenario("s", target=agent)
        .interact("a")
        .check(Equals(expected_value="z", name="wrong"))
        .interact("b")
        .check(Equals(expected_value="b", name="later"))
        .run()
    )
    assert r.status is CheckStatus.FAIL
    assert [s.status for s in r.steps] == [CheckStatus.FAIL, CheckStatus.SKIP]
    assert calls == ["a"]
    assert "skipped" in r.steps[1].results[0].message
    assert r.steps[1].results[0].check_name == "later"


async def test_checks_within_a_step_all_run():
    r = await (
        Scenario("s")
        .interact("a", "b")
        .check(Equals(expected_value="z", name="one"))
        .check(Equals(expected_value="b", name="two"))
        .run()
    )
    assert [c.status for c in r.steps[0].results] == [CheckStatus.FAIL, CheckStatus.PASS]


async def test_a_skipped_step_does_not_stop_the_scenario():
    @Check.register("test_scenario_always_skip")
    class AlwaysSkip(Check):
        def run(self, trace):
            return CheckResult.skip("not applicable")

    r = await (
        Scenario("s")
        .interact("a", "a")
        .check(AlwaysSkip())
        .interact("b", "b")
        .check(Equals(expected_value="b"))
        .run()
    )
    assert [s.status for s in r.steps] == [CheckStatus.SKIP, CheckStatus.PASS]
    assert r.status is CheckStatus.PASS


@pytest.mark.parametrize(
    ("scenario", "phase"),
    [
        (Scenario("s").interact("a", lambda inputs: 1 / 0), "target"),
        (Scenario("s").interact(lambda: 1 / 0, "b"), "input_generation"),
    ],
)
async def test_exceptions_become_errors_naming_their_phase(scenario, phase):
    r = await scenario.check(Equals(expected_value="b")).interact("x", "y").run()
    assert r.errored
    err = r.steps[0].error
    assert err.phase == phase and err.exception_type == "ZeroDivisionError"
    assert "ZeroDivisionError" in err.traceback
    assert r.steps[1].skipped
    assert phase in r.error


async def test_a_raising_check_is_an_error_result():
    def boom(trace):
        raise KeyError("nope")

    r = await Scenario("s").interact("a", "b").check(from_fn(boom, name="boom")).run()
    assert r.errored
    result = r.steps[0].results[0]
    assert result.errored and "KeyError" in result.message and result.details["phase"] == "check"


async def test_return_exception_false_reraises_the_original():
    with pytest.raises(ZeroDivisionError):
        await Scenario("s").interact("a", lambda inputs: 1 / 0).run(return_exception=False)


async def test_multiple_runs_requires_every_run_to_pass():
    count = {"n": 0}

    def flaky(inputs):
        count["n"] += 1
        return "ok" if count["n"] < 3 else "bad"

    r = (
        await Scenario("s", multiple_runs=5)
        .interact("q", flaky)
        .check(Equals(expected_value="ok"))
        .run()
    )
    assert r.failed and r.runs_executed == 3 and r.multiple_runs == 5
    r = (
        await Scenario("s")
        .interact("q", "ok")
        .check(Equals(expected_value="ok"))
        .run(multiple_runs=4)
    )
    assert r.passed and r.runs_executed == 4
    with pytest.raises(ValueError, match="multiple_runs"):
        await Scenario("s").run(multiple_runs=0)


async def test_timeout_is_an_error_with_the_partial_trace():
    async def slow(inputs):
        if inputs == "slow":
            await asyncio.sleep(5)
        return inputs

    r = await (
        Scenario("s", target=slow)
        .interact("fast")
        .check(Equals(expected_value="fast"))
        .interact("slow")
        .check(Equals(expected_value="slow"))
        .run(timeout=0.2)
    )
    assert r.errored and r.steps[0].passed
    assert r.steps[1].error.phase == "timeout"
    assert len(r.final_trace.interactions) == 1


class CountingTrace(Trace):
    @property
    def turns(self) -> int:
        return len(self.interactions)


async def test_custom_trace_type_and_annotations_reach_checks():
    seen = {}

    def check(trace):
        seen["type"] = type(trace)
        seen["annotations"] = trace.annotations
        return trace.turns == 1

    r = await (
        Scenario("s", trace_type=CountingTrace, annotations={"tenant": "acme"})
        .interact("a", "b")
        .check(from_fn(check))
        .run()
    )
    assert r.passed and seen == {"type": CountingTrace, "annotations": {"tenant": "acme"}}
    dumped = Scenario("s", trace_type=CountingTrace).model_dump(mode="json")
    assert dumped["trace_type"].endswith("CountingTrace")
    assert Scenario.model_validate(dumped).trace_type is CountingTrace


async def test_assert_passed_lists_the_failures():
    r = await (
        Scenario("checkout")
        .interact("a", "b")
        .check(Equals(expected_value="c", name="exact answer"))
        .run()
    )
    with pytest.raises(AssertionError) as info:
        r.assert_passed()
    assert "checkout" in str(info.value) and "exact answer FAIL" in str(info.value)
    ok = await Scenario("ok").interact("a", "b").check(Equals(expected_value="b")).run()
    ok.assert_passed()
    unchecked = await Scenario("unchecked").interact("a", "b").run()
    with pytest.raises(AssertionError, match=r"SKIP: nothing passed.*\(no checks\)"):
        unchecked.assert_passed()


async def test_reports_and_html_escape_agent_output(capsys):
    payload = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    r = await Scenario("<b>name</b>").interact("q", payload).check(Equals(expected_value="z")).run()
    html = r._repr_html_()
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert "<b>name</b>" not in html
    r.print_report()
    out = capsys.readouterr().out
    assert "FAIL" in out and "step 1" in out


def test_run_sync_in_a_script_and_inside_a_running_loop():
    s = Scenario("s").interact("a", "a").check(Equals(expected_value="a"))
    assert s.run_sync().passed

    async def inside_loop():
        return s.run_sync()

    assert asyncio.run(inside_loop()).passed
    assert run_sync(s.run()).passed


def test_tags_are_validated():
    with pytest.raises(ValueError, match="non-empty"):
        Scenario("s", tags=[""])
    assert Scenario("s").with_tags("topic:billing", "smoke").tags == ["topic:billing", "smoke"]


def test_run_sync_inside_a_loop_cancels_leftover_tasks_cleanly(recwarn):
    async def agent(inputs):
        asyncio.get_running_loop().create_task(asyncio.sleep(10))  # a library's background task
        return inputs

    async def inside_loop():
        return Scenario("s", target=agent).interact("a").run_sync()

    result = asyncio.run(inside_loop())
    assert result.skipped and not result.error  # no checks: SKIP, and the agent ran cleanly
    assert not [w for w in recwarn if "destroyed but it is pending" in str(w.message)]


# -- sync targets run on worker threads; a timeout is a deadline ------------------------------------------

HANG_VAR: contextvars.ContextVar[str] = contextvars.ContextVar(
    "test_scenario_hang", default="unset"
)


@pytest.fixture
def release():
    """Hung sync code waits on this event; it is set at teardown so abandoned threads end."""
    event = threading.Event()
    yield event
    event.set()


def _hung_scenario(release: threading.Event) -> Scenario:
    def target(inputs):
        release.wait(20)
        return "late"

    return Scenario("hung", target=target).interact("hi").check(StringMatching(keyword="late"))


def test_a_hung_sync_target_times_out_at_the_deadline(release):
    r = _hung_scenario(release).run_sync(timeout=0.3)
    assert not release.is_set()  # returned while the target is still hanging
    assert r.errored and r.steps[0].error.phase == "timeout"
    assert "did not finish within 0.3 s" in r.steps[0].error.message
    assert r.steps[0].results[0].status == CheckStatus.SKIP


def test_a_hung_sync_target_times_out_inside_a_running_loop(release):
    async def notebook_cell():
        return _hung_scenario(release).run_sync(timeout=0.3)  # run_sync's worker-thread path

    r = asyncio.run(notebook_cell())
    assert not release.is_set() and r.errored and r.steps[0].error.phase == "timeout"


async def test_a_hung_sync_target_raises_timeout_without_return_exception(release):
    with pytest.raises(TimeoutError):
        await _hung_scenario(release).run(timeout=0.3, return_exception=False)
    assert not release.is_set()


async def test_cancelling_a_run_abandons_the_hung_sync_target(release):
    started = threading.Event()

    def target(inputs):
        started.set()
        release.wait(20)
        return "late"

    task = asyncio.ensure_future(Scenario("s", target=target).interact("hi").run())
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not release.is_set()


async def test_sync_code_runs_off_the_event_loop_with_the_callers_context():
    HANG_VAR.set("caller")
    loop_thread = threading.current_thread()
    seen = []

    def inputs(trace):
        seen.append(threading.current_thread())
        return "q"

    def turns(trace):
        seen.append(threading.current_thread())
        trace = yield "t1"
        seen.append(threading.current_thread())
        yield f"t2 after {trace.last.outputs}"

    def target(inputs):
        seen.append(threading.current_thread())
        return f"{inputs}:{HANG_VAR.get()}"

    r = await (
        Scenario("s", target=target)
        .interact(inputs)
        .interact(turns)
        .check(Equals(expected_value="t2 after t1:caller:caller", key="trace.last.outputs"))
        .run()
    )
    assert r.passed, r
    assert seen and all(t is not loop_thread for t in seen)


def test_hung_sync_inputs_time_out_too(release):
    def inputs(trace):
        release.wait(20)
        return "late"

    def turns(trace):
        yield "first"
        release.wait(20)
        yield "late"

    for spec in (inputs, turns):
        r = Scenario("s", target=lambda x: x).interact(spec).run_sync(timeout=0.3)
        assert r.errored and r.steps[0].error.phase == "timeout", r
    assert not release.is_set()
