"""The one pass-rate definition, used by core results, Hub summaries, reports, charts and widgets.

``pass rate = passed / (passed + failed + errored)``: skipped results are left out (nothing was judged),
errored results count as not passed (an error is not a success). The rate is ``None`` when nothing could
be judged — no result at all, only skips, or only errors ("all results errored"): a run whose every
result errored has no pass rate, not a pass rate of 0% as if every answer were wrong.

Views always show the rate beside the error count: ``PassRate.from_counts(counts).text()`` gives
``"pass rate 75% (3 of 4 judged; 1 errored)"``, ``"pass rate n/a (all results errored: 4 errored)"`` or
``"pass rate n/a (nothing judged)"``; ``text(interval=rate.interval())`` adds the 95 % interval:
``"pass rate 75% [95% CI 30%–95%] (3 of 4 judged; 1 errored)"``.

How sure is a rate: ``PassRate.interval()`` is Wilson's score interval of ``passed`` out of ``counted``
(one run of each case); ``rate_interval(cases, repeated=True)`` bootstraps over cases when each case ran
several times (the runs of one case are not independent draws). Both come from ``giskard_nb.stats``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from giskard_nb.stats.intervals import Interval, bootstrap_rate, wilson_interval

__all__ = ["PassRate", "pass_rate", "rate_interval"]


def pass_rate(passed: int, failed: int, errored: int) -> float | None:
    """``passed / (passed + failed + errored)``, or ``None`` when no result was judged (none at all,
    or every one errored)."""
    if passed + failed == 0:
        return None
    return passed / (passed + failed + errored)


@dataclass(frozen=True)
class PassRate:
    """Counts of passed, failed, errored and skipped results, with the rate and its wording."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0

    @classmethod
    def from_counts(cls, counts: Mapping[Any, int]) -> PassRate:
        """From a status → count mapping (keys ``"pass"``, ``"fail"``, ``"error"``, ``"skip"`` or the
        ``CheckStatus`` members); other keys are ignored."""
        totals = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
        for key, value in counts.items():
            name = str(getattr(key, "value", key))
            if name in totals and value:
                totals[name] += int(value)
        return cls(totals["pass"], totals["fail"], totals["error"], totals["skip"])

    @classmethod
    def from_statuses(cls, statuses: Any) -> PassRate:
        """From an iterable of statuses (strings or ``CheckStatus``)."""
        counts: dict[str, int] = {}
        for status in statuses:
            name = str(getattr(status, "value", status))
            counts[name] = counts.get(name, 0) + 1
        return cls.from_counts(counts)

    @property
    def value(self) -> float | None:
        """The pass rate (see ``pass_rate``)."""
        return pass_rate(self.passed, self.failed, self.errored)

    @property
    def judged(self) -> int:
        """Results with a verdict: passed + failed."""
        return self.passed + self.failed

    @property
    def counted(self) -> int:
        """The denominator: passed + failed + errored."""
        return self.passed + self.failed + self.errored

    @property
    def all_errored(self) -> bool:
        return self.errored > 0 and self.judged == 0

    def percent(self, digits: int = 0) -> str:
        """``"75%"``, or ``"n/a"`` when there is no rate."""
        value = self.value
        return "n/a" if value is None else f"{value:.{digits}%}"

    def note(self) -> str:
        """What the rate is made of, with the error count: ``"3 of 4 judged; 1 errored"``."""
        if self.all_errored:
            return f"all results errored: {self.errored} errored"
        if self.counted == 0:
            return "nothing judged" + (f": {self.skipped} skipped" if self.skipped else "")
        note = f"{self.judged} of {self.counted} judged; {self.errored} errored"
        return note + (f"; {self.skipped} skipped" if self.skipped else "")

    def interval(self, confidence: float = 0.95) -> Interval | None:
        """Wilson's interval of the rate (``passed`` of ``counted``); None when there is no rate."""
        if self.value is None:
            return None
        return wilson_interval(self.passed, self.counted, confidence)

    def __add__(self, other: PassRate) -> PassRate:
        return PassRate(
            self.passed + other.passed,
            self.failed + other.failed,
            self.errored + other.errored,
            self.skipped + other.skipped,
        )

    def text(self, digits: int = 0, interval: Interval | None = None) -> str:
        """``"pass rate 75% (3 of 4 judged; 1 errored)"``; with ``interval``,
        ``"pass rate 75% [95% CI 30%–95%] (3 of 4 judged; 1 errored)"``."""
        shown = (
            f" [{interval.text(digits)}]" if interval is not None and self.value is not None else ""
        )
        return f"pass rate {self.percent(digits)}{shown} ({self.note()})"

    def __str__(self) -> str:
        return self.text()


def rate_interval(
    cases: Sequence[PassRate],
    *,
    repeated: bool,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> Interval | None:
    """The interval of the pooled pass rate of ``cases`` (one ``PassRate`` per case): Wilson when each
    case ran once, the seeded bootstrap over cases when ``repeated``. None when there is no rate."""
    total = sum(cases, PassRate())
    if total.value is None:
        return None
    if not repeated:
        return total.interval(confidence)
    return bootstrap_rate([(c.passed, c.counted) for c in cases], confidence=confidence, seed=seed)
