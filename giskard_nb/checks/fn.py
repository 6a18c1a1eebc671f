"""FnCheck / from_fn: a check from any function of the trace."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import Field

from giskard_nb.core.check import Check
from giskard_nb.core.inject import injector
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import Value
from giskard_nb.core.result import CheckResult

__all__ = ["FnCheck", "from_fn"]


@Check.register("fn")
class FnCheck(Check):
    """Calls ``fn(trace)`` (sync or async). ``True`` → PASS, ``False`` → FAIL, a CheckResult is kept as is;
    anything else raises ``TypeError`` (as in giskard-checks; in a scenario or test case it becomes an
    ERROR result naming what came back). Python functions cannot be saved to JSON."""

    fn: Value
    success_message: str | None = None
    failure_message: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    async def run(self, trace: Trace) -> CheckResult:
        out = injector(self.fn, ("trace",)).call({"trace": trace})
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, CheckResult):
            return out
        if type(out).__name__ in ("bool_", "bool") and hasattr(out, "__bool__"):
            out = bool(out)
        if out is True:
            return CheckResult.success(
                self.success_message or "The function returned True.", details=self.details
            )
        if out is False:
            return CheckResult.failure(
                self.failure_message or "The function returned False.", details=self.details
            )
        raise TypeError(
            f"the check function must return bool or CheckResult, got {type(out).__name__}: "
            f"{out!r:.100}. Return True/False (or bool(...) of your condition)."
        )


def from_fn(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    success_message: str | None = None,
    failure_message: str | None = None,
    details: dict[str, Any] | None = None,
) -> FnCheck:
    """Build a FnCheck from a function of the trace."""
    return FnCheck(
        fn=fn,
        name=name or (None if getattr(fn, "__name__", "<lambda>") == "<lambda>" else fn.__name__),
        description=description,
        success_message=success_message,
        failure_message=failure_message,
        details=details or {},
    )
