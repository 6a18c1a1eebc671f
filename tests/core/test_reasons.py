"""One reason per case (``core.reasons.case_reason``): which one, bounded, safe to print; the same
text on ``ScenarioResult.reason``, the JUnit report and the scenarios DataFrame."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from giskard_nb import CheckResult, Scenario, StringMatching, Suite, Trace
from giskard_nb.core.check import Check
from giskard_nb.core.junit import suite_to_junit
from giskard_nb.core.reasons import REASON_MAX_CHARS, case_reason, one_line


@Check.register("test_reasons_broken")
class _Broken(Check):
    def run(self, trace: Trace) -> CheckResult:
        return CheckResult.error("the judge answered junk")


def test_which_reason_a_case_shows() -> None:
    checks = [
        ("tone", "pass", "polite"),
        ("refund", "fail", "The text does not contain the keyword '30 days'."),
        ("judge", "error", "no judge model is configured"),
        ("format", "fail", None),
    ]
    assert case_reason("pass", checks=checks) is None
    # FAIL: the first failing check, and how many more did not pass
    assert case_reason("fail", checks=[c for c in checks if c[1] != "error"]) == (
        "refund: The text does not contain the keyword '30 days'. "
        "(+1 more failing or erroring check)"
    )
    # ERROR: the step error first, else the first erroring check (even after a failing one)
    assert case_reason("error", error="TimeoutError: 20 s", checks=checks) == "TimeoutError: 20 s"
    assert case_reason("error", checks=checks) == (
        "judge: no judge model is configured (+2 more failing or erroring checks)"
    )
    assert case_reason("fail", checks=[("format", "fail", None)]) == "format FAIL"
    assert case_reason("fail", checks=[(None, "fail", "")]) == "check FAIL"
    # SKIP: no checks, or the first skip message
    assert case_reason("skip") == "no checks"
    assert case_reason("skip", checks=[("a", "skip", None), ("b", "skip", "no reply")]) == (
        "b: no reply"
    )
    assert case_reason("skip", checks=[("a", "skip", None)]) == "every check was skipped"


def test_a_reason_is_one_bounded_line_with_no_control_character() -> None:
    hostile = "line one\nline two\r\n\t\x1b[31mred\x1b[0m \x07 \u2028 end"
    text = one_line(hostile)
    assert "\n" not in text and "\r" not in text and "\x1b" not in text and "\x07" not in text
    assert text == "line one line two \\x1b[31mred\\x1b[0m \\x07 end"
    long = case_reason("fail", checks=[("c", "fail", "x" * 5000), ("d", "fail", "y")])
    assert len(long) == REASON_MAX_CHARS
    assert long.endswith("… (+1 more failing or erroring check)")  # the count survives the cut
    assert len(case_reason("error", error="e" * 5000)) == REASON_MAX_CHARS


def test_scenario_result_junit_and_frame_show_the_same_reason() -> None:
    reply = "Hello\x1b[2J\nwe are open"

    def agent(messages):
        return reply

    failing = (
        Scenario("hours")
        .interact("When are you open?", agent)
        .check(StringMatching(keyword="Monday", name="monday"))
        .check(StringMatching(keyword="Sunday", name="sunday"))
    )
    erroring = Scenario("judge").interact("q", agent).check(_Broken(name="judge"))
    empty = Scenario("no checks").interact("q", agent)
    passing = Scenario("ok").interact("q", agent).check(StringMatching(keyword="open"))
    result = Suite("s", scenarios=[failing, erroring, empty, passing]).run_sync()
    reasons = [r.reason for r in result.results]
    assert reasons == [
        "monday: The text does not contain the keyword 'Monday'. "
        "(+1 more failing or erroring check)",
        "judge: the judge answered junk",
        "no checks",
        None,
    ]

    suite = ET.fromstring(suite_to_junit(result))
    cases = suite.findall("testcase")
    assert cases[0].find("failure").get("message") == reasons[0]
    assert "sunday FAIL" in cases[0].find("failure").text  # the body lists every failing check
    assert cases[1].find("error").get("message") == reasons[1]
    assert cases[2].find("skipped").get("message") == "no checks"

    frame = result.to_dataframe()
    assert frame["reason"].tolist()[:3] == reasons[:3]
    assert frame["reason"].isna().tolist() == [False, False, False, True]
