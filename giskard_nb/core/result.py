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

    def __await__(self):
        """``await check.run(trace)`` works for sync checks too: awaiting a result gives the result."""
        return self
        yield  # pragma: no cover - makes this a generator

    @classmethod
    def _make(cls, status: CheckStatus, message: Any, details: Any, metrics: Any) -> CheckResult:
        well_formed = (
            (message is None or isinstance(message, str))
            and (details is None or isinstance(details, dict))
            and (not metrics or all(isinstance(m, Metric) for m in metrics))
        )
        if well_formed:  # the common case: skip re-validation on the hot path of every check
            return _construct(cls, status, message, list(metrics or []), details or {})
        return cls(status=status, message=message, details=details or {}, metrics=metrics or [])

    @classmethod
    def success(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls._make(CheckStatus.PASS, message, details, metrics)

    @classmethod
    def failure(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls._make(CheckStatus.FAIL, message, details, metrics)

    @classmethod
    def error(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls._make(CheckStatus.ERROR, message, details, metrics)

    @classmethod
    def skip(cls, message: str | None = None, *, details=None, metrics=None) -> CheckResult:
        return cls._make(CheckStatus.SKIP, message, details, metrics)

    def with_details(self, details: dict[str, Any]) -> CheckResult:
        """A copy with ``details`` merged over this result's own details (``details`` wins)."""
        return _construct(
            type(self), self.status, self.message, self.metrics, {**self.details, **details}
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


def _construct(cls: type[CheckResult], status, message, metrics, details) -> CheckResult:
    """Build a CheckResult from known-good values without validation (what model_construct does, faster)."""
    obj = cls.__new__(cls)
    object.__setattr__(
        obj,
        "__dict__",
        {"status": status, "message": message, "metrics": metrics, "details": details},
    )
    object.__setattr__(obj, "__pydantic_fields_set__", {"status", "message", "metrics", "details"})
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def roll_up(statuses: Iterable[CheckStatus]) -> CheckStatus:
    """ERROR beats FAIL beats PASS; all-SKIP is SKIP; nothing at all is SKIP (no check ran, so nothing
    passed: a verdict is earned)."""
    seen = set(statuses)
    if CheckStatus.ERROR in seen:
        return CheckStatus.ERROR
    if CheckStatus.FAIL in seen:
        return CheckStatus.FAIL
    if CheckStatus.PASS in seen:
        return CheckStatus.PASS
    return CheckStatus.SKIP
