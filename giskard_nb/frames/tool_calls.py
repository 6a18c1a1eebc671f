"""DataFrames of tool calls: one row per call an agent made (``level="tool_calls"``).

The call's columns, after the columns that name its case: ``turn`` (0-based index of the interaction
the call belongs to), ``index`` (0-based position of the call in the case's trajectory), ``name``,
``arguments`` (JSON), ``status`` (a Categorical: ok, error, unknown), ``result`` and ``error`` (text,
cut at ``MAX_CELL`` characters: a tool may return megabytes), ``duration_s`` (float seconds, NaN when
not measured), ``server`` (the MCP server or namespace, when known) and ``tool_checks`` (JSON object:
the case's tool-check outcomes, check name → status, the same on every call of the case; which checks
are tool checks: ``giskard_nb.core.trajectory.is_tool_check``).

For core results (``SuiteResult.to_dataframe(level="tool_calls")``) a case is named by ``suite``,
``scenario_index``, ``scenario`` and ``scenario_status``; for Hub evaluation results by
``evaluation_id``, ``result_id``, ``test_case_id`` and ``result_status``. Exported to CSV
(``giskard_nb.frames.write_frame``), text a spreadsheet would run as a formula is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.tools import TOOL_STATUSES
from giskard_nb.core.trajectory import shown_text, tool_check_outcomes
from giskard_nb.frames._common import frame, json_cell, status_values

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.core.scenario_result import ScenarioResult

__all__ = [
    "CALL_COLUMNS",
    "HUB_CASE_COLUMNS",
    "MAX_CELL",
    "SCENARIO_CASE_COLUMNS",
    "call_rows",
    "hub_tool_calls_frame",
    "scenario_tool_calls_frame",
]

#: The longest ``result`` / ``error`` cell (the rest is cut with an ellipsis).
MAX_CELL = 1000
CALL_COLUMNS = (
    "turn",
    "index",
    "name",
    "arguments",
    "status",
    "result",
    "error",
    "duration_s",
    "server",
    "tool_checks",
)
SCENARIO_CASE_COLUMNS = ("suite", "scenario_index", "scenario", "scenario_status")
HUB_CASE_COLUMNS = ("evaluation_id", "result_id", "test_case_id", "result_status")


def call_rows(
    case: Sequence[Any], calls: Iterable[Any], checks: Iterable[Any]
) -> list[tuple[Any, ...]]:
    """The rows of one case: ``case`` (the values of its naming columns) then ``CALL_COLUMNS`` for
    each of ``calls`` (``ToolCall`` objects or their stored dicts); ``checks``: the case's check
    results or outcomes, whose tool checks fill ``tool_checks``."""
    from giskard_nb.core.tool_adapters import tool_calls_from

    calls = list(calls)
    if not calls:
        return []
    outcomes = json_cell(tool_check_outcomes(checks))
    rows = []
    for i, call in enumerate(tool_calls_from(calls)):
        rows.append(
            (
                *case,
                call.turn or 0,
                i,
                call.name,
                json_cell(call.arguments),
                call.status,
                shown_text(call.result, MAX_CELL) if call.result is not None else None,
                shown_text(call.error, MAX_CELL) if call.error is not None else None,
                call.duration_s,
                call.server,
                outcomes,
            )
        )
    return rows


def scenario_tool_calls_frame(
    results: Sequence[ScenarioResult], suite: str | None = None
) -> pd.DataFrame:
    """One row per tool call of each result's final trace (see the module docstring)."""
    rows = []
    for i, r in enumerate(results):
        calls = r.final_trace.tool_calls
        if calls:
            rows += call_rows((suite, i, r.scenario_name, r.status), calls, r.check_results)
    return _frame(rows, SCENARIO_CASE_COLUMNS, "scenario_status", {"scenario_index": "int64"})


def hub_tool_calls_frame(rows: Iterable[Sequence[Any]]) -> pd.DataFrame:
    """One row per tool call of Hub evaluation results: ``rows`` from ``call_rows`` with the
    ``HUB_CASE_COLUMNS`` as the case."""
    return _frame(list(rows), HUB_CASE_COLUMNS, "result_status", {})


def _frame(
    rows: list[tuple[Any, ...]], case: tuple[str, ...], case_status: str, dtypes: dict[str, str]
) -> pd.DataFrame:
    import pandas as pd

    names = (*case, *CALL_COLUMNS)
    columns = dict(zip(names, map(list, zip(*rows, strict=True)), strict=True)) if rows else {}
    columns = {n: columns.get(n, []) for n in names}
    columns[case_status] = status_values(columns[case_status])
    columns["status"] = pd.Categorical(columns["status"], categories=list(TOOL_STATUSES))
    columns["duration_s"] = [float("nan") if v is None else v for v in columns["duration_s"]]
    text = [n for n in names if n not in (case_status, "status", "duration_s")]
    text = [n for n in text if n not in ("turn", "index", *dtypes)]
    return frame(
        columns,
        dtypes={**dtypes, "turn": "int64", "index": "int64", "duration_s": "float64"},
        text=text,
        order=names,
    )
