"""The async trace API and awaitable ``run()`` of every built-in rule check."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from giskard_nb import CheckResult, CheckStatus, Interact, Interaction, Trace
from giskard_nb.checks import (
    AllOf,
    AnyOf,
    Equals,
    FnCheck,
    GreaterEquals,
    GreaterThan,
    JsonValid,
    LessThan,
    LessThanEquals,
    Metadata,
    MetadataRule,
    Not,
    NotEquals,
    RegexMatching,
    StringMatching,
)
from giskard_nb.errors import GiskardValidationError


class _Tagged(Trace):
    tag: str = "t"


def test_from_interactions_resolves_specs_and_interactions_in_order():
    async def go():
        return await _Tagged.from_interactions(
            Interaction(inputs="a", outputs="b"),
            Interact(inputs="hi", outputs=lambda inputs: inputs.upper()),
            Interact(inputs=lambda trace: f"n={len(trace.interactions)}", outputs="ok"),
        )

    trace = asyncio.run(go())
    assert type(trace) is _Tagged
    assert [(i.inputs, i.outputs) for i in trace.interactions] == [
        ("a", "b"),
        ("hi", "HI"),
        ("n=2", "ok"),
    ]


def test_with_interaction_accepts_a_spec_and_leaves_the_original_untouched():
    base = Trace(interactions=[Interaction(inputs="a", outputs="b")])

    async def go():
        one = await base.with_interaction(
            Interact(inputs="q", outputs=lambda inputs, trace: len(trace.interactions))
        )
        two = await one.with_interactions(
            Interaction(inputs=1, outputs=2), Interact(inputs="z", outputs="zz")
        )
        return one, two

    one, two = asyncio.run(go())
    assert len(base.interactions) == 1
    assert one.last.outputs == 1
    assert [i.outputs for i in two.interactions] == ["b", 1, 2, "zz"]


def test_with_interaction_uses_a_target_for_target_bound_specs():
    async def go():
        return await Trace().with_interaction(
            Interact(inputs="ping"), target=lambda inputs: inputs + "!"
        )

    assert asyncio.run(go()).last.outputs == "ping!"


def test_with_interaction_rejects_other_values_clearly():
    with pytest.raises(GiskardValidationError, match="Interaction or an InteractionSpec"):
        asyncio.run(Trace().with_interaction({"inputs": "a"}))


def test_appended_is_the_sync_twin():
    trace = Trace().appended(Interaction(inputs="a", outputs="b"))
    assert trace.last.outputs == "b"


_TRACE = Trace(interactions=[Interaction(inputs="q", outputs='{"n": 3}', metadata={"m": 1})])
_CHECKS = [
    Equals(expected_value='{"n": 3}', key="trace.last.outputs"),
    NotEquals(expected_value="x", key="trace.last.outputs"),
    GreaterThan(expected_value=0, key="trace.last.metadata.m"),
    GreaterEquals(expected_value=1, key="trace.last.metadata.m"),
    LessThan(expected_value=2, key="trace.last.metadata.m"),
    LessThanEquals(expected_value=1, key="trace.last.metadata.m"),
    JsonValid(key="trace.last.outputs"),
    RegexMatching(pattern=r"\d", key="trace.last.outputs"),
    StringMatching(keyword="n", key="trace.last.outputs"),
    Metadata(rules=[MetadataRule(json_path="m", expected_value=1)]),
    Not(check=Equals(expected_value="nope", key="trace.last.outputs")),
    AllOf(checks=[JsonValid(key="trace.last.outputs")]),
    AnyOf(checks=[JsonValid(key="trace.last.outputs")]),
    FnCheck(fn=lambda trace: True),
]


@pytest.mark.parametrize("check", _CHECKS, ids=lambda c: type(c).__name__)
def test_every_builtin_rule_check_run_is_awaitable_and_still_usable_sync(check):
    async def go():
        return await check.run(_TRACE)

    result = asyncio.run(go())
    assert isinstance(result, CheckResult)
    assert result.status == CheckStatus.PASS, result.message
    if not inspect.iscoroutinefunction(
        type(check).run
    ):  # sync checks: existing callers get the result
        assert check.run(_TRACE) == result


def test_awaiting_a_failing_result_keeps_the_failure():
    async def go():
        return await Equals(expected_value="other", key="trace.last.outputs").run(_TRACE)

    assert asyncio.run(go()).status == CheckStatus.FAIL
