"""Honest statuses: no checks is SKIP "no checks", assert_passed refuses all-skipped results, and the
one pass-rate definition (skips left out, errors count as not passed, None when nothing was judged)."""

from __future__ import annotations

import pytest

from giskard_nb import (
    CheckResult,
    CheckStatus,
    Equals,
    Interaction,
    PassRate,
    Scenario,
    Suite,
    SuiteResult,
    TestCase,
    Trace,
    from_fn,
)
from giskard_nb.core.pass_rate import pass_rate
from giskard_nb.core.result import roll_up

TRACE = Trace(interactions=[Interaction(inputs="q", outputs="a")])


def test_a_test_case_without_checks_is_skip_no_checks():
    result = TestCase(trace=TRACE, checks=[]).run_sync()
    assert result.status is CheckStatus.SKIP and result.skip_reason == "no checks"
    with pytest.raises(AssertionError, match=r"nothing passed.*no checks"):
        result.assert_passed()


def test_assert_passed_raises_when_every_check_was_skipped():
    skipper = from_fn(lambda t: CheckResult.skip("not applicable here"), name="skipper")
    result = TestCase(trace=TRACE, checks=[skipper, skipper]).run_sync()
    assert result.skipped and result.skip_reason == "not applicable here"
    with pytest.raises(AssertionError, match="every check was skipped"):
        result.assert_passed()
    passing = TestCase(trace=TRACE, checks=[skipper, Equals(expected_value="a")]).run_sync()
    assert passing.passed  # a skip beside a pass: the pass was earned
    passing.assert_passed()


def test_a_scenario_without_checks_is_skip_and_does_not_assert():
    result = Scenario("chat log").interact("q", "a").interact("q2", "a2").run_sync()
    assert result.status is CheckStatus.SKIP and result.skip_reason == "no checks"
    with pytest.raises(AssertionError, match=r"'chat log' SKIP: nothing passed.*no checks"):
        result.assert_passed()
    report = Scenario("chat log").interact("q", "a").run_sync()
    from giskard_nb.core.render import scenario_report

    assert "(no checks)" in scenario_report(report)
    assert "no checks" in report._repr_html_()


def test_a_step_without_checks_does_not_hide_a_later_verdict():
    result = (
        Scenario("two steps")
        .interact("q", "a")
        .interact("q2", "a2")
        .check(Equals(expected_value="a2"))
        .run_sync()
    )
    assert result.passed


def test_roll_up_of_nothing_is_skip():
    assert roll_up([]) is CheckStatus.SKIP
    assert roll_up([CheckStatus.SKIP, CheckStatus.PASS]) is CheckStatus.PASS
    assert roll_up([CheckStatus.PASS, CheckStatus.ERROR]) is CheckStatus.ERROR


@pytest.mark.parametrize(
    ("counts", "rate", "text"),
    [
        ({"pass": 3, "error": 1}, 0.75, "pass rate 75% (3 of 4 judged; 1 errored)"),
        (
            {"pass": 1, "fail": 1, "skip": 5},
            0.5,
            "pass rate 50% (2 of 2 judged; 0 errored; 5 skipped)",
        ),
        ({"error": 4}, None, "pass rate n/a (all results errored: 4 errored)"),
        ({"skip": 2}, None, "pass rate n/a (nothing judged: 2 skipped)"),
        ({}, None, "pass rate n/a (nothing judged)"),
        ({"fail": 2, "error": 2}, 0.0, "pass rate 0% (2 of 4 judged; 2 errored)"),
    ],
)
def test_one_pass_rate_definition(counts, rate, text):
    p = PassRate.from_counts(counts)
    assert p.value == rate and p.text() == text
    assert pass_rate(p.passed, p.failed, p.errored) == rate
    assert PassRate.from_statuses([s for s, n in counts.items() for _ in range(n)]) == p


def test_suite_pass_rate_counts_errors_and_ignores_skips():
    ok = Scenario("ok").interact("x", "x").check(Equals(expected_value="x"))
    boom = Scenario("boom").interact("x", "x").check(from_fn(lambda t: 1 / 0))
    unchecked = Scenario("unchecked").interact("x", "x")
    result = Suite("s").extend([ok, boom, unchecked]).run_sync()
    assert (result.passed_count, result.errored_count, result.skipped_count) == (1, 1, 1)
    assert result.pass_rate == 0.5
    assert "pass rate 50% [95% CI 9%–91%] (1 of 2 judged; 1 errored; 1 skipped)" in repr(result)
    assert "1 of 2 judged; 1 errored" in result._repr_html_()
    assert result.group_by("missing").groups[None].pass_rate == 0.5


def test_a_suite_where_everything_errored_has_no_pass_rate():
    boom = Scenario("boom").interact("x", "x").check(from_fn(lambda t: 1 / 0))
    result = Suite("s").extend([boom, boom]).run_sync()
    assert result.pass_rate is None
    assert "all results errored" in repr(result)
    with pytest.raises(AssertionError):
        result.assert_passed()


def test_a_suite_where_everything_was_skipped_does_not_assert():
    result = Suite("s").extend([Scenario("a").interact("x", "x")]).run_sync()
    assert isinstance(result, SuiteResult) and result.passed  # nothing failed...
    with pytest.raises(
        AssertionError, match=r"nothing passed: all 1 scenarios were skipped \(no checks\)"
    ):
        result.assert_passed()  # ...but nothing passed either
    assert 'message="no checks"' in result.to_junit_xml()
