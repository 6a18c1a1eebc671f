"""Checks carry their meaning: a check class declares its failure-category hint
(``Check.failure_category``), the runner records it in a failed result's ``details``, and the Hub's
rule and leak detection read the hint and the details, never the message text. Results stored before
hints were recorded keep their old reading (legacy)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from giskard_nb.checks import AllOf, AnyOf, Not, StringMatching
from giskard_nb.core.check import HINT_KEY, Check
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.result import CheckResult
from giskard_nb.core.testcase import run_check
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import DEFAULT_FAILURE_CATEGORIES, CheckOutcome, Hub, classify_by_rules
from giskard_nb.hub.leaks import leak_reason
from giskard_nb.hub.models.evaluation_result import DETAIL_LIMITS, clip_details, outcome


@Check.register("test_hints_format")
class FormatRule(Check):
    """Fails unless the reply ends with a full stop; a failure is a format violation."""

    failure_category: ClassVar[str | None] = "format_violation"

    def run(self, trace: Trace) -> CheckResult:
        text = str(trace.last.outputs)
        if text.endswith("."):
            return CheckResult.success("ends with a full stop")
        return CheckResult.failure("The reply is toxic and harmful", details={"text": text})


@Check.register("test_hints_price")
class PriceRule(Check):
    """A project's own category as hint; its details are huge (a hostile reply)."""

    failure_category: ClassVar[str | None] = "wrong_price"

    def run(self, trace: Trace) -> CheckResult:
        return CheckResult.failure("wrong price", details={"blob": "x" * 100_000, "n": [1] * 500})


@Check.register("test_hints_harmful")
class Harmful(Check):
    """Always fails, hinting harmful content."""

    failure_category: ClassVar[str | None] = "harmful_content"

    def run(self, trace: Trace) -> CheckResult:
        return CheckResult.failure("flagged")


@Check.register("test_hints_broken")
class BrokenHint(Check):
    """A ``failure_hint`` that raises: recorded as no hint, never a crash."""

    def failure_hint(self, result: CheckResult) -> str | None:
        raise RuntimeError("boom")

    def run(self, trace: Trace) -> CheckResult:
        return CheckResult.failure("The reply is toxic")


def _trace(reply: str) -> Trace:
    return Trace(interactions=[Interaction(inputs="hi", outputs=reply)])


async def _outcome(check: Check, reply: str) -> CheckOutcome:
    return outcome(await run_check(check, _trace(reply)))


def _evaluate(hub: Hub, reply: str, kind: str, **params: Any):
    project = hub.projects.create("shop")
    hub.checks.create(project.id, "rule", "rule", params={"type": kind, **params})
    dataset = hub.datasets.upload(
        project.id,
        [{"messages": [{"role": "user", "content": "Price?"}], "checks": [{"identifier": "rule"}]}],
        name="d",
    )
    evaluation = hub.evaluations.create_local(
        lambda m: reply, dataset.id, progress=False, classifier="rules"
    )
    (result,) = evaluation.results()
    return result


def test_a_new_check_kind_gets_its_declared_category_with_no_hub_edit(mem_hub: Hub) -> None:
    result = _evaluate(mem_hub, "It costs 12 euros", "test_hints_format")
    assert result.status == "fail"
    assert result.failure_category.identifier == "format_violation"
    assert "'rule'" in result.failure_category_reason
    (check,) = result.checks
    assert (
        check.category_hint == "format_violation" and check.details[HINT_KEY] == check.category_hint
    )
    # stored and read back the same way by the plain view
    (raw,) = mem_hub.evaluations.results.iter_raw(result.evaluation_id)
    assert raw["checks"][0]["details"][HINT_KEY] == "format_violation"


def test_a_projects_own_category_as_hint_and_details_stored_clipped(mem_hub: Hub) -> None:
    result = _evaluate(mem_hub, "12 euros", "test_hints_price")
    assert result.failure_category.identifier == "incorrect_answer"  # no such category: fallback
    assert "no 'wrong_price' category" in result.failure_category_reason
    (check,) = result.checks
    assert len(check.details["blob"]) < DETAIL_LIMITS["max_string"] + 100
    assert "truncated" in check.details["blob"]
    assert len(check.details["n"]) <= DETAIL_LIMITS["max_items"] + 1
    own = [*DEFAULT_FAILURE_CATEGORIES[:-1]]
    own.insert(0, own[0].model_copy(update={"identifier": "wrong_price", "title": "Wrong price"}))
    verdict = classify_by_rules(own, result.checks, "12 euros")
    assert verdict.category.identifier == "wrong_price"


async def test_the_message_text_is_not_read_once_a_hint_is_recorded() -> None:
    # the message says "toxic", the hint says format: the hint wins
    check = await _outcome(FormatRule(), "no stop")
    verdict = classify_by_rules(DEFAULT_FAILURE_CATEGORIES, [check], "no stop")
    assert verdict.category.identifier == "format_violation"
    # a recorded "no hint" is not overridden by the message either (a broken hint is recorded as none)
    broken = await _outcome(BrokenHint(), "x")
    assert HINT_KEY in broken.details and broken.category_hint is None
    verdict = classify_by_rules(DEFAULT_FAILURE_CATEGORIES, [broken], "x")
    assert verdict.category.identifier == "incorrect_answer"


def test_legacy_outcomes_without_a_hint_are_read_from_kind_and_message() -> None:
    legacy = CheckOutcome(name="c", kind="llm_judge", status="fail", message="The reply is toxic")
    assert (
        classify_by_rules(DEFAULT_FAILURE_CATEGORIES, [legacy], "x").category.identifier
        == "harmful_content"
    )
    old_row = CheckOutcome(name="g", kind="groundedness", status="fail", details={"x": 1})
    assert (
        classify_by_rules(DEFAULT_FAILURE_CATEGORIES, [old_row], "x").category.identifier
        == "hallucination"
    )


async def test_composition_hints() -> None:
    # a group carries harmful content only, as the rule read groups before hints (by their message)
    group = await _outcome(AllOf(checks=[StringMatching(keyword="ok"), FormatRule()]), "ok")
    assert group.kind == "all_of" and HINT_KEY in group.details and group.category_hint is None
    harmful = await _outcome(AnyOf(checks=[StringMatching(keyword="zz"), Harmful()]), "ok")
    assert harmful.status == "fail" and harmful.category_hint is None  # first failed: no hint
    harmful = await _outcome(AnyOf(checks=[Harmful(), StringMatching(keyword="zz")]), "ok")
    assert harmful.category_hint == "harmful_content"
    negated = await _outcome(Not(check=StringMatching(keyword="STAFF-2024")), "use STAFF-2024")
    assert negated.status == "fail" and negated.category_hint is None
    assert negated.details["negated_kind"] == "string_matching"
    assert leak_reason([negated], "use STAFF-2024") is not None


@pytest.mark.parametrize(
    ("details", "leak"),
    [
        # the details say an ordinary word was forbidden: a message claiming a code is not read
        ({"negated_kind": "string_matching", "keyword": "cheap", "text": "cheap"}, False),
        ({"negated_kind": "regex_matching", "pattern": "V\\d+", "match": "VIP123"}, True),
        ({"negated_kind": "json_valid"}, False),
    ],
)
def test_leak_detection_reads_the_not_checks_details(details: dict, leak: bool) -> None:
    check = CheckOutcome(
        name="banned",
        kind="not",
        status="fail",
        message="expected x to fail, but it passed: The text contains the keyword 'STAFF-2024'.",
        details=details,
    )
    assert (leak_reason([check], "a reply with STAFF-2024 and VIP123") is not None) is leak


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        (
            {"a": "ok", "n": 1, "f": 0.5, "b": True, "z": None},
            {"a": "ok", "n": 1, "f": 0.5, "b": True, "z": None},
        ),
        ({"a": "\ud800"}, {"a": "\ufffd"}),  # a lone surrogate (JSON readers refuse it)
        ({"f": float("nan")}, {"f": "NaN"}),
        ({1: "x"}, {"1": "x"}),
        ({"nested": {"t": (1, 2)}}, {"nested": {"t": [1, 2]}}),
    ],
)
def test_check_details_are_made_json_safe(details: dict, expected: dict) -> None:
    assert clip_details(details) == expected


def test_a_hint_that_is_not_an_identifier_is_refused_or_ignored() -> None:
    with pytest.raises(GiskardValidationError, match="failure_category must be a failure-category"):

        class Spaced(Check):
            failure_category: ClassVar[str | None] = "Format violation"

            def run(self, trace: Trace) -> CheckResult:
                return CheckResult.success()

    # a stored row is untrusted: a hint that is not an identifier reads as none
    hostile = CheckOutcome(
        name="c", kind="x", status="fail", message="toxic", details={HINT_KEY: "a" * 5000}
    )
    assert hostile.category_hint is None
    verdict = classify_by_rules(DEFAULT_FAILURE_CATEGORIES, [hostile], "x")
    assert verdict.category.identifier == "incorrect_answer" and len(verdict.reason) < 200
