"""CheckStatus, Metric and CheckResult: what a check returns."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CheckResult", "CheckStatus", "Metric", "roll_up"]


class CheckStatus(StrEnum):
    """Outcome of a check: PASS, FAIL, ERROR (could not be evaluated) or SKIP (not run)."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"

    def __str__(self) -> str:
        return self.value


class Metric(BaseModel):
    """A named number a check measured (a score, tokens, a cost...)."""

    model_config = ConfigDict(defer_build=True, frozen=True)
    name: str
    value: float


class CheckResult(BaseModel):
    """The immutable result of running one check.

    The runner adds ``check_name``, ``check_kind`` and ``duration_ms`` to ``details``.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    status: CheckStatus
    message: str | None = None
    metrics: list[Metric] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def success(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls(
            status=CheckStatus.PASS, message=message, details=details or {}, metrics=metrics or []
        )

    @classmethod
    def failure(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls(
            status=CheckStatus.FAIL, message=message, details=details or {}, metrics=metrics or []
        )

    @classmethod
    def error(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls(
            status=CheckStatus.ERROR, message=message, details=details or {}, metrics=metrics or []
        )

    @classmethod
    def skip(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls(
            status=CheckStatus.SKIP, message=message, details=details or {}, metrics=metrics or []
        )

    @property
    def passed(self) -> bool:
        return self.status is CheckStatus.PASS

    @property
    def failed(self) -> bool:
        return self.status is CheckStatus.FAIL

    @property
    def errored(self) -> bool:
        return self.status is CheckStatus.ERROR

    @property
    def skipped(self) -> bool:
        return self.status is CheckStatus.SKIP

    @property
    def check_name(self) -> str | None:
        """The name (or kind) of the check that produced this result, when the runner recorded it."""
        return self.details.get("check_name") or self.details.get("check_kind")

    def metric(self, name: str, default: float | None = None) -> float | None:
        """The value of the metric called ``name``."""
        return next((m.value for m in self.metrics if m.name == name), default)

    def __repr__(self) -> str:
        label = f" {self.check_name!r}" if self.check_name else ""
        return f"<CheckResult{label} {self.status.value.upper()}: {self.message!r}>"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import check_result_html

        return check_result_html(self)


def roll_up(statuses: Iterable[CheckStatus]) -> CheckStatus:
    """ERROR beats FAIL beats PASS; all-SKIP is SKIP; nothing at all is PASS."""
    seen = set(statuses)
    if CheckStatus.ERROR in seen:
        return CheckStatus.ERROR
    if CheckStatus.FAIL in seen:
        return CheckStatus.FAIL
    if seen == {CheckStatus.SKIP}:
        return CheckStatus.SKIP
    return CheckStatus.PASS
