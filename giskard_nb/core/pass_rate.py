"""The one pass-rate definition, used by core results, Hub summaries, reports, charts and widgets.

``pass rate = passed / (passed + failed + errored)``: skipped results are left out (nothing was judged),
errored results count as not passed (an error is not a success). The rate is ``None`` when nothing could
be judged — no result at all, only skips, or only errors ("all results errored"): a run whose every
result errored has no pass rate, not a pass rate of 0% as if every answer were wrong.

Views always show the rate beside the error count: ``PassRate.from_counts(counts).text()`` gives
``"pass rate 75% (3 of 4 judged; 1 errored)"``, ``"pass rate n/a (all results errored: 4 errored)"`` or
``"pass rate n/a (nothing judged)"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["PassRate", "pass_rate"]


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

    def text(self, digits: int = 0) -> str:
        """``"pass rate 75% (3 of 4 judged; 1 errored)"``."""
        return f"pass rate {self.percent(digits)} ({self.note()})"

    def __str__(self) -> str:
        return self.text()
