from __future__ import annotations

import pytest

from giskard_nb import (
    CheckStatus,
    Equals,
    GreaterEquals,
    GreaterThan,
    GreaterThanEquals,
    LesserThan,
    LesserThanEquals,
    LessThan,
    LessThanEquals,
    NotEquals,
)


def test_seed_aliases_are_the_same_classes():
    assert GreaterEquals is GreaterThanEquals
    assert LesserThan is LessThan and LesserThanEquals is LessThanEquals


@pytest.mark.parametrize(
    ("check", "outputs", "status"),
    [
        (Equals(expected_value="a"), "a", CheckStatus.PASS),
        (Equals(expected_value="a"), "b", CheckStatus.FAIL),
        (Equals(expected_value=None), None, CheckStatus.PASS),
        (Equals(expected_value="ﬁ"), "fi", CheckStatus.PASS),
        (Equals(expected_value="a b"), "a  b", CheckStatus.FAIL),
        (Equals(expected_value="a b", collapse_whitespace=True), "a  b", CheckStatus.PASS),
        (Equals(expected_value={"k": ["ﬁ"]}), {"k": ["fi"]}, CheckStatus.PASS),
        (NotEquals(expected_value=1), 2, CheckStatus.PASS),
        (GreaterThan(expected_value=1), 2, CheckStatus.PASS),
        (GreaterThan(expected_value=2), 2, CheckStatus.FAIL),
        (GreaterThanEquals(expected_value=2), 2, CheckStatus.PASS),
        (LessThan(expected_value=2), 1.5, CheckStatus.PASS),
        (LessThanEquals(expected_value=2), 3, CheckStatus.FAIL),
        (GreaterThan(expected_value=1), "text", CheckStatus.ERROR),
        (GreaterThan(expected_value=1, match="any"), [0, 2], CheckStatus.PASS),
        (GreaterThan(expected_value=1, match="all"), [0, 2], CheckStatus.FAIL),
        (GreaterThan(expected_value=1, match="all"), [], CheckStatus.PASS),
        (Equals(expected_value="x", match="none"), ["a", "x"], CheckStatus.FAIL),
        (Equals(expected_value="x", match="none"), ["a", "b"], CheckStatus.PASS),
        (Equals(expected_value="x", match="any"), "not a list", CheckStatus.ERROR),
    ],
)
def test_comparisons(trace_of, check, outputs, status):
    result = check.run(trace_of(outputs))
    assert result.status is status, result.message
    if status is not CheckStatus.ERROR:
        assert result.details["actual_value"] == outputs


def test_expected_value_key_and_missing_keys_are_errors(trace_of):
    t = trace_of({"a": 3, "b": 3})
    assert (
        Equals(expected_value_key="trace.last.outputs.b", key="trace.last.outputs.a").run(t).passed
    )
    missing = Equals(expected_value_key="trace.last.outputs.zz").run(t)
    assert missing.errored and "trace.last.outputs.zz" in missing.message
    assert Equals(expected_value=1, key="trace.last.outputs.zz").run(t).errored
