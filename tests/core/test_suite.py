from __future__ import annotations

import asyncio
import threading
import time
import xml.etree.ElementTree as ET

import pytest

from giskard_nb import Check, CheckResult, Equals, Scenario, Suite, from_fn


def echo(prefix):
    return lambda inputs: f"{prefix}:{inputs}"


async def test_target_precedence_run_over_suite_over_scenario():
    s = Scenario("s", target=echo("scenario")).interact("x")
    explicit = Scenario("explicit", target=echo("scenario")).interact("x", "fixed")
    assert (await Suite("a", scenarios=[s]).run()).results[
        0
    ].final_trace.last.outputs == "scenario:x"
    suite = Suite("b", target=echo("suite"), scenarios=[s, explicit])
    r = await suite.run()
    assert [x.final_trace.last.outputs for x in r.results] == ["suite:x", "fixed"]
    r = await suite.run(target=echo("run"))
    assert [x.final_trace.last.outputs for x in r.results] == ["run:x", "fixed"]


async def test_results_keep_input_order_and_concurrency_is_bounded():
    running = {"now": 0, "peak": 0}

    async def agent(inputs):
        running["now"] += 1
        running["peak"] = max(running["peak"], running["now"])
        await asyncio.sleep(0.01 * (inputs % 3))
        running["now"] -= 1
        return inputs

    suite = Suite("s", target=agent)
    for i in range(30):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    seen = []
    r = await suite.run(max_concurrency=4, on_result=lambda i, res: seen.append(i))
    assert [x.scenario_name for x in r.results] == [f"s{i}" for i in range(30)]
    assert r.passed_count == 30 and sorted(seen) == list(range(30))
    assert running["peak"] == 4
    running["peak"] = 0
    await suite.run(parallel=False)
    assert running["peak"] == 1


async def test_an_async_on_result_is_awaited_and_run_scenarios_takes_a_lazy_iterable():
    from giskard_nb.core.suite import run_scenarios

    async def agent(inputs):
        await asyncio.sleep(0)
        return inputs

    suite = Suite("s", target=agent)
    for i in range(6):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    seen = []

    async def on_result(index, result):
        await asyncio.sleep(0)
        seen.append((index, result.status.value))

    r = await suite.run(max_concurrency=3, on_result=on_result)
    assert r.passed_count == 6 and sorted(seen) == [(i, "pass") for i in range(6)]

    built = []

    def lazy():
        for i in range(5):
            built.append(i)  # built when a worker pulls it
            yield Scenario(f"l{i}").interact(i).check(Equals(expected_value=i))

    got = []
    await run_scenarios(lazy(), agent, max_concurrency=2, on_result=lambda i, res: got.append(i))
    assert built == list(range(5)) and sorted(got) == list(range(5))
    with pytest.raises(ValueError, match="size="):
        await run_scenarios(lazy(), agent, max_concurrency=None)


@pytest.mark.parametrize(
    ("bad", "error"), [(0, ValueError), (-1, ValueError), (True, TypeError), (1.5, TypeError)]
)
async def test_invalid_max_concurrency(bad, error):
    with pytest.raises(error, match="max_concurrency"):
        await Suite("s").run(max_concurrency=bad)


@Check.register("test_suite_skip")
class Skip(Check):
    def run(self, trace):
        return CheckResult.skip("n/a")


async def test_counts_and_pass_rate_excluding_skips():
    suite = Suite("s").extend(
        [
            Scenario("p").interact("a", "a").check(Equals(expected_value="a")),
            Scenario("f").interact("a", "a").check(Equals(expected_value="b")),
            Scenario("e").interact("a", lambda inputs: 1 / 0),
            Scenario("k").interact("a", "a").check(Skip()),
        ]
    )
    r = await suite.run()
    assert (r.passed_count, r.failed_count, r.errored_count, r.skipped_count) == (1, 1, 1, 1)
    assert r.pass_rate == pytest.approx(1 / 3)
    assert [x.scenario_name for x in r.failures] == ["f", "e"]
    assert (await Suite("empty").run()).pass_rate is None
    with pytest.raises(AssertionError, match="2 of 4 scenarios did not pass"):
        r.assert_passed()


async def test_group_by_tag_values():
    suite = Suite("s").extend(
        [
            Scenario("a", tags=["topic:billing", "smoke"])
            .interact("x", "x")
            .check(Equals(expected_value="x")),
            Scenario("b", tags=["topic:billing"])
            .interact("x", "x")
            .check(Equals(expected_value="y")),
            Scenario("c", tags=["topic:shipping"]).interact("x", "x"),
            Scenario("d").interact("x", "x"),
        ]
    )
    r = await suite.run()
    groups = r.group_by("topic").groups
    assert groups["billing"].passed == 1 and groups["billing"].failed == 1
    assert groups["billing"].pass_rate == 0.5
    assert groups["shipping"].total == 1 and groups[None].total == 1
    assert r.group_by("smoke").groups["true"].passed == 1


async def test_junit_xml(tmp_path):
    suite = Suite("ci").extend(
        [
            Scenario("ok").interact("x", "x").check(Equals(expected_value="x")),
            Scenario("bad <&>").interact("x", "x\x01").check(Equals(expected_value="y")),
            Scenario("err").interact("x", lambda inputs: 1 / 0),
        ]
    )
    r = await suite.run()
    path = tmp_path / "out" / "junit.xml"
    xml = r.to_junit_xml(path)
    root = ET.fromstring(path.read_text().split("?>", 1)[1])
    assert xml == path.read_text()
    assert root.get("tests") == "3" and root.get("failures") == "1" and root.get("errors") == "1"
    cases = root.findall("testcase")
    assert cases[1].get("name") == "bad <&>" and cases[1].find("failure") is not None
    assert cases[2].find("error") is not None


async def test_return_exception_false_propagates_from_a_suite():
    suite = Suite("s").extend([Scenario("e").interact("x", lambda inputs: 1 / 0)])
    with pytest.raises(ZeroDivisionError):
        await suite.run(return_exception=False)


async def test_report_and_html(capsys):
    suite = Suite("s").extend(
        [
            Scenario("ok", tags=["t:a"]).interact("x", "x").check(Equals(expected_value="x")),
            Scenario("<script>")
            .interact("x", "<script>x</script>")
            .check(from_fn(lambda t: False)),
        ]
    )
    r = await suite.run()
    r.print_report(group_by="t")
    out = capsys.readouterr().out
    assert ".F" in out and "pass rate 50.0% [95% CI 9.5%–90.5%] (2 of 2 judged; 0 errored)" in out
    assert "a: 1 passed, pass rate 100% [95% CI 21%–100%] (1 of 1 judged; 0 errored)" in out
    assert "<script>" not in r._repr_html_()
    assert "1 passed" in repr(r)


def test_suite_run_sync():
    suite = Suite("s", target=lambda inputs: inputs).append(
        Scenario("a").interact("x").check(Equals(expected_value="x"))
    )
    assert suite.run_sync().passed_count == 1


# -- sync targets run concurrently, on worker threads -----------------------------------------------------


async def test_sync_targets_run_concurrently_up_to_max_concurrency():
    parties = 12  # more than the default thread pool gives on a small machine
    barrier = threading.Barrier(parties, timeout=10)

    def target(inputs):
        barrier.wait()  # only returns once all the scenarios are inside the target at the same time
        return inputs

    suite = Suite("s", target=target)
    for i in range(parties):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    r = await suite.run(max_concurrency=parties)
    assert r.passed_count == parties, r


async def test_max_concurrency_still_bounds_sync_targets():
    lock = threading.Lock()
    running = {"now": 0, "peak": 0}

    def target(inputs):
        with lock:
            running["now"] += 1
            running["peak"] = max(running["peak"], running["now"])
        time.sleep(0.01)
        with lock:
            running["now"] -= 1
        return inputs

    suite = Suite("s", target=target)
    for i in range(20):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    r = await suite.run(max_concurrency=3)
    assert r.passed_count == 20 and running["peak"] <= 3


def test_a_hung_sync_target_errors_at_the_deadline_and_the_others_pass():
    release = threading.Event()

    def target(inputs):
        if inputs == "hang":
            release.wait(20)
        return inputs

    suite = Suite("s", target=target)
    for text in ["a", "hang", "b", "c"]:
        suite.append(Scenario(text).interact(text).check(Equals(expected_value=text)))
    try:
        r = suite.run_sync(timeout=0.5, max_concurrency=2)
        assert not release.is_set()  # returned while the hung target still waits
    finally:
        release.set()
    assert [x.status.value for x in r.results] == ["pass", "error", "pass", "pass"]
    assert r.results[1].steps[0].error.phase == "timeout"
