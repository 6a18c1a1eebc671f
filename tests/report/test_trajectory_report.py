"""The HTML report shows a case's trajectory (its tool calls turn by turn, a trajectory check's diff)
on the case's page, for in-memory results and stored Hub evaluations; tool results and arguments that
carry markup stay text."""

from __future__ import annotations

import importlib
from typing import Any

from giskard_nb import Scenario, Suite
from giskard_nb.hub import Hub
from giskard_nb.report import render_html
from giskard_nb.report.hub_pages import result as result_page

from .conftest import XSS, assert_inert

samples = importlib.import_module("frontend_samples")


def _agent(inputs: Any) -> dict[str, Any]:
    text = inputs if isinstance(inputs, str) else inputs[-1]["content"]
    calls = [
        {"name": "search", "arguments": {"q": XSS}, "result": f"found {XSS}", "duration_s": 0.01},
        {"name": "delete_all", "arguments": {}, "error": f"refused {XSS}"},
    ]
    return {"text": f"done: {text}", "tool_calls": calls}


_CHECK = samples.FrontendTrajectory(expected=["search", "notify"])


def _assert_trajectory(html: str) -> None:
    page = assert_inert(html)
    text = " ".join(" ".join(page.text).split())
    assert html.count('class="tool-call tool-ok"') == 1 and 'class="tool-call tool-error"' in html
    assert "Tool calls" in text and "turn 1" in text and "10 ms" in text
    assert "found <script>" in text and "refused <script>" in text  # shown as text
    assert "matched (1)" in text and "missing (1)" in text and "extra (1)" in text
    assert "notify({" in text and "delete_all(" in text


def test_a_suite_report_shows_each_case_s_trajectory() -> None:
    suite = Suite(
        "tools", target=_agent, scenarios=[Scenario("s").interact("hello").check(_CHECK)]
    ).run_sync()
    _assert_trajectory(render_html(suite))


def test_a_stored_evaluation_s_pages_show_the_trajectory() -> None:
    hub = Hub(":memory:")
    try:
        project = hub.projects.create("p")
        check = {
            "identifier": "frontend_tool_trajectory",
            "params": {"expected": ["search", "notify"]},
        }
        dataset = hub.datasets.upload(
            project.id, [{"messages": "hello", "checks": [check]}], name="d"
        )
        evaluation = hub.evaluations.create_local(_agent, dataset.id, progress=False)
        _assert_trajectory(render_html(evaluation))
        (result,) = evaluation.results()
        html, _nonce = result_page(hub, evaluation.id, result.id, {})  # the viewer's result page
        _assert_trajectory(html)
    finally:
        hub.close()
