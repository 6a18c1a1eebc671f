"""The tool checks as kinds: construction errors, JSON round trips, loading by kind without the module
imported, Hub check identifiers, failure-category hints and the public exports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import giskard_nb
from giskard_nb.checks.tools import TOOL_CHECK_KINDS
from giskard_nb.core.check import Check
from giskard_nb.core.tools import ToolSpec
from giskard_nb.errors import GiskardValidationError
from giskard_nb.testing import FakeModel

JUDGE = FakeModel(replies=[{"reason": "ok", "passed": True}], repeat_last=True)
SPEC = ToolSpec(name="transfer", risk="high", input_schema={"type": "object"})

EXAMPLES = {
    "tool_called": lambda: giskard_nb.ToolCalled(
        "get_weather", arguments={"city": "Paris"}, min_count=1, max_count=2, turn=-1
    ),
    "tool_not_called": lambda: giskard_nb.ToolNotCalled(pattern="^delete_"),
    "tool_sequence": lambda: giskard_nb.ToolSequence(
        expected=["a", {"name": "b", "arguments": {"x": 1}}], mode="any_order", threshold=0.5
    ),
    "tool_args": lambda: giskard_nb.ToolArgs(
        tool="t",
        expected={"a": 1},
        schema={"type": "object"},
        rules=[{"json_path": "a", "expected_value": 1}],
    ),
    "tool_call_f1": lambda: giskard_nb.ToolCallF1(expected=["a"], threshold=0.5),
    "tool_schema_valid": lambda: giskard_nb.ToolSchemaValid(tools=[SPEC]),
    "tool_budget": lambda: giskard_nb.ToolBudget(max_calls=3, max_repeats=1, max_steps=2),
    "tool_error_handled": lambda: giskard_nb.ToolErrorHandled(require_acknowledgement=True),
    "confirmation_before_side_effect": lambda: giskard_nb.ConfirmationBeforeSideEffect(
        tools=[SPEC]
    ),
    "tool_selection_judge": lambda: giskard_nb.ToolSelectionJudge(tools=[SPEC], turn=0),
    "tool_arguments_judge": lambda: giskard_nb.ToolArgumentsJudge(tools=[SPEC]),
    "tool_grounding_judge": lambda: giskard_nb.ToolGroundingJudge(),
    "trajectory_judge": lambda: giskard_nb.TrajectoryJudge(
        goal="g", plan="p", rubric="r", min_score=4
    ),
    "action_claims_consistent": lambda: giskard_nb.ActionClaimsConsistent(
        accept_unknown_status=True
    ),
}


def test_every_kind_has_an_example():
    assert set(EXAMPLES) == set(TOOL_CHECK_KINDS)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_json_round_trip_and_kind(kind):
    check = EXAMPLES[kind]()
    assert type(check)._kind == kind and type(check).__name__ == TOOL_CHECK_KINDS[kind]
    data = json.loads(json.dumps(check.model_dump(mode="json")))
    assert data["kind"] == kind
    again = Check.model_validate(data)
    assert type(again) is type(check) and again.model_dump(mode="json") == check.model_dump(
        mode="json"
    )
    assert type(check).failure_category is not None


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_a_tool_check_is_a_hub_check_identifier(kind):
    from giskard_nb.hub.check_specs import build_check, check_to_spec

    check = EXAMPLES[kind]()
    spec = check_to_spec(check)
    assert spec.identifier == kind
    rebuilt = build_check(spec)
    assert type(rebuilt) is type(check)


def test_kinds_load_without_the_module_imported():
    code = (
        "import sys; from giskard_nb.core.check import Check; "
        "assert 'giskard_nb.checks.tools' not in sys.modules; "
        "c = Check.model_validate({'kind': 'tool_called', 'tool': 'x'}); "
        "print(type(c).__name__, 'tool_budget' in Check.kinds())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["ToolCalled", "True"]


def test_exported_from_giskard_nb_checks_and_the_top_level():
    import giskard_nb.checks as checks

    for name in TOOL_CHECK_KINDS.values():
        assert getattr(checks, name) is getattr(giskard_nb, name)
        assert name in giskard_nb.__all__


@pytest.mark.parametrize(
    ("build", "says"),
    [
        (lambda: giskard_nb.ToolCalled(), "exactly one of tool='get_weather' or pattern"),
        (lambda: giskard_nb.ToolCalled("a", pattern="b"), "exactly one of"),
        (lambda: giskard_nb.ToolNotCalled(pattern="(unclosed"), "invalid regular expression"),
        (lambda: giskard_nb.ToolCalled("a", min_count=3, max_count=1), "max_count (1) is below"),
        (lambda: giskard_nb.ToolSequence(expected=[{"oops": 1}]), "an expected tool call is"),
        (lambda: giskard_nb.ToolSequence(expected=[""]), "needs a tool name"),
        (lambda: giskard_nb.ToolArgs(tool="t"), "ToolArgs needs expected="),
        (lambda: giskard_nb.ToolArgs(tool="t", schema={"type": 12}), "invalid JSON schema"),
        (lambda: giskard_nb.ToolSchemaValid(tools=[]), "needs the tools"),
        (lambda: giskard_nb.ToolBudget(), "ToolBudget needs a limit"),
        (
            lambda: giskard_nb.ConfirmationBeforeSideEffect(tools=[ToolSpec(name="read")]),
            "need confirmation",
        ),
    ],
)
def test_bad_parameters_are_clear_errors(build, says):
    with pytest.raises((GiskardValidationError, ValueError), match=None) as info:
        build()
    assert says in str(info.value)


def test_hub_test_case_params_from_data_build_tool_checks():
    from giskard_nb.hub.check_specs import build_check
    from giskard_nb.hub.models.dataset import CheckSpec

    spec = CheckSpec(identifier="tool_sequence", params={"expected": ["a", "b"], "mode": "exact"})
    check = build_check(spec)
    assert isinstance(check, giskard_nb.ToolSequence) and [c.name for c in check.expected] == [
        "a",
        "b",
    ]
    with pytest.raises(GiskardValidationError):
        build_check(CheckSpec(identifier="tool_budget", params={}))
