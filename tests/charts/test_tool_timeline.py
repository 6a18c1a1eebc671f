"""The Plotly timeline of tool calls per turn: rows per case and turn, bars by status, durations when
measured, escaped labels and hover text, a case filter, an empty figure, a Hub evaluation."""

from __future__ import annotations

import importlib

import plotly.graph_objects as go
import pytest

from giskard_nb import GiskardValidationError
from giskard_nb.charts import plot_tool_timeline
from giskard_nb.hub import Hub

samples = importlib.import_module("frontend_samples")


@pytest.fixture(scope="module")
def tools_result():
    return samples.tool_suite_result()


def _bars(fig: go.Figure) -> dict[str, go.Bar]:
    return {t.name: t for t in fig.data}


def test_one_row_per_turn_coloured_by_status_and_timed(tools_result) -> None:
    fig = plot_tool_timeline(tools_result)
    bars = _bars(fig)
    assert set(bars) == {"ok", "error"}
    assert bars["ok"].y == ("refund flow · turn 1",) and bars["error"].y == (
        "refund flow · turn 2",
    )
    assert bars["ok"].x == (0.2,) and bars["ok"].base == (0.0,)
    assert bars["error"].marker.color == "#c62828" and bars["ok"].marker.color == "#2e7d32"
    assert fig.layout.xaxis.title.text == "seconds"
    hover = bars["ok"].customdata[0]
    assert "<script>" not in hover and "&lt;script&gt;" in hover
    assert "&lt;script&gt;" in bars["error"].customdata[0]  # the error text, escaped


def test_untimed_calls_are_steps_and_names_are_escaped() -> None:
    calls = [
        {"name": "<img src=x onerror=alert(1)>", "arguments": {}},
        {"name": "b", "arguments": {}},
    ]
    frame = (
        samples.Scenario("s <b>x</b>")
        .interact(inputs="go", outputs=lambda inputs: {"text": "ok", "tool_calls": calls})
        .run_sync()
        .to_dataframe(level="tool_calls")
    )
    fig = plot_tool_timeline(frame)
    (bar,) = fig.data
    assert bar.name == "unknown" and bar.base == (0.0, 1.0) and bar.x == (1.0, 1.0)
    assert bar.text[0] == "&lt;img src=x onerror=alert(1)&gt;"
    assert bar.y[0] == "s &lt;b&gt;x&lt;/b&gt; · turn 1"
    assert fig.layout.xaxis.title.text == "call (in order)"


def test_a_case_filter_and_nothing_to_plot(tools_result, suite_result) -> None:
    assert plot_tool_timeline(tools_result, case="no such case").layout.annotations[0].text == (
        "No tool calls to plot."
    )
    assert "No tool calls" in plot_tool_timeline(suite_result).layout.annotations[0].text
    with pytest.raises(GiskardValidationError, match="turn"):
        import pandas as pd

        plot_tool_timeline(pd.DataFrame({"name": ["x"]}))


def test_a_hub_evaluation_is_plotted_from_its_stored_trajectories() -> None:
    hub = Hub(":memory:")
    try:
        project = hub.projects.create("p")
        dataset = hub.datasets.upload(project.id, [{"question": "refund it"}], name="d")
        evaluation = hub.evaluations.create_local(samples.tool_agent, dataset.id, progress=False)
        fig = evaluation.plot_tool_timeline()
        (bar,) = fig.data
        (result,) = evaluation.results()
        assert bar.name == "error" and bar.y == (f"{result.test_case_id} · turn 1",)
    finally:
        hub.close()
