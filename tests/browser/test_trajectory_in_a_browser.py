"""A real browser (Playwright + Debian's Chromium) on the trajectory of a tool-calling agent: the
report file's case and the viewer's result page show the calls turn by turn and the trajectory check's
diff, while the tool results, arguments and errors carry ``<script>``, ``<img onerror>`` and ``<svg
onload>`` payloads: nothing may run. Skipped with the reason without Chromium or playwright."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from .test_report_viewer import CHROMIUM, CHROMIUM_ARGS, XSS, _assert_nothing_ran, _requirements

samples = importlib.import_module("frontend_samples")

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(_requirements() is not None, reason=_requirements() or ""),
]


def _agent(messages: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [
        {"name": "search_orders", "arguments": {"q": XSS}, "result": f"3 orders {XSS}"},
        {"name": "wipe_database", "arguments": {}, "error": f"refused {XSS}"},
    ]
    return {"text": "I looked your orders up.", "tool_calls": calls}


def test_a_trajectory_opens_in_the_report_and_the_viewer(tmp_path) -> None:
    from playwright.sync_api import sync_playwright

    from giskard_nb.hub import Hub
    from giskard_nb.report import Viewer, write_report

    hub = Hub(str(tmp_path / "hub.db"), actor="browser")
    project = hub.projects.create("tools")
    check = {"identifier": "frontend_tool_trajectory", "params": {"expected": ["search_orders"]}}
    dataset = hub.datasets.upload(
        project.id, [{"messages": "Where are my orders?", "checks": [check]}], name="d"
    )
    evaluation = hub.evaluations.create_local(_agent, dataset.id, name="v1", progress=False)
    (result,) = evaluation.results()
    report = write_report(evaluation, tmp_path / "report.html")
    dialogs: list[str] = []
    console: list[str] = []
    try:
        with sync_playwright() as p, Viewer(hub, 0).start() as viewer:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1300, "height": 1000})
                page.set_default_timeout(20_000)
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                page.on("console", lambda m: console.append(m.text))

                page.goto(report.as_uri())
                page.click("details.case > summary")  # open the case: its trajectory shows
                assert page.is_visible(".trajectory")
                rows = page.query_selector_all("tr.tool-call")
                assert [r.query_selector("code").inner_text() for r in rows] == [
                    "search_orders",
                    "wipe_database",
                ]
                assert "3 orders <script>" in rows[0].inner_text()  # the payload, as text
                diff = page.inner_text(".trajectory-diff")
                assert "matched (1)" in diff and "extra (1)" in diff and "wipe_database(" in diff
                _assert_nothing_ran(page, dialogs, console)

                page.goto(
                    f"{viewer.url.rstrip('/')}/evaluations/{evaluation.id}/results/{result.id}"
                )
                assert page.is_visible(".trajectory")
                error = page.inner_text("tr.tool-error")
                assert "refused <script>" in error and "<img src=x onerror=" in error
                _assert_nothing_ran(page, dialogs, console)
            finally:
                browser.close()
    finally:
        hub.close()
