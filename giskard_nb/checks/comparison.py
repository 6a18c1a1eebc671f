"""Comparison checks: Equals, NotEquals, GreaterThan, GreaterThanEquals, LessThan, LessThanEquals.

The actual value comes from ``target_key`` (alias ``key``); the expected one is ``expected_value`` (``None`` is
a valid expectation) or ``expected_value_key``. With ``match`` ("any", "all", "none") the actual value must
be a list and each item is compared. Strings are unicode-normalized (NFKC) by default; whitespace is kept
unless ``collapse_whitespace=True``. An unresolvable key or an impossible comparison is ERROR, not FAIL.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import model_validator

from giskard_nb.checks.base import NormalizationForm, no_value, normalize_data, target_key_field
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import GiskardValidationError

__all__ = [
    "ComparisonCheck",
    "Equals",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "NotEquals",
]


class ComparisonCheck(Check):
    """Base of the comparison checks (not registered itself)."""

    op: ClassVar[Callable[[Any, Any], bool]]
    symbol: ClassVar[str]
    phrase: ClassVar[str]

    target_key: JSONPathStr = target_key_field()
    expected_value: Value = MISSING
    expected_value_key: JSONPathStr | None = None
    normalization_form: NormalizationForm = "NFKC"
    collapse_whitespace: bool = False
    match: Literal["any", "all", "none"] | None = None

    @model_validator(mode="after")
    def _one_expected(self) -> ComparisonCheck:
        if (self.expected_value is MISSING) == (self.expected_value_key is None):
            raise GiskardValidationError(
                f"{type(self).__name__}: Exactly one of 'expected_value' or 'expected_value_key' must "
                "be given (expected_value=None is a valid expectation)"
            )
        return self

    def run(self, trace: Trace) -> CheckResult:
        expected = self.expected_value
        if expected is MISSING:
            expected = resolve(trace, self.expected_value_key)
            if isinstance(expected, NoMatch):
                return no_value("the expected value", self.expected_value_key).with_details(
                    {"actual_value": None, "expected_value": expected}
                )
        actual = resolve(trace, self.target_key)
        if isinstance(actual, NoMatch):
            return no_value("the actual value", self.target_key).with_details(
                {"actual_value": actual, "expected_value": expected}
            )
        actual_n = normalize_data(actual, self.normalization_form, self.collapse_whitespace)
        expected_n = normalize_data(expected, self.normalization_form, self.collapse_whitespace)
        details = {"actual_value": actual, "expected_value": expected}
        if self.match is None:
            try:
                ok = bool(type(self).op(actual_n, expected_n))
            except Exception as exc:
                return CheckResult.error(self._unsupported(actual, expected, exc), details=details)
            if ok:
                return CheckResult.success(
                    f"{actual!r:.200} {self.symbol} {expected!r:.200} holds.", details=details
                )
            phrase = f"{self.phrase} " if self.phrase else ""
            return CheckResult.failure(
                f"Expected value {phrase}{expected!r:.200} but got {actual!r:.200}.",
                details=details,
            )
        if not isinstance(actual_n, list | tuple | set | frozenset):
            return CheckResult.error(
                f"match={self.match!r} needs a list at {self.target_key!r}, got {type(actual).__name__}",
                details=details,
            )
        hits = []
        for item in actual_n:
            try:
                if type(self).op(item, expected_n):
                    hits.append(item)
            except Exception as exc:
                return CheckResult.error(self._unsupported(item, expected, exc), details=details)
        n, k = len(actual_n), len(hits)
        ok = {"any": k > 0, "all": k == n, "none": k == 0}[self.match]
        message = f"{k} of {n} items satisfy '{self.symbol} {expected!r:.100}' (match={self.match})"
        if ok:
            return CheckResult.success(message + ".", details=details)
        if self.match == "none":
            message += f": {hits!r:.200}"
        return CheckResult.failure(message + ".", details=details)

    def _unsupported(self, actual: Any, expected: Any, exc: Exception) -> str:
        """The ERROR message of a comparison that raised (giskard-checks: "Comparison not supported")."""
        a, b = type(actual).__name__, type(expected).__name__
        return (
            f"Comparison not supported: a {self.symbol} comparison between {a} and {b} raised "
            f"{type(exc).__name__}: {exc} (actual {actual!r:.100}, expected {expected!r:.100}). "
            "Compare values of one type, or pick the part of the output to compare with target_key."
        )


@Check.register("equals")
class Equals(ComparisonCheck):
    """PASS when the actual value equals the expected one."""

    op = operator.eq
    symbol = "=="
    phrase = ""


@Check.register("not_equals")
class NotEquals(ComparisonCheck):
    """PASS when the actual value differs from the expected one."""

    op = operator.ne
    symbol = "!="
    phrase = "different from"


@Check.register("greater_than")
class GreaterThan(ComparisonCheck):
    """PASS when actual > expected."""

    op = operator.gt
    symbol = ">"
    phrase = "greater than"


@Check.register("greater_than_equals")
class GreaterThanEquals(ComparisonCheck):
    """PASS when actual >= expected."""

    op = operator.ge
    symbol = ">="
    phrase = "greater than or equal to"


@Check.register("less_than")
class LessThan(ComparisonCheck):
    """PASS when actual < expected."""

    op = operator.lt
    symbol = "<"
    phrase = "less than"


@Check.register("less_than_equals")
class LessThanEquals(ComparisonCheck):
    """PASS when actual <= expected."""

    op = operator.le
    symbol = "<="
    phrase = "less than or equal to"


# The seed README's names.
GreaterEquals = GreaterThanEquals
LesserThan = LessThan
LesserThanEquals = LessThanEquals
