"""One HubTestCase ⇄ Scenario pair and one Check ⇄ CheckSpec pair: round trips run the same checks."""

from __future__ import annotations

import pytest

from giskard_nb import Equals, Scenario, StringMatching
from giskard_nb.checks.composition import AllOf, Not
from giskard_nb.checks.text import RegexMatching
from giskard_nb.core.check import Check
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import (
    Hub,
    HubCheck,
    LocalAgent,
    build_check,
    check_to_spec,
    scenario_to_test_case,
    test_case_to_scenario,
)
from giskard_nb.hub.models import HubTestCase
from giskard_nb.scan import Attack
from giskard_nb.scan.regression import attempt_checks
from giskard_nb.scan.result import Attempt

CHECKS = [
    StringMatching(keyword="Monday"),
    RegexMatching(name="weekday", pattern="(?i)mon|tue"),
    Not(check=StringMatching(keyword="Sunday")),
    AllOf(
        name="both",
        checks=[
            StringMatching(keyword="Open"),
            Equals(expected_value="x", target_key="trace.last.outputs"),
        ],
    ),
]


def bot(conversation) -> str:
    text = conversation if isinstance(conversation, str) else conversation[-1]["content"]
    return "Open Monday to Friday" if "open" in text.lower() else "Sorry?"


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.label)
def test_a_check_comes_back_from_its_spec(check: Check) -> None:
    spec = check_to_spec(check)
    assert spec.identifier == check.kind and "kind" not in spec.params
    rebuilt = build_check(spec)
    assert type(rebuilt) is type(check) and rebuilt.label == check.label
    assert rebuilt.model_dump(exclude={"name"}) == check.model_dump(exclude={"name"})


def test_scan_regression_checks_come_back_from_their_specs() -> None:
    attack = Attack(
        id="a", probe_id="p", category="prompt_injection", turns=["hi"], canary="ZEBRA-7"
    )
    attempt = Attempt(
        attack=attack, messages=[{"role": "user", "content": "hi"}], output="ZEBRA-7",
        successful=True, detector="canary",
    )  # fmt: skip
    for check in attempt_checks(attempt):
        rebuilt = build_check(check_to_spec(check))
        assert rebuilt == check


def test_checks_that_cannot_be_stored_are_explained() -> None:
    from giskard_nb import from_fn

    with pytest.raises(GiskardValidationError, match="cannot be saved as a Hub test case"):
        check_to_spec(from_fn(lambda trace: True))

    class Loose(Check):
        async def run(self, trace):  # pragma: no cover - never run
            raise AssertionError

    with pytest.raises(GiskardValidationError, match="not registered"):
        check_to_spec(Loose())


async def test_scenario_to_test_case_and_back_runs_the_same_checks() -> None:
    scenario = Scenario("hours", tags=["topic:hours"]).interact("When are you open?")
    scenario = scenario.checks(*CHECKS)
    original = await scenario.run(target=bot)

    hub = Hub(":memory:")
    try:
        dataset = hub.datasets.create(hub.projects.create("p").id, name="d")
        case = hub.test_cases.create(dataset.id, **scenario_to_test_case(scenario))
        assert case.name == "hours" and case.tags == ["topic:hours"]
        again = await test_case_to_scenario(case, LocalAgent(bot)).run()
    finally:
        hub.close()
    assert again.scenario_name == original.scenario_name == "hours"
    assert [(r.status, r.message) for r in again.check_results] == [
        (r.status, r.message) for r in original.check_results
    ]
    assert [r.status.value for r in original.check_results] == ["pass", "pass", "pass", "fail"]


async def test_a_test_case_becomes_a_scenario_with_its_enabled_and_project_checks() -> None:
    case = HubTestCase(
        dataset_id="d", project_id="p", name=None, position=2, tags=["t"],
        messages=[{"role": "user", "content": "open?"}],
        checks=[
            {"identifier": "hours"},
            {"identifier": "string_match", "params": {"keyword": "Sunday"}, "enabled": False},
        ],
    )  # fmt: skip
    custom = {
        "hours": HubCheck(
            project_id="p",
            identifier="hours",
            name="Hours",
            type="string_match",
            params={"keyword": "Monday"},
        )
    }
    agent = LocalAgent(bot)
    scenario = test_case_to_scenario(case, agent, custom_checks=custom)
    assert scenario.name == "test case 3" and scenario.tags == ["t"]
    assert scenario.annotations == {"test_case_id": case.id, "dataset_id": "d"}
    result = await scenario.run()
    assert [r.status.value for r in result.check_results] == ["pass"]
    assert result.final_trace.last.inputs == case.conversation
    # one target per agent: the core checks its signature once, not once per test case
    other = test_case_to_scenario(case, agent, checks=[])
    assert other.steps[0].interacts[0].outputs == scenario.steps[0].interacts[0].outputs
    assert (
        test_case_to_scenario(case, LocalAgent(bot), checks=[]).steps[0].interacts[0].outputs
        != scenario.steps[0].interacts[0].outputs
    )
