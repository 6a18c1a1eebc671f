"""A timeline of the tool calls an agent made, turn by turn.

``plot_tool_timeline(result)`` takes a ScenarioResult, a SuiteResult, a list of them, a Hub
evaluation (or its ``results()``), or the frame of ``to_dataframe(level="tool_calls")``, and draws one
row per turn of each case (``case · turn N``) with its calls in order, coloured by status (ok, error,
unknown). When every call's duration was measured, each call is a bar as long as it took, placed after
the calls before it in its turn (seconds); otherwise the calls are evenly spaced steps. Names,
arguments and errors are agent and tool output: shown bounded and escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from giskard_nb.charts._style import as_frame, empty_figure, label, layout

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["MAX_ROWS", "plot_tool_timeline"]

#: The most rows (turns) drawn; the title says when more were left out.
MAX_ROWS = 60
_REQUIRED = ("turn", "index", "name", "status")
_CASE_COLUMNS = ("scenario", "test_case_id", "result_id")
_COLORS = {"ok": "#2e7d32", "error": "#c62828", "unknown": "#9e9e9e"}


def _frame(obj: Any) -> pd.DataFrame:
    import pandas as pd

    if not isinstance(obj, pd.DataFrame) and callable(getattr(obj, "to_dataframe", None)):
        from giskard_nb.core.scenario_result import ScenarioResult
        from giskard_nb.core.suite_result import SuiteResult

        if not isinstance(obj, ScenarioResult | SuiteResult):  # a Hub evaluation or result list
            obj = obj.to_dataframe(level="tool_calls")
    return as_frame(obj, "tool_calls", _REQUIRED)


def plot_tool_timeline(result: Any, *, case: str | None = None) -> go.Figure:
    """The tool calls per turn (see the module docstring); ``case``: only the case of that name
    (scenario name, test case id or result id)."""
    import plotly.graph_objects as go

    df = _frame(result)
    key = next((c for c in _CASE_COLUMNS if c in df.columns), None)
    if case is not None and key is not None:
        df = df[df[[c for c in _CASE_COLUMNS if c in df.columns]].astype(str).eq(case).any(axis=1)]
    if df.empty:
        return empty_figure("Tool calls", "No tool calls to plot.")
    index_col = "scenario_index" if "scenario_index" in df.columns else key
    df = df.sort_values([c for c in (index_col, "turn", "index") if c is not None], kind="stable")
    cases = df[key].astype(str) if key else "case"
    rows = (cases + " · turn " + (df["turn"] + 1).astype(str)).tolist()
    kept = list(dict.fromkeys(rows))[:MAX_ROWS]
    timed = "duration_s" in df.columns and df["duration_s"].notna().all()
    starts, widths, previous_row, clock = [], [], None, 0.0
    for row, duration in zip(rows, df["duration_s"] if timed else [1.0] * len(rows), strict=True):
        clock = 0.0 if row != previous_row else clock
        starts.append(clock)
        widths.append(float(duration))
        clock += float(duration)
        previous_row = row
    fig = go.Figure()
    records = df.assign(_row=rows, _start=starts, _width=widths)
    records = records[records["_row"].isin(set(kept))]
    for status, part in records.groupby(records["status"].astype(str), sort=True):
        fig.add_trace(
            go.Bar(
                y=[label(r, 80) for r in part["_row"]],
                x=part["_width"].tolist(),
                base=part["_start"].tolist(),
                orientation="h",
                name=status,
                marker_color=_COLORS.get(status, "#555"),
                text=[label(n, 40) for n in part["name"]],
                textposition="inside",
                insidetextanchor="middle",
                customdata=[_hover(r) for r in part.itertuples()],
                hovertemplate="%{customdata}<extra></extra>",
            )
        )
    fig.update_layout(barmode="overlay", bargap=0.25)
    fig.update_xaxes(title_text="seconds" if timed else "call (in order)")
    fig.update_yaxes(categoryorder="array", categoryarray=[label(r, 80) for r in kept[::-1]])
    more = len(dict.fromkeys(rows)) - len(kept)
    title = "Tool calls per turn" + (f" (first {MAX_ROWS} turns; {more} more)" if more else "")
    return layout(fig, title, height=max(260, 90 + 30 * len(kept)))


def _hover(row: Any) -> str:
    parts = [f"<b>{label(row.name, 80)}</b> ({label(row.status, 20)})"]
    arguments = getattr(row, "arguments", None)
    if isinstance(arguments, str):
        parts.append("arguments: " + label(arguments, 200))
    error = getattr(row, "error", None)
    if isinstance(error, str) and error:
        parts.append("error: " + label(error, 200))
    duration = getattr(row, "duration_s", None)
    if duration is not None and duration == duration:
        parts.append(f"{duration * 1000:.0f} ms")
    return "<br>".join(parts)
