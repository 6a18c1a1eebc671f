"""``to_dataframe``: every result-bearing object as a tidy pandas DataFrame; the one home of the
DataFrame helpers (scenario and suite results in ``frames.results``, scans in ``frames.scans``, the
Hub's evaluation results in ``frames.hub_results`` and its other records in ``frames.hub_records``,
the shared cells and dtypes in ``frames._common``). May import: errors, palette, core, scan and hub;
the Hub declares the stored result columns that ``frames.hub_results`` shows.

Columns are documented where each frame is built (``giskard_nb.frames.results`` for scenario and suite
results). The rules everywhere: one row per unit, check results in long format, ``status`` columns are
Categoricals with categories pass, fail, error, skip, durations are float milliseconds, costs float USD,
timestamps tz-aware UTC, and nested payloads are JSON strings, never opaque Python objects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.frames._common import json_cell
from giskard_nb.frames.calibration import calibration_frame
from giskard_nb.frames.export import FRAME_FORMATS, require_parquet, write_frame
from giskard_nb.frames.rates import rates_frame
from giskard_nb.palette import STATUSES

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FRAME_FORMATS",
    "STATUSES",
    "calibration_frame",
    "rates_frame",
    "records_frame",
    "require_parquet",
    "to_dataframe",
    "write_frame",
]


def to_dataframe(obj: Any, *, level: str | None = None) -> pd.DataFrame:
    """A DataFrame of ``obj``: a ScenarioResult, a SuiteResult, a list of ScenarioResults, or a list of
    pydantic models (one row each).

    ``level`` picks the unit of a row for results: ``"scenarios"`` (suite default), ``"cases"`` (a
    scenario over its repeats), ``"steps"``, ``"checks"`` (long format; the default for one scenario),
    ``"interactions"`` or ``"tool_calls"`` (one row per tool call: ``giskard_nb.frames.tool_calls``).
    """
    from giskard_nb.core.scenario_result import ScenarioResult
    from giskard_nb.core.suite_result import SuiteResult
    from giskard_nb.frames.results import results_frame

    if isinstance(obj, SuiteResult):
        return results_frame(obj.results, level=level or "scenarios", suite=obj.name)
    if isinstance(obj, ScenarioResult):
        return results_frame([obj], level=level or "checks")
    if isinstance(obj, list | tuple) and obj and all(isinstance(x, ScenarioResult) for x in obj):
        return results_frame(list(obj), level=level or "scenarios")
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes | dict):
        items = list(obj)
        if level is not None:
            raise GiskardValidationError(
                "level= applies to scenario and suite results only; a list of records has one row "
                "per record"
            )
        return records_frame(items)
    raise GiskardValidationError(
        f"cannot make a DataFrame from {type(obj).__name__}: give a ScenarioResult, a SuiteResult, "
        "or a list of results or records"
    )


def records_frame(items: list[Any]) -> pd.DataFrame:
    """One row per pydantic model (or dict): scalars as columns, nested values as JSON strings,
    ``status`` as the status Categorical and ``*_at`` fields as UTC timestamps."""
    import pandas as pd

    from giskard_nb.frames._common import status_values, utc_timestamps

    rows = []
    for item in items:
        if isinstance(item, dict):
            data = dict(item)
        elif hasattr(item, "model_dump"):
            data = item.model_dump(mode="json")
        else:
            raise GiskardValidationError(
                f"cannot make a DataFrame row from {type(item).__name__}: give pydantic models or dicts"
            )
        rows.append(
            {
                k: json_cell(v) if isinstance(v, dict | list | tuple) else getattr(v, "value", v)
                for k, v in data.items()
            }
        )
    df = pd.DataFrame(rows)
    for col in df.columns:
        if col == "status" and df[col].dropna().isin(STATUSES).all():
            df[col] = status_values(df[col])
        elif col.endswith("_at") or col.endswith("_datetime"):
            df[col] = utc_timestamps(df[col]).array
    return df
