"""giskard-checks' error contract on the built-in checks: what is rejected at construction (and with
which exception type), the ERROR/FAIL messages other code matches on, and the ``details`` keys."""

from __future__ import annotations

from collections import defaultdict, namedtuple

import pytest

from giskard_nb import (
    CheckStatus,
    Equals,
    FnCheck,
    GreaterThan,
    Interaction,
    JsonValid,
    LessThan,
    Readability,
    RegexMatching,
    Scenario,
    StringMatching,
    Trace,
    from_fn,
)
from giskard_nb.checks.base import normalize_data, normalize_string
from giskard_nb.checks.readability import (
    automated_readability_index,
    coleman_liau_index,
    gunning_fog,
    text_counts,
)
from giskard_nb.core.extraction import NoMatch
from tests.checks.conftest import make_trace

# --- construction -----------------------------------------------------------------------------


def test_an_invalid_regex_is_a_value_error_at_construction():
    with pytest.raises(ValueError, match="invalid regular expression '\\[a'"):
        RegexMatching(pattern="[a")


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        (lambda: RegexMatching(text="x"), "Exactly one of 'pattern' or 'pattern_key'"),
        (
            lambda: RegexMatching(pattern="a", pattern_key="trace.last.inputs"),
            "Exactly one of 'pattern' or 'pattern_key'",
        ),
        (lambda: StringMatching(), "Exactly one of 'keyword' or 'keyword_key'"),
        (lambda: Equals(), "Exactly one of 'expected_value' or 'expected_value_key'"),
        (
            lambda: GreaterThan(expected_value=1, expected_value_key="trace.last.outputs"),
            "Exactly one of 'expected_value' or 'expected_value_key'",
        ),
    ],
)
def test_exactly_one_source_is_a_value_error(build, fragment):
    with pytest.raises(ValueError, match=fragment):
        build()


def test_readability_bounds_are_ordered_but_optional():
    with pytest.raises(ValueError, match="min_score must be less than or equal to max_score"):
        Readability(min_score=10, max_score=5)
    result = Readability().run(make_trace("The cat sat on the mat. It was a sunny day."))
    assert result.status is CheckStatus.PASS and "measured only" in result.message
    assert result.metric("flesch_reading_ease") == result.details["score"]


# --- readability metrics ------------------------------------------------------------------------

TEXT = "The cat sat on the mat. Everybody considered it a remarkable animal."


def test_readability_grade_metrics_follow_their_formulas():
    sentences, words, _ = text_counts(TEXT)
    assert (sentences, words) == (2, 12)
    # three syllables or more: everybody, considered, remarkable, animal
    assert gunning_fog(TEXT) == pytest.approx(0.4 * (12 / 2 + 100 * 4 / 12))
    letters = len("".join(ch for ch in TEXT if ch.isalpha()))
    assert automated_readability_index(TEXT) == pytest.approx(
        4.71 * letters / 12 + 0.5 * 12 / 2 - 21.43
    )
    assert coleman_liau_index(TEXT) == pytest.approx(
        0.0588 * (100 * letters / 12) - 0.296 * (100 * 2 / 12) - 15.8
    )


@pytest.mark.parametrize("metric", ["gunning_fog", "automated_readability_index"])
def test_readability_grade_metrics_gate_a_reply(metric):
    result = Readability(metric=metric, max_score=1).run(make_trace(TEXT))
    assert result.status is CheckStatus.FAIL and "above the maximum" in result.message
    assert result.details["metric"] == metric and result.details["text"] == TEXT


# --- FnCheck ------------------------------------------------------------------------------------


async def test_a_check_function_returning_something_else_raises_type_error():
    with pytest.raises(TypeError, match="must return bool or CheckResult, got str"):
        await FnCheck(fn=lambda trace: "yes").run(Trace())

    async def async_fn(trace):
        return None

    with pytest.raises(TypeError, match="must return bool or CheckResult, got NoneType"):
        await FnCheck(fn=async_fn).run(Trace())


async def test_in_a_scenario_the_type_error_is_an_error_result_naming_the_check():
    result = await Scenario("s").interact("q", "a").check(from_fn(lambda t: 1, name="odd")).run()
    check = result.steps[0].results[0]
    assert check.status is CheckStatus.ERROR
    assert check.message.startswith("Check 'odd' failed with error: TypeError: ")
    assert check.details["exception_type"] == "TypeError"


# --- comparisons --------------------------------------------------------------------------------


def test_comparison_details_on_pass_and_fail():
    passed = LessThan(expected_value=10).run(make_trace(5))
    assert passed.passed and passed.details["actual_value"] == 5
    assert passed.details["expected_value"] == 10
    failed = LessThan(expected_value=5).run(make_trace(10))
    assert failed.failed and "Expected value less than 5 but got 10" in failed.message
    assert (failed.details["actual_value"], failed.details["expected_value"]) == (10, 5)


def test_comparison_details_when_a_value_is_missing():
    actual_missing = Equals(expected_value=1, target_key="trace.last.outputs.nope").run(
        make_trace({"other": 1})
    )
    assert actual_missing.errored
    assert isinstance(actual_missing.details["actual_value"], NoMatch)
    assert actual_missing.details["expected_value"] == 1
    assert "No value found for key 'trace.last.outputs.nope' (the actual value)" in (
        actual_missing.message
    )
    expected_missing = Equals(expected_value_key="trace.last.metadata.ref").run(make_trace(1))
    assert expected_missing.errored
    assert isinstance(expected_missing.details["expected_value"], NoMatch)


@pytest.mark.parametrize(
    ("check", "outputs", "fragments"),
    [
        (LessThan(expected_value=10), object(), ["< comparison", "object and int"]),
        (GreaterThan(expected_value=5), "10", ["> comparison", "str and int"]),
        (GreaterThan(expected_value=5, match="any"), [1, "x"], ["> comparison", "str and int"]),
    ],
)
def test_a_comparison_that_raises_is_an_error_saying_not_supported(check, outputs, fragments):
    result = check.run(make_trace(outputs))
    assert result.status is CheckStatus.ERROR
    assert result.message.startswith("Comparison not supported: ")
    assert all(f in result.message for f in fragments)
    assert "actual_value" in result.details and result.details["expected_value"] in (5, 10)


# --- missing values, JsonValid ------------------------------------------------------------------


def test_missing_keyword_and_text_name_the_key_and_keep_the_no_match():
    keyword = StringMatching(text="Some text", keyword_key="trace.last.inputs.nope").run(Trace())
    assert keyword.errored
    assert "No value found for keyword key 'trace.last.inputs.nope'" in keyword.message
    assert keyword.details["keyword"].key == "trace.last.inputs.nope"
    text = RegexMatching(pattern="x", target_key="trace.last.outputs.nope").run(Trace())
    assert text.errored and isinstance(text.details["text"], NoMatch)
    assert "no value found for text key" in text.message.lower()


@pytest.mark.parametrize(
    ("outputs", "status"),
    [('{"a": 1}', CheckStatus.PASS), ("[1]", CheckStatus.FAIL), ("{oops", CheckStatus.FAIL)],
)
def test_json_valid_details_carry_the_schema(outputs, status):
    schema = {"type": "object"}
    result = JsonValid(schema=schema).run(make_trace(outputs))
    assert result.status is status and result.details["schema"] == schema
    if outputs == "[1]":
        assert "does not match the provided schema" in result.message
    missing = JsonValid(schema=schema, target_key="trace.last.outputs.x").run(make_trace({}))
    assert missing.errored and missing.details["schema"] == schema
    assert isinstance(missing.details["value"], NoMatch)
    assert JsonValid().run(make_trace("{}")).details["schema"] is None


def test_json_valid_unserializable_value_names_the_key():
    result = JsonValid(parse=False).run(make_trace({"values": {1, 2}}))
    assert result.failed and "'trace.last.outputs' is not JSON serializable" in result.message


# --- normalize_data -----------------------------------------------------------------------------


def test_normalize_data_takes_the_reference_arguments():
    nfd = "cafe\u0301"
    assert normalize_data(f"  {nfd}   au  lait ", "NFC") == "café au lait"
    assert normalize_string(f" {nfd} ", "NFC") == "café"
    assert normalize_data(nfd, None) == nfd  # no form: no unicode change
    # the comparison checks keep whitespace unless collapse_whitespace=True
    assert normalize_data("a  b", "NFKC", False) == "a  b"


def test_normalize_data_keeps_named_tuples_and_dict_subclasses():
    point = namedtuple("Point", ["label", "value"])
    assert normalize_data(point(label="cafe\u0301", value=1), "NFC") == point("café", 1)
    assert type(normalize_data(point("x", 1), "NFC")) is point
    data = defaultdict(list, {"text": "cafe\u0301"})
    out = normalize_data(data, "NFC")
    assert isinstance(out, defaultdict) and out.default_factory is list
    assert out == {"text": "café"} and data["text"] == "cafe\u0301"  # the input is unchanged


def test_comparisons_accept_named_tuples():
    point = namedtuple("Point", ["label", "value"])
    trace = Trace(interactions=[Interaction(inputs="q", outputs=point("cafe\u0301", 1))])
    assert Equals(expected_value=point("café", 1)).run(trace).passed


def test_json_valid_saves_its_schema_under_the_alias():
    schema = {"type": "object"}
    check = JsonValid(expected_schema=schema)
    assert check.model_dump()["schema"] == schema and "expected_schema" not in check.model_dump()
    assert JsonValid.model_validate({"schema": schema}) == check
    assert JsonValid.model_validate({"expected_schema": schema}) == check
    with pytest.raises(ValueError, match="bogus"):
        JsonValid.model_validate({"schema": schema, "bogus": 1})


def test_a_rego_syntax_error_is_a_value_error_without_the_engine_backtrace():
    pytest.importorskip("regorus", reason="the optional regorus engine is not installed (.[rego])")
    from giskard_nb import RegoPolicy

    with pytest.raises(ValueError, match="the Rego policy does not compile") as info:
        RegoPolicy(policy="package demo\nallow if {", rule="data.demo.allow")
    assert "policy.rego:2" in str(info.value) and "backtrace" not in str(info.value).lower()
