from __future__ import annotations

import pytest

from giskard_nb import (
    AllOf,
    AnyOf,
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    JsonValid,
    Metadata,
    Not,
    Scenario,
    StringMatching,
    from_fn,
)


@Check.register("test_checks_skip")
class Skip(Check):
    def run(self, trace):
        return CheckResult.skip("n/a")


@Check.register("test_checks_raise")
class Raise(Check):
    def run(self, trace):
        raise RuntimeError("broken")


async def test_json_valid(trace_of):
    schema = {
        "type": "object",
        "required": ["status"],
        "properties": {"status": {"type": "string"}},
    }
    assert JsonValid().run(trace_of('{"a": 1}')).passed
    assert JsonValid().run(trace_of("{nope")).failed
    assert JsonValid().run(trace_of({"a": 1})).errored
    assert JsonValid(parse=False).run(trace_of({"a": 1})).passed
    assert JsonValid(parse=False).run(trace_of({"a": object()})).failed
    assert JsonValid(expected_schema=schema).run(trace_of('{"status": "ok"}')).passed
    bad = JsonValid(schema=schema).run(trace_of('{"status": 3}'))
    assert bad.failed and "status" in bad.message
    assert JsonValid(key="trace.last.outputs.body").run(trace_of({"x": 1})).errored


async def test_composition(trace_of):
    t = trace_of("Paris")
    yes, no = StringMatching(keyword="Paris"), StringMatching(keyword="Rome")
    assert (await AllOf(checks=[yes, yes]).run(t)).passed
    assert (await AllOf(checks=[yes, no]).run(t)).failed
    assert (await AllOf(checks=[Skip(), Skip()]).run(t)).skipped
    assert (await AllOf(checks=[yes, Raise()]).run(t)).errored
    assert (await AnyOf(checks=[no, yes]).run(t)).passed
    assert (await AnyOf(checks=[no, no]).run(t)).failed
    assert (
        await AnyOf(checks=[Raise(), yes]).run(t)
    ).errored  # the first erroring arm wins (reference)
    assert (await AnyOf(checks=[yes, Raise()]).run(t)).passed
    assert (await AnyOf(checks=[Raise(), no]).run(t)).errored
    assert (await Not(check=no).run(t)).passed
    assert (await Not(check=yes).run(t)).failed
    # A broken check never turns green through Not.
    broken = StringMatching(keyword="x", key="trace.last.outputs.missing")
    assert (await Not(check=broken).run(t)).errored
    assert (await Not(check=Raise()).run(t)).errored


async def test_fn_checks():
    def is_short(trace):
        return len(trace.last.outputs) < 10

    r = await (
        Scenario("s")
        .interact("q", "short")
        .check(from_fn(is_short, failure_message="too long"))
        .check(from_fn(lambda trace: CheckResult.failure("custom"), name="custom"))
        .run()
    )
    assert [c.status for c in r.steps[0].results] == [CheckStatus.PASS, CheckStatus.FAIL]
    assert r.steps[0].results[0].check_name == "is_short"

    async def async_check(trace):
        return "not a bool"

    r = await Scenario("s").interact("q", "a").check(from_fn(async_check)).run()
    assert r.errored and "must return bool or CheckResult" in r.steps[0].results[0].message


@pytest.mark.parametrize(
    ("rules", "status"),
    [
        ([{"json_path": "$.model", "expected_value": "gpt-x"}], CheckStatus.PASS),
        ([{"json_path": "model", "expected_value": "other"}], CheckStatus.FAIL),
        ([{"json_path": "$.tool_calls[0].name", "expected_value": "search"}], CheckStatus.PASS),
        (
            [
                {
                    "json_path": "$.latency_ms",
                    "expected_value": "200",
                    "expected_value_type": "number",
                    "operator": "less_than",
                }
            ],
            CheckStatus.PASS,
        ),
        (
            [{"json_path": "$.cached", "expected_value": "true", "expected_value_type": "boolean"}],
            CheckStatus.PASS,
        ),
        ([{"json_path": "$.missing", "operator": "not_exists"}], CheckStatus.PASS),
        (
            [
                {"json_path": "$.model", "operator": "exists"},
                {"json_path": "$.nope", "expected_value": 1},
            ],
            CheckStatus.FAIL,
        ),
        (
            [{"json_path": "$.tags", "expected_value": "vip", "operator": "contains"}],
            CheckStatus.PASS,
        ),
    ],
)
def test_metadata_rules(trace_of, rules, status):
    metadata = {
        "model": "gpt-x",
        "tool_calls": [{"name": "search"}],
        "latency_ms": 120,
        "cached": True,
        "tags": ["vip"],
    }
    result = Metadata(json_path_rules=rules).run(trace_of("x", metadata=metadata))
    assert result.status is status, result.message


def test_metadata_errors(trace_of):
    check = Metadata(
        rules=[{"json_path": "$.a", "expected_value": 1}], metadata_key="trace.last.outputs"
    )
    assert check.run(trace_of("not a dict")).errored
    with pytest.raises(ValueError, match="not a number"):
        Metadata(
            rules=[{"json_path": "$.a", "expected_value": "x", "expected_value_type": "number"}]
        )
    with pytest.raises(ValueError, match="invalid JSONPath"):
        Metadata(rules=[{"json_path": "$.a[", "expected_value": 1}])


def test_equals_on_missing_keys_is_error_not_fail_even_inside_not(trace_of):
    result = Equals(expected_value=1, key="trace.last.outputs.x").run(trace_of({}))
    assert result.errored


async def test_wrappers_report_their_own_name_and_kind():
    r = await (
        Scenario("s")
        .interact("q", "Paris")
        .check(Not(check=StringMatching(keyword="Rome", name="inner"), name="outer"))
        .check(AllOf(checks=[StringMatching(keyword="Paris", name="inner2")]))
        .run()
    )
    outer, group = r.steps[0].results
    assert (outer.check_name, outer.details["check_kind"]) == ("outer", "not")
    assert (group.check_name, group.details["check_kind"]) == ("all_of", "all_of")
