"""Charts of results: returned figures, status colours, pass rates, escaped labels, empty data."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from giskard_nb import GiskardValidationError, SuiteResult
from giskard_nb.charts import plot_cost, plot_latency, plot_pass_rate
from giskard_nb.core.render import STATUS_COLORS


def _bars(fig: go.Figure) -> dict[str, go.Bar]:
    return {t.name: t for t in fig.data if isinstance(t, go.Bar)}


def test_pass_rate_per_check_counts_and_colours(suite_result: SuiteResult):
    fig = plot_pass_rate(suite_result)
    assert isinstance(fig, go.Figure)
    bars = _bars(fig)
    assert set(bars) == {"passed", "failed", "errored", "skipped"}
    assert bars["passed"].marker.color == STATUS_COLORS["pass"]
    assert bars["failed"].marker.color == STATUS_COLORS["fail"]
    by_check = dict(zip(bars["passed"].y, bars["passed"].x, strict=True))
    failed = dict(zip(bars["failed"].y, bars["failed"].x, strict=True))
    # string_matching: passed in "greets" and skipped step; failed in "fails" and "hostile output"
    assert by_check["string_matching"] == 1 and failed["string_matching"] == 2
    text = next(t for t in fig.data if isinstance(t, go.Scatter))
    rates = dict(zip(text.y, text.text, strict=True))
    # a SuiteResult's bars carry the 95 % interval (Wilson: 1 of 1 → 21%–100%; 1 of 3 → 6%–79%)
    assert (
        rates["answer"] == "100% [21%–100%]" and rates["frontend_fake_judge"] == "100% [21%–100%]"
    )
    assert rates["string_matching"] == "33% [6%–79%]"
    frame_rates = plot_pass_rate(suite_result.to_dataframe(level="checks")).data[-1]
    assert dict(zip(frame_rates.y, frame_rates.text, strict=True))["answer"] == "100%"
    assert "of check results passed" in fig.layout.title.text


def test_worst_group_is_drawn_on_top(suite_result: SuiteResult):
    bars = _bars(plot_pass_rate(suite_result, by="scenario"))
    # plotly draws the last category on top: the worst pass rate comes last
    assert bars["passed"].y[-1] in ("errors", "fails", "hostile output")
    assert bars["passed"].y[0] in ("greets", "structured")


def test_pass_rate_per_tag_and_per_tag_key(suite_result: SuiteResult):
    bars = _bars(plot_pass_rate(suite_result, by="tag"))
    assert {"smoke", "topic:greeting", "topic:api"} <= set(bars["passed"].y)
    keyed = _bars(suite_result.plot_pass_rate(by="tag", tag_key="topic"))
    assert set(keyed["passed"].y) == {"greeting", "robustness", "api", "security"}
    counts = {y: sum(b.x[list(b.y).index(y)] for b in keyed.values()) for y in keyed["passed"].y}
    assert counts["greeting"] == 2


def test_labels_are_escaped(suite_result: SuiteResult):
    from giskard_nb import Scenario

    evil = Scenario("<b onmouseover=alert(1)>x</b>").interact("a", outputs="b").run_sync()
    fig = plot_pass_rate(evil, by="scenario")
    assert all("<b" not in y for y in _bars(fig)["passed"].y)
    assert "&lt;b onmouseover=alert(1)&gt;" in _bars(fig)["passed"].y[0]


def test_latency_histogram_and_boxes(suite_result: SuiteResult):
    fig = plot_latency(suite_result)
    assert {t.name for t in fig.data} <= {"passed", "failed", "errored", "skipped"}
    assert sum(len(t.x) for t in fig.data) == 5
    assert "median" in fig.layout.title.text
    boxes = suite_result.plot_latency(level="checks")
    assert all(isinstance(t, go.Box) for t in boxes.data)
    assert {t.name for t in boxes.data} >= {"string_matching", "answer"}
    assert len(suite_result.results[0].plot_latency().data) == 2


def test_cost_from_usage_metrics(suite_result: SuiteResult):
    fig = suite_result.plot_cost()
    assert "total $0.0015" in fig.layout.title.text and "1 calls" in fig.layout.title.text


def test_empty_inputs_give_an_explaining_figure():
    empty = SuiteResult(name="nothing")
    for fig in (plot_pass_rate(empty), plot_latency(empty), plot_cost(empty)):
        assert isinstance(fig, go.Figure)
        assert fig.layout.annotations and "No" in fig.layout.annotations[0].text


def test_charts_accept_frames_and_reject_wrong_ones(suite_result: SuiteResult):
    fig = plot_pass_rate(suite_result.to_dataframe(level="checks"))
    assert _bars(fig)["passed"].x
    with pytest.raises(GiskardValidationError, match="needs the columns check"):
        plot_pass_rate(suite_result.to_dataframe(level="interactions"))
    with pytest.raises(GiskardValidationError, match="by must be one of"):
        plot_pass_rate(suite_result, by="colour")
    with pytest.raises(GiskardValidationError, match="level must be"):
        plot_latency(suite_result, level="steps")


def test_figures_serialize_to_json(suite_result: SuiteResult):
    import json

    for fig in (plot_pass_rate(suite_result), plot_latency(suite_result), plot_cost(suite_result)):
        assert json.loads(fig.to_json())["data"]
