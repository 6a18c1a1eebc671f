"""``to_junit_xml(result, path=None)``: a suite or scenario result as JUnit XML for CI dashboards.

The function spelling of ``SuiteResult.to_junit_xml`` (same XML: one ``<testcase>`` per scenario, text
made XML-safe). A ``ScenarioResult`` is exported as a suite of one. With ``path``, the file is written
atomically (parent folders created); the XML string is returned either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite_result import SuiteResult
from giskard_nb.errors import GiskardValidationError

__all__ = ["as_suite_result", "to_junit_xml"]


def as_suite_result(result: Any, what: str) -> SuiteResult:
    """``result`` as a ``SuiteResult`` (a ``ScenarioResult`` becomes a suite of one)."""
    if isinstance(result, SuiteResult):
        return result
    if isinstance(result, ScenarioResult):
        return SuiteResult(
            name=result.scenario_name, results=[result], duration_ms=result.duration_ms
        )
    raise GiskardValidationError(
        f"{what} takes a SuiteResult or a ScenarioResult (what Suite.run / Scenario.run return), "
        f"got {type(result).__name__}"
    )


def to_junit_xml(result: SuiteResult | ScenarioResult, path: str | Path | None = None) -> str:
    """JUnit XML of ``result``; written to ``path`` when given. Returns the XML."""
    if path is not None:
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return as_suite_result(result, "to_junit_xml").to_junit_xml(path)
