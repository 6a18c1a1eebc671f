"""``to_hub_format(result)``: a suite or scenario result as the JSON payload of a Hub upload.

Plain JSON data: the result's fields and computed counts (``passed_count``, ``pass_rate``: None when
nothing was judged...), every scenario with its steps, check results and final trace. Values JSON
cannot hold (an agent's custom objects in a trace) are made JSON-safe by ``core.sanitize.to_safe_data``.
Same as ``SuiteResult.to_hub_format()``.
"""

from __future__ import annotations

from typing import Any

from giskard_nb.checks.export.junit import as_suite_result
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.suite_result import SuiteResult

__all__ = ["to_hub_format"]


def to_hub_format(result: SuiteResult | ScenarioResult) -> dict[str, Any]:
    """The JSON-ready dict of ``result`` (a ``ScenarioResult`` is sent as a suite of one)."""
    return as_suite_result(result, "to_hub_format").to_hub_format()
