"""The paired comparison of two runs over the same cases: the exact sign test on the cases where they
differ (McNemar's exact test when each case has one verdict), stated in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

from giskard_nb.errors import GiskardValidationError

__all__ = ["PairedTest", "paired_test", "sign_test_p_value"]


def sign_test_p_value(better: int, worse: int) -> float:
    """The two-sided exact sign test: under "no difference" each differing case is better or worse
    with probability 1/2, so ``p = min(1, 2·P(X <= min(better, worse)))`` with ``X ~ Bin(n, 1/2)``
    and ``n = better + worse``; 1.0 when no case differs."""
    for name, value in (("better", better), ("worse", worse)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise GiskardValidationError(f"{name} must be a whole number >= 0, got {value!r}")
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class PairedTest:
    """How run ``new`` compares with run ``old`` case by case."""

    better: int
    worse: int
    same: int
    p_value: float
    confidence: float = 0.95
    old_name: str = "before"
    new_name: str = "after"

    @property
    def significant(self) -> bool:
        """True when the difference is larger than the noise at ``confidence``."""
        return self.p_value < 1 - self.confidence

    @property
    def cases(self) -> int:
        return self.better + self.worse + self.same

    def sentence(self) -> str:
        """``"v2 is better on 12 cases, worse on 3; the difference is significant at 95 %"``."""
        verdict = "is significant" if self.significant else "is not significant"
        return (
            f"{self.new_name} is better on {_cases(self.better)}, worse on {self.worse}"
            f" (same on {self.same}); the difference {verdict} at {self.confidence:.0%} "
            f"(exact sign test, p = {self.p_value:.3g})"
        )

    def __str__(self) -> str:
        return self.sentence()


def _cases(n: int) -> str:
    return f"{n} case" if n == 1 else f"{n} cases"


def paired_test(
    old: Sequence[float | None],
    new: Sequence[float | None],
    *,
    confidence: float = 0.95,
    old_name: str = "before",
    new_name: str = "after",
) -> PairedTest:
    """Compare two runs over the same cases, in the same order: each value is a case's pass fraction
    (1 or 0 for one verdict; the share of passed repeats otherwise), None when the case has no verdict
    in that run (left out). A case is better when its fraction rose, worse when it fell."""
    if len(old) != len(new):
        raise GiskardValidationError(
            f"a paired comparison needs the same cases in both runs: got {len(old)} and {len(new)} "
            "cases (compare results of the same suite or dataset)"
        )
    better = worse = same = 0
    for a, b in zip(old, new, strict=True):
        if a is None or b is None:
            continue
        if b > a:
            better += 1
        elif b < a:
            worse += 1
        else:
            same += 1
    return PairedTest(
        better,
        worse,
        same,
        sign_test_p_value(better, worse),
        confidence,
        old_name,
        new_name,
    )
