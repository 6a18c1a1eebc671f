"""The trajectory in the notebook views: ``Trace``/``ScenarioResult`` HTML, the ResultsViewer and the
HubBrowser show the tool calls turn by turn and a trajectory check's diff (matched / missing / extra),
every call, argument, result and error escaped."""

from __future__ import annotations

import importlib

import pytest

from giskard_nb import ResultsViewer
from giskard_nb.core.trajectory import trajectory_diffs, trajectory_html, trajectory_turns
from giskard_nb.hub import Hub
from giskard_nb.widgets import HubBrowser

samples = importlib.import_module("frontend_samples")
ESCAPED = "&lt;script&gt;window.__xss="


@pytest.fixture(scope="module")
def tools_result():
    return samples.tool_suite_result()


def _no_markup_from_tools(html: str) -> None:
    assert "<script" not in html and "<img" not in html
    assert ESCAPED in html


def test_the_trace_and_scenario_html_show_the_calls_escaped(tools_result) -> None:
    result = tools_result.results[0]
    trace_html = result.final_trace._repr_html_()
    _no_markup_from_tools(trace_html)
    assert trace_html.count("class='giskard-tool-call'") == 2 and "turn 2" in trace_html
    page = result._repr_html_()
    _no_markup_from_tools(page)
    assert "Expected vs actual calls" in page and "class='giskard-diff-missing'" in page
    assert "notify_user" in page and "missing (1)" in page and "matched (2)" in page
    assert "giskard-trajectory" not in tools_result.results[1]._repr_html_()  # no calls, no view


def test_turns_and_diffs_as_plain_data(tools_result) -> None:
    result = tools_result.results[0]
    ((t0, first), (t1, second)) = trajectory_turns(result.final_trace.tool_calls)
    assert (t0, t1) == (0, 1) and first[0].name == "lookup_order" and second[0].status == "error"
    assert second[0].error.startswith("denied <script>")  # data: escaping is the renderer's job
    (diff,) = trajectory_diffs(result.check_results)
    assert diff.check == "frontend_tool_trajectory" and diff.status == "fail"
    assert diff.matched == ["lookup_order({})", "refund({})"] and diff.extra == []
    (missing,) = diff.missing
    assert missing.startswith('notify_user({"why": "<script>')
    assert trajectory_html([], []) == ""


def test_a_huge_trajectory_is_bounded() -> None:
    calls = [{"name": f"t{i}", "arguments": {"x": "y" * 5000}, "turn": 0} for i in range(500)]
    html = trajectory_html(calls)
    assert html.count("class='giskard-tool-call'") == 200 and "y" * 2000 not in html


def test_the_results_viewer_opens_a_trajectory(tools_result) -> None:
    viewer = ResultsViewer(tools_result)
    html = viewer.open(0)
    _no_markup_from_tools(html)
    assert "lookup_order" in html and "giskard-trajectory-diff" in html
    assert "giskard-trajectory" in viewer._w["detail"].value


def test_the_hub_browser_shows_a_stored_trajectory() -> None:
    hub = Hub(":memory:")
    try:
        project = hub.projects.create("p")
        item = {
            "messages": "where is order 42?",
            "expected_tool_calls": [{"name": "<script>x</script>", "arguments": {}}],
            "checks": [
                {"identifier": "frontend_tool_trajectory", "params": {"expected": ["refund"]}}
            ],
        }
        dataset = hub.datasets.upload(project.id, [item], name="d")
        evaluation = hub.evaluations.create_local(samples.tool_agent, dataset.id, progress=False)
        browser = HubBrowser(hub, project_id=project.id)
        browser.open_dataset(dataset.id)
        page = browser._w["detail"].children[0].value
        assert "expects the calls &lt;script&gt;x&lt;/script&gt;" in page and "<script" not in page
        viewer = browser.open_evaluation(evaluation.id)
        html = viewer.open(0)
        _no_markup_from_tools(html)
        assert "lookup_order" in html and "missing (1)" in html and "extra (1)" in html
    finally:
        hub.close()
