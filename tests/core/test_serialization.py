"""Every check and interaction spec round-trips through model_dump/model_validate and JSON, by kind."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from giskard_nb import (
    AllOf,
    AnyOf,
    Check,
    Equals,
    GreaterThan,
    GreaterThanEquals,
    Interact,
    InteractionSpec,
    JsonValid,
    LessThan,
    LessThanEquals,
    Metadata,
    Not,
    NotEquals,
    RegexMatching,
    Scenario,
    SerializationError,
    StringMatching,
    TestCase,
    Trace,
    WithSpy,
    from_fn,
)

CHECKS = [
    StringMatching(
        name="s", keyword="Paris", case_sensitive=False, text_key="trace.last.outputs.a"
    ),
    StringMatching(keyword_key="trace.last.metadata.kw"),
    RegexMatching(pattern=r"\d+", match_timeout_seconds=1.0),
    Equals(expected_value=None),
    Equals(expected_value={"a": [1, 2]}, key="trace.last.outputs"),
    NotEquals(expected_value_key="trace.last.inputs"),
    GreaterThan(expected_value=1, match="all"),
    GreaterThanEquals(expected_value=1.5),
    LessThan(expected_value=3, match="none"),
    LessThanEquals(expected_value=3),
    JsonValid(schema={"type": "object"}),
    AllOf(checks=[Equals(expected_value=1), Not(check=StringMatching(keyword="x"))]),
    AnyOf(checks=[Equals(expected_value=1), RegexMatching(pattern="a")]),
    Metadata(json_path_rules=[{"json_path": "$.model", "expected_value": "gpt"}]),
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.kind)
def test_check_round_trip(check):
    dumped = check.model_dump()
    assert dumped["kind"] == check.kind
    restored = Check.model_validate(dumped)
    assert type(restored) is type(check) and restored == check
    from_json = Check.model_validate_json(check.model_dump_json())
    assert from_json.model_dump() == dumped


def test_specs_round_trip():
    spec = WithSpy(interaction_generator=Interact("q", "a", metadata={"m": 1}), target="json.dumps")
    restored = InteractionSpec.model_validate(json.loads(spec.model_dump_json()))
    assert type(restored) is WithSpy and type(restored.interaction_generator) is Interact
    assert restored.interaction_generator.metadata == {"m": 1}


def test_scenario_and_test_case_round_trip():
    scenario = (
        Scenario("s", tags=["a:b"], annotations={"x": 1}, multiple_runs=2)
        .interact({"q": 1}, {"a": 2})
        .check(Equals(expected_value=2, key="trace.last.outputs.a"))
    )
    assert (
        Scenario.model_validate_json(scenario.model_dump_json()).model_dump()
        == scenario.model_dump()
    )
    tc = TestCase(name="t", trace=Trace(), checks=CHECKS[:3])
    assert TestCase.model_validate(tc.model_dump()).checks == tc.checks


def test_callables_refuse_json_with_a_clear_message_but_work_in_python_mode():
    scenario = Scenario("s").interact("q", lambda inputs: inputs)
    with pytest.raises(Exception, match="cannot serialize the callable") as info:
        scenario.model_dump_json()
    assert "Scenario.with_target" in str(info.value) or "with_target" in str(info.value)
    restored = Scenario.model_validate(scenario.model_dump())
    assert restored.run_sync().final_trace.last.outputs == "q"
    with pytest.raises(Exception, match="cannot serialize the callable"):
        from_fn(lambda trace: True).model_dump(mode="json")
    assert SerializationError.__mro__[1].__name__ == "GiskardValidationError"


def test_missing_values_are_omitted_from_dumps():
    assert "outputs" not in Interact("q").model_dump()
    assert "text" not in StringMatching(keyword="x").model_dump()
    assert Equals(expected_value=None).model_dump()["expected_value"] is None


@pytest.mark.parametrize(
    ("cls", "kwargs", "message"),
    [
        (StringMatching, {}, "Exactly one of 'keyword' or 'keyword_key'"),
        (StringMatching, {"keyword": "a", "keyword_key": "trace.last.inputs"}, "Exactly one"),
        (RegexMatching, {"pattern": "("}, "invalid regular expression"),
        (RegexMatching, {"pattern": "a", "match_timeout_seconds": 0}, "match_timeout_seconds"),
        (Equals, {}, "Exactly one of 'expected_value' or 'expected_value_key'"),
        (JsonValid, {"schema": {"type": "nonsense"}}, "invalid JSON schema"),
        (AllOf, {"checks": []}, "at least one check"),
        (Metadata, {"rules": []}, "at least one rule"),
        (Metadata, {"rules": [{"json_path": "$.x"}]}, "needs an expected_value"),
    ],
)
def test_misconfigured_checks_fail_at_construction(cls, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        cls(**kwargs)


def test_registered_models_with_call_dump_as_data():
    from giskard_nb import InputGenerator

    @InputGenerator.register("test_serialization_callable_generator")
    class Gen(InputGenerator):
        prefix: str = "p"

        async def __call__(self, trace, input_type=None):
            yield self.prefix

    scenario = Scenario("s").interact(Gen(prefix="hi"), "out")
    restored = Scenario.model_validate_json(scenario.model_dump_json())
    assert isinstance(restored.steps[0].interacts[0].inputs, Gen)
    assert restored.run_sync().final_trace.last.inputs == "hi"
