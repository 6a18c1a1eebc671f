"""Confidence intervals: Wilson's score interval for one proportion, and the seeded percentile
bootstrap over cases (for repeated runs, or any statistic of a list of items)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, TypeVar

from giskard_nb.errors import GiskardValidationError

__all__ = ["Interval", "bootstrap_interval", "bootstrap_rate", "wilson_interval"]

T = TypeVar("T")

#: Resamples drawn by the bootstrap unless told otherwise.
DEFAULT_RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]`` at ``confidence`` (0.95), computed by ``method``."""

    low: float
    high: float
    confidence: float = 0.95
    method: str = "wilson"

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, digits: int = 0) -> str:
        """``"95% CI 47%–92%"``."""
        return f"{self.confidence:.0%} CI {self.low:.{digits}%}–{self.high:.{digits}%}"

    def __str__(self) -> str:
        return self.text()


def _z(confidence: float) -> float:
    _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _check_confidence(confidence: float) -> None:
    if not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise GiskardValidationError(
            f"confidence must be a number between 0 and 1 (such as 0.95), got {confidence!r}"
        )


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval | None:
    """Wilson's score interval for ``successes`` out of ``trials``; None when ``trials`` is 0.

    ``p̂ = s/n``, ``z`` the normal quantile; centre ``(p̂ + z²/2n) / (1 + z²/n)``, half-width
    ``z·sqrt(p̂(1-p̂)/n + z²/4n²) / (1 + z²/n)``. Unlike ``p̂ ± z·se`` it stays inside [0, 1] and
    is not empty at 0 or n successes."""
    for name, value in (("successes", successes), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise GiskardValidationError(f"{name} must be a whole number >= 0, got {value!r}")
    if successes > trials:
        raise GiskardValidationError(f"successes ({successes}) cannot exceed trials ({trials})")
    if trials == 0:
        return None
    z = _z(confidence)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding residue
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(low, high, confidence, "wilson")


def bootstrap_interval(
    items: Sequence[T],
    statistic: Callable[[list[T]], float | None],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = 0,
) -> Interval | None:
    """The percentile bootstrap interval of ``statistic`` over ``items`` (resampled with replacement,
    ``resamples`` times, from ``random.Random(seed)``); None when there are no items or the statistic
    is undefined (None) on every resample. Resamples where it is undefined are left out."""
    _check_confidence(confidence)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise GiskardValidationError(f"resamples must be a whole number >= 1, got {resamples!r}")
    items = list(items)
    if not items:
        return None
    rng = random.Random(seed)
    n = len(items)
    values = []
    for _ in range(resamples):
        value = statistic(rng.choices(items, k=n))
        if value is not None and not math.isnan(value):
            values.append(value)
    return _percentiles(values, confidence)


def _percentiles(values: list[float], confidence: float) -> Interval | None:
    """The percentile interval of bootstrap values (None when there are none)."""
    if not values:
        return None
    values = sorted(values)
    tail = (1 - confidence) / 2
    return Interval(_quantile(values, tail), _quantile(values, 1 - tail), confidence, "bootstrap")


def _quantile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly (numpy's default)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def bootstrap_rate(
    cases: Sequence[tuple[int, int]],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = 0,
) -> Interval | None:
    """The bootstrap interval of a pass rate over cases, each ``(passed, counted)`` over its repeats:
    cases are resampled (not runs: the runs of one case are not independent), and the rate of a
    resample is its passed total over its counted total. None when nothing was counted.

    With numpy installed (it comes with pandas) the resamples are drawn by numpy's seeded generator,
    a hundred times faster on thousands of cases; without it, by ``random.Random(seed)``."""
    cases = [(int(p), int(c)) for p, c in cases if c]
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy comes with pandas
        return bootstrap_interval(
            cases, _pooled_rate, confidence=confidence, resamples=resamples, seed=seed
        )
    _check_confidence(confidence)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise GiskardValidationError(f"resamples must be a whole number >= 1, got {resamples!r}")
    if not cases:
        return None
    n = len(cases)
    passed = np.array([p for p, _ in cases], dtype=np.float64)
    counted = np.array([c for _, c in cases], dtype=np.float64)
    generator = np.random.default_rng(seed)
    chunk = max(1, 1_000_000 // n)  # bounded memory: at most a million indexes at a time
    rates: list[float] = []
    for start in range(0, resamples, chunk):
        picks = generator.integers(0, n, size=(min(chunk, resamples - start), n))
        rates.extend((passed[picks].sum(axis=1) / counted[picks].sum(axis=1)).tolist())
    return _percentiles(rates, confidence)


def _pooled_rate(sample: list[Any]) -> float | None:
    counted = sum(c for _, c in sample)
    return sum(p for p, _ in sample) / counted if counted else None
