"""TestCase (checks run against one trace), its result, and the runner that executes checks."""

from __future__ import annotations

import inspect
import time
import traceback as tb
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, computed_field

from giskard_nb.core.check import HINT_KEY, Check, valid_hint
from giskard_nb.core.generic import Parametrizable, Params
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, CheckStatus, roll_up
from giskard_nb.core.sync import sync_twin

__all__ = [
    "NO_CHECKS",
    "TestCase",
    "TestCaseError",
    "TestCaseResult",
    "TestCaseRunner",
    "TestCaseStatus",
]

TestCaseStatus = CheckStatus

#: The reason of a test case, step or scenario that is SKIP because it has no (enabled) check.
NO_CHECKS = "no checks"


class TestCaseError(BaseModel):
    """An exception that stopped a step, with the phase it came from."""

    __test__ = False
    model_config = ConfigDict(defer_build=True, frozen=True)

    message: str
    exception_type: str
    phase: str | None = None
    traceback: str | None = None

    def summary(self) -> str:
        where = f" during {self.phase}" if self.phase else ""
        return f"{self.exception_type}{where}: {self.message}"

    @classmethod
    def from_exception(cls, exc: BaseException, phase: str | None) -> TestCaseError:
        return cls(
            message=str(exc) or type(exc).__name__,
            exception_type=type(exc).__name__,
            phase=phase,
            traceback="".join(tb.format_exception(exc)),
        )


class TestCaseResult(Parametrizable[*Params], BaseModel):
    """The outcome of one step (or test case): one CheckResult per check, in order."""

    __test__ = False
    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str | None = None
    results: list[CheckResult] = Field(default_factory=list)
    duration_ms: float = 0.0
    last_interaction_index: int | None = None
    error: TestCaseError | None = None

    def model_copy(
        self, *, update: dict[str, Any] | None = None, deep: bool = False
    ) -> TestCaseResult:
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("status", None)  # recomputed from the (possibly updated) fields
        return copy

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def status(self) -> CheckStatus:
        return (
            CheckStatus.ERROR if self.error is not None else roll_up(r.status for r in self.results)
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
    def failures_and_errors(self) -> list[CheckResult]:
        return [r for r in self.results if r.status in (CheckStatus.FAIL, CheckStatus.ERROR)]

    @property
    def skip_reason(self) -> str | None:
        """Why this step is SKIP: ``"no checks"`` when it had none, else its first skip message."""
        if not self.skipped:
            return None
        if not self.results:
            return NO_CHECKS
        return next((r.message for r in self.results if r.message), "every check was skipped")

    def format_failures(self, include_skipped: bool = True) -> list[str]:
        """One line per non-passing check, ``"<name or kind> FAILED|ERRORED|SKIPPED: <message>"``,
        after a ``"Test case ERRORED: ..."`` line for a step error (giskard-checks' lines)."""
        lines = [f"Test case ERRORED: {self.error.summary()}"] if self.error else []
        for r in self.results:
            if r.status is not CheckStatus.PASS and (include_skipped or not r.skipped):
                verdict = _VERDICTS[r.status]
                lines.append(f"{r.check_name or 'check'} {verdict}: {r.message or ''}".rstrip())
        return lines

    def assert_passed(self) -> None:
        """Raise AssertionError unless a check ran and passed (and none failed or errored): a result
        where every check was skipped, or that had no checks, did not pass either."""
        if self.status is CheckStatus.SKIP:
            raise AssertionError(f"nothing passed: every check was skipped ({self.skip_reason})")
        if self.status is not CheckStatus.PASS:
            lines = "\n".join(f"  - {line}" for line in self.format_failures())
            raise AssertionError(f"Test case failed ({self.status.value.upper()}):\n{lines}")


_VERDICTS = {CheckStatus.FAIL: "FAILED", CheckStatus.ERROR: "ERRORED", CheckStatus.SKIP: "SKIPPED"}


class TestCaseRunner:
    """Runs a list of checks on one trace. Exceptions become ERROR results unless asked to propagate."""

    __test__ = False

    async def run_checks(
        self,
        trace: Trace,
        checks: Sequence[Check],
        *,
        return_exception: bool = True,
        name: str | None = None,
        last_interaction_index: int | None = None,
    ) -> TestCaseResult:
        start = time.perf_counter()
        results: list[Any] = [None] * len(checks)
        pending: list[tuple[int, Any, float]] = []
        for i, check in enumerate(checks):
            t0 = time.perf_counter()
            try:
                out = check.run(trace)
            except Exception as exc:
                if not return_exception:
                    for _, aw, _ in pending:
                        getattr(aw, "close", lambda: None)()
                    raise
                results[i] = _error_result(check, exc, t0)
                continue
            if out.__class__ is not CheckResult and inspect.isawaitable(out):
                pending.append((i, out, t0))
            else:
                results[i] = _finish(check, out, t0)
        if pending:
            import asyncio

            outs = await asyncio.gather(*(aw for _, aw, _ in pending), return_exceptions=True)
            for (i, _, t0), out in zip(pending, outs, strict=True):
                if isinstance(out, BaseException):
                    if not return_exception or not isinstance(out, Exception):
                        raise out
                    results[i] = _error_result(checks[i], out, t0)
                else:
                    results[i] = _finish(checks[i], out, t0)
        return TestCaseResult(
            name=name,
            results=results,
            duration_ms=(time.perf_counter() - start) * 1000,
            last_interaction_index=last_interaction_index,
        )

    async def run(self, test_case: TestCase, *, return_exception: bool = True) -> TestCaseResult:
        return await self.run_checks(
            test_case.trace,
            test_case.checks,
            return_exception=return_exception,
            name=test_case.name,
        )


def _finish(check: Check, out: Any, t0: float) -> CheckResult:
    details = {
        "check_name": check.label,
        "check_kind": type(check)._kind,
        "duration_ms": (time.perf_counter() - t0) * 1000,
    }
    if not isinstance(out, CheckResult):
        return CheckResult.error(
            f"check {check.label!r} returned {type(out).__name__} instead of a CheckResult",
            details=details,
        )
    if out.status is CheckStatus.FAIL:
        details[HINT_KEY] = _hint(check, out)
    return out.with_details(details)


def _hint(check: Check, result: CheckResult) -> str | None:
    """The check's failure-category hint for ``result``; a hint that is not an identifier, or a
    ``failure_hint`` that raises (a broken custom check), is recorded as none."""
    try:
        return valid_hint(check.failure_hint(result))
    except Exception:
        return None


def _error_result(check: Check, exc: Exception, t0: float) -> CheckResult:
    return _finish(
        check,
        CheckResult.error(
            f"Check {check.label!r} failed with error: {type(exc).__name__}: {exc}",
            details={
                "phase": "check",
                "exception_type": type(exc).__name__,
                "traceback": "".join(tb.format_exception(exc)),
            },
        ),
        t0,
    )


default_test_case_runner = TestCaseRunner()


class TestCase(Parametrizable[*Params], BaseModel):
    """A set of checks run against a trace you built yourself."""

    __test__ = False
    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    name: str | None = None
    trace: SerializeAsAny[Trace]
    checks: list[SerializeAsAny[Check]]

    async def run(self, *, return_exception: bool = True) -> TestCaseResult:
        return await default_test_case_runner.run(self, return_exception=return_exception)

    run_sync = sync_twin(run)

    async def assert_passed(self) -> TestCaseResult:
        result = await self.run()
        result.assert_passed()
        return result


async def run_check(check: Check, trace: Trace) -> CheckResult:
    """Run one check (sync or async); an exception becomes an ERROR result."""
    t0 = time.perf_counter()
    try:
        out = check.run(trace)
        if not isinstance(out, CheckResult) and inspect.isawaitable(out):
            out = await out
    except Exception as exc:
        return _error_result(check, exc, t0)
    return _finish(check, out, t0)
