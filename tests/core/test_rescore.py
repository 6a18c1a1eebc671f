"""SuiteResult.rescore: checks re-run on the stored traces, never the agent."""

from __future__ import annotations

import pytest

from giskard_nb import Equals, Scenario, Suite, SuiteResult, from_fn
from giskard_nb.errors import GiskardValidationError


class Agent:
    """Answers ``inputs`` upper-cased until ``locked``; then any call raises."""

    def __init__(self):
        self.calls = 0
        self.locked = False

    def __call__(self, inputs):
        if self.locked:
            raise AssertionError("the agent was called during a re-score")
        self.calls += 1
        if inputs == "boom":
            raise RuntimeError("agent down")
        return inputs.upper()


def _run(agent, **kwargs):
    suite = Suite("v1", target=agent)
    suite.append(Scenario("a").interact("ok").check(Equals(expected_value="OK", name="exact")))
    suite.append(Scenario("b").interact("no").check(Equals(expected_value="OK", name="exact")))
    suite.append(Scenario("c").interact("boom").check(Equals(expected_value="OK", name="exact")))
    return suite.run_sync(**kwargs)


def test_rescore_with_new_checks_never_calls_the_agent():
    agent = Agent()
    first = _run(agent)
    assert [r.status.value for r in first.results] == ["pass", "fail", "error"]
    agent.locked = True
    new = first.rescore_sync([Equals(expected_value="NO", name="no")], name="v2")
    assert new.name == "v2" and agent.calls == 3
    assert [r.status.value for r in new.results] == ["fail", "pass", "error"]
    assert [c.check_name for c in new.results[1].check_results] == ["no"]
    assert new.results[1].final_trace == first.results[1].final_trace
    errored = new.results[2]
    assert errored.steps[0].error.phase == "target" and errored.check_results[0].skipped
    assert "agent down" in errored.error
    test = first.compare(new)
    assert (test.better, test.worse) == (1, 1)


def test_rescore_with_the_suites_own_checks_step_by_step():
    agent = Agent()
    limits = {"min_len": 1}
    check = from_fn(lambda t: len(t.last.outputs) >= limits["min_len"], name="long")
    suite = Suite("s", target=agent).append(
        Scenario("two steps").interact("hi").check(check).interact("hello").check(check)
    )
    first = suite.run_sync()
    assert first.results[0].passed and len(first.results[0].steps) == 2
    agent.locked = True
    limits["min_len"] = 3  # "HI" now fails: the second step is skipped as in a normal run
    strict = first.rescore_sync()
    steps = strict.results[0].steps
    assert steps[0].status.value == "fail" and steps[1].status.value == "skip"
    assert "previous failure" in steps[1].results[0].message
    limits["min_len"] = 5  # the first step sees only "HI": step checks run on the trace prefix
    assert strict.rescore_sync().results[0].steps[0].status.value == "fail"
    limits["min_len"] = 2
    again = strict.rescore_sync()  # a re-scored result re-scores again
    assert again.results[0].passed and agent.calls == 2


def test_a_step_the_original_run_never_reached_stays_skipped():
    agent = Agent()
    gate = {"open": False}
    check = from_fn(lambda t: gate["open"], name="gate")
    suite = Suite("s", target=agent).append(
        Scenario("x").interact("a").check(check).interact("b").check(Equals(expected_value="B"))
    )
    first = suite.run_sync()
    agent.locked = True
    gate["open"] = True
    new = first.rescore_sync()
    first_step, second = new.results[0].steps
    assert first_step.status.value == "pass" and second.status.value == "skip"
    assert "not run in the stored result" in second.results[0].message


def test_rescore_keeps_repeats_and_needs_checks_for_a_loaded_result():
    agent = Agent()
    first = _run(agent, repeats=2, parallel=False)
    agent.locked = True
    new = first.rescore_sync([Equals(expected_value="OK", name="exact")])
    assert [(r.case_index, r.repeat) for r in new.results] == [
        (r.case_index, r.repeat) for r in first.results
    ]
    assert new.repeats == 2 and new.pass_rate == first.pass_rate
    own = first.rescore_sync()  # the suite's own checks, found by case_index
    assert [r.status.value for r in own.results] == [r.status.value for r in first.results]
    extra = first.model_copy(update={"results": [*first.results, first.results[0]]})
    extra._scenarios = first.scenarios[:1]
    with pytest.raises(GiskardValidationError, match="has no scenario in the suite"):
        extra.rescore_sync()
    loaded = SuiteResult.model_validate_json(first.model_dump_json())
    assert loaded.scenarios is None
    with pytest.raises(GiskardValidationError, match="pass checks="):
        loaded.rescore_sync()
    assert loaded.rescore_sync([Equals(expected_value="OK")]).passed_count == 2
    with pytest.raises(GiskardValidationError, match="non-empty list of Checks"):
        first.rescore_sync([lambda t: True])
