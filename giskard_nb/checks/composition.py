"""Composition: AllOf, AnyOf and Not over other checks.

Failure-category hints: a failed ``AllOf`` or ``AnyOf`` hints ``harmful_content`` when its first failed
inner check hinted it (``details["results"]``), and nothing otherwise — what the Hub's rule made of a
group before hints (a group's kind meant nothing; only its message, quoting the inner check's, could
say harmful); ``Not`` hints nothing (its failure means the inner check passed: a forbidden text was
found). ``Not`` records the inner check's kind in ``details["negated_kind"]`` beside
the inner details (the keyword, or the pattern and its ``match``), which the Hub's leak detection reads.
"""

from __future__ import annotations

from pydantic import SerializeAsAny, field_validator

from giskard_nb.core.check import HINT_KEY, Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, CheckStatus
from giskard_nb.core.testcase import run_check
from giskard_nb.errors import GiskardValidationError

__all__ = ["AllOf", "AnyOf", "Not"]


#: The inner hints a group carries (see the module docstring).
_CARRIED = frozenset({"harmful_content"})


def _inner(results: list[CheckResult]) -> dict:
    return {"results": [r.model_dump(mode="json", fallback=repr) for r in results]}


class _Group(Check):
    checks: list[SerializeAsAny[Check]]

    def failure_hint(self, result: CheckResult) -> str | None:
        inner = result.details.get("results")
        for r in inner if isinstance(inner, list) else ():
            if isinstance(r, dict) and r.get("status") == "fail":
                details = r.get("details")
                hint = details.get(HINT_KEY) if isinstance(details, dict) else None
                return hint if hint in _CARRIED else None
        return None

    @field_validator("checks")
    @classmethod
    def _not_empty(cls, checks: list[Check]) -> list[Check]:
        if not checks:
            raise GiskardValidationError(f"{cls.__name__} needs at least one check")
        return checks


@Check.register("all_of")
class AllOf(_Group):
    """PASS when every inner check passes (skips ignored). Stops at the first FAIL or ERROR, which it returns.

    The PASS message joins the inner pass messages with ``"; "`` (as giskard-checks does).
    """

    async def run(self, trace: Trace) -> CheckResult:
        results = []
        for check in self.checks:
            r = await run_check(check, trace)
            results.append(r)
            if r.status in (CheckStatus.FAIL, CheckStatus.ERROR):
                label = r.check_name or "check"
                return CheckResult(
                    status=r.status, message=f"{label}: {r.message}", details=_inner(results)
                )
        if all(r.skipped for r in results):
            return CheckResult.skip("All checks were skipped.", details=_inner(results))
        messages = [r.message for r in results if r.passed and r.message]
        message = "; ".join(messages) if messages else "All checks passed."
        return CheckResult.success(message, details=_inner(results))


@Check.register("any_of")
class AnyOf(_Group):
    """PASS at the first passing arm, ERROR at the first erroring arm (a broken arm is never hidden by a
    later pass, as in giskard-checks); otherwise FAIL if any failed, else SKIP."""

    async def run(self, trace: Trace) -> CheckResult:
        results = []
        for check in self.checks:
            r = await run_check(check, trace)
            results.append(r)
            if r.passed:
                return CheckResult.success(
                    f"{r.check_name or 'check'} passed: {r.message}", details=_inner(results)
                )
            if r.errored:
                return CheckResult.error(
                    f"{r.check_name or 'check'} errored: {r.message}", details=_inner(results)
                )
        reasons = "; ".join(
            f"{r.check_name or 'check'}: {r.message}" for r in results if not r.skipped
        )
        if any(r.failed for r in results):
            return CheckResult.failure(
                f"No checks passed. Failures: {reasons}", details=_inner(results)
            )
        return CheckResult.skip("All checks were skipped.", details=_inner(results))


@Check.register("not")
class Not(Check):
    """Inverts PASS and FAIL; ERROR and SKIP are kept (a broken check never turns green)."""

    check: SerializeAsAny[Check]

    async def run(self, trace: Trace) -> CheckResult:
        r = await run_check(self.check, trace)
        label = r.check_name or "check"
        details = {k: v for k, v in r.details.items() if k != HINT_KEY}
        details["negated_kind"] = r.details.get("check_kind")
        if r.passed:
            return CheckResult.failure(
                f"expected {label} to fail, but it passed: {r.message}", details=details
            )
        if r.failed:
            return CheckResult.success(f"{label} failed, as expected: {r.message}", details=details)
        return CheckResult(status=r.status, message=f"{label}: {r.message}", details=details)
