"""A real browser: JupyterLab on 127.0.0.1 driven by Playwright with Debian's Chromium.

Opens the quickstart notebook, runs every cell, checks that the results table, a Plotly chart and the
ResultsViewer rendered, clicks the EvaluationRunner's Run button and waits for its results, and checks
that the agent output carrying ``<img onerror>`` and ``<script>`` payloads executed nothing.

Needs ``/usr/bin/chromium`` and ``jupyterlab`` + ``playwright`` in the environment (``.ci/browser.sh``
installs them); skipped with the reason otherwise. Playwright's own browsers are never downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from .jupyter import CHROMIUM, CHROMIUM_ARGS, open_and_run_all, requirements

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "notebooks" / "quickstart.ipynb"

# Checked at collection, before the session's JupyterLab starts: a fresh clone without the browser
# tools skips with the reason instead of erroring in the fixture.
pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(requirements() is not None, reason=requirements() or ""),
]


def test_quickstart_runs_renders_and_executes_no_agent_html(jupyterlab):
    from playwright.sync_api import sync_playwright

    # screenshots go to the test's temp folder, or to $GISKARD_NB_BROWSER_ARTIFACTS when set
    artifacts = Path(os.environ.get("GISKARD_NB_BROWSER_ARTIFACTS") or jupyterlab["tmp"])
    artifacts.mkdir(parents=True, exist_ok=True)
    shutil.copy(QUICKSTART, jupyterlab["root"] / QUICKSTART.name)
    started = time.monotonic()
    dialogs: list[str] = []
    console_errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on(
                "console", lambda m: console_errors.append(m.text) if m.type == "error" else None
            )
            title_before = open_and_run_all(page, jupyterlab, "quickstart.ipynb")

            # a pandas results table, a Plotly chart, and the ResultsViewer's table
            page.wait_for_selector(".jp-OutputArea-output table.dataframe", timeout=20_000)
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=20_000)
            page.wait_for_selector(".giskard-results-viewer .giskard-results-table", timeout=20_000)
            run_button = page.wait_for_selector(".giskard-run-button", timeout=20_000)
            page.wait_for_selector(
                ".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000
            )
            tables = page.evaluate(
                "() => [...document.querySelectorAll('.jp-OutputArea-output table.dataframe')]"
                ".map(t => t.textContent).join('\\n')"
            )
            assert "incorrect_answer" in tables  # the demo evaluation's results table
            assert "refund window" in tables and "injection attempt" in tables

            # the EvaluationRunner: click Run, wait for the Hub evaluation's results to open
            run_button.click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.giskard-run-state')]"
                ".some(e => e.textContent.includes('Finished: 12 results'))",
                timeout=60_000,
            )
            page.wait_for_selector(
                ".giskard-evaluation-runner .giskard-results-table", timeout=30_000
            )
            runner_text = page.inner_text(".giskard-evaluation-runner")
            assert "7 passed" in runner_text and "5 failed" in runner_text
            assert "12 / 12" in runner_text

            # the hostile output is shown as text, and nothing in it ran
            page.wait_for_timeout(1500)  # give any injected onerror handler time to fire
            html = page.content()
            assert "&lt;img src=x onerror=" in html  # shown, escaped
            assert page.evaluate("() => typeof window.__giskard_xss") == "undefined"
            assert page.title() == title_before and "pwned" not in page.title()
            assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
            assert dialogs == []
            page.screenshot(path=str(artifacts / "quickstart.png"))
            page.locator(".giskard-evaluation-runner").screenshot(
                path=str(artifacts / "runner.png")
            )
        except Exception:
            shot = artifacts / "failure.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"\nscreenshot of the failure: {shot}; console errors: {console_errors[-5:]}")
            raise
        finally:
            browser.close()
    elapsed = time.monotonic() - started
    print(f"\nbrowser test wall time: {elapsed:.1f} s (screenshots in {artifacts})")


# -- the HubBrowser and the ScanRunner in a notebook of their own ------------------------------------

WIDGETS_CELLS = [
    """\
from giskard_nb import Hub, HubBrowser
from giskard_nb.widgets import ScanRunner

XSS = "<img src=x onerror=\\"window.__giskard_xss=1\\"><script>window.__giskard_xss=2</script>"


def v1(messages):
    return {"hours?": "Open Monday", "refund?": "No refunds"}.get(messages[-1]["content"], "no")


def v2(messages):
    return {"hours?": "Closed", "refund?": "Within 30 days"}.get(messages[-1]["content"], XSS)


hub = Hub(":memory:")
project = hub.projects.create("support")
dataset = hub.datasets.create(project.id, name="faq")
for question, keyword in (("hours?", "Monday"), ("refund?", "30 days"), ("xss?", "never")):
    hub.test_cases.create(
        dataset.id,
        messages=[{"role": "user", "content": question}],
        checks=[{"identifier": "string_match", "params": {"keyword": keyword}}],
    )
first = hub.evaluations.create_local(v1, dataset.id, name="v1", progress=False)
second = hub.evaluations.create_local(v2, dataset.id, name="v2", progress=False)
hub.scans.create(project.id, agent=v2, categories=["prompt_injection"], name="offline scan",
                 max_attempts_per_probe=1, judge=None, generator=None, progress=False)
browser = HubBrowser(hub)
browser.open_evaluation(second.id)
browser""",
    """\
runner = ScanRunner(v2, categories=["prompt_injection"], max_attempts_per_probe=1,
                    judge=None, generator=None)
runner""",
]


def _widgets_notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "execution_count": None,
         "outputs": [], "source": source}
        for i, source in enumerate(WIDGETS_CELLS)
    ]  # fmt: skip
    kernel = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4,
                "nbformat_minor": 5}  # fmt: skip
    path.write_text(json.dumps(notebook))


def test_hub_browser_and_scan_runner_filter_and_screenshot(jupyterlab):
    from playwright.sync_api import sync_playwright

    artifacts = Path(os.environ.get("GISKARD_NB_BROWSER_ARTIFACTS") or jupyterlab["tmp"])
    artifacts.mkdir(parents=True, exist_ok=True)
    _widgets_notebook(jupyterlab["root"] / "widgets.ipynb")
    dialogs: list[str] = []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1400})
            page.set_default_timeout(60_000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            title_before = open_and_run_all(page, jupyterlab, "widgets.ipynb")

            # the HubBrowser: the evaluations tab, and v2 opened in the ResultsViewer
            hub_browser = page.locator(".giskard-hub-browser")
            page.wait_for_selector(".giskard-hub-browser .giskard-hub-table", timeout=90_000)
            page.wait_for_selector(".giskard-hub-browser .giskard-results-table", timeout=30_000)
            assert "v1" in hub_browser.inner_text() and "v2" in hub_browser.inner_text()
            # a filter applies on change: no Filter button to click
            viewer = page.locator(".giskard-hub-browser .giskard-results-viewer")
            viewer.locator("select").first.select_option("fail")
            page.wait_for_function(
                "() => document.querySelector('.giskard-hub-browser .giskard-results-viewer')"
                ".textContent.includes('2 of 3 results')",
                timeout=20_000,
            )
            # the text box filters once typing pauses (debounced on the kernel's event loop)
            search = viewer.get_by_placeholder("search name / input / output (filters as you type)")
            search.press_sequentially("xss", delay=40)  # the unnamed case is named “xss?”
            page.wait_for_function(
                "() => document.querySelector('.giskard-hub-browser .giskard-results-viewer')"
                ".textContent.includes('1 of 3 results')",
                timeout=20_000,
            )
            # open result #0: its conversation as chat turns
            viewer.get_by_role("button", name="Open", exact=True).click()
            page.wait_for_selector(".giskard-hub-browser .giskard-turn-assistant", timeout=20_000)
            cell_align = page.evaluate(
                "() => getComputedStyle(document.querySelector("
                "'.giskard-hub-browser .giskard-results-table td')).textAlign"
            )
            assert cell_align == "left"
            # the scans tab lists the scan with its grade
            hub_browser.get_by_role("button", name="scans", exact=True).click()
            page.wait_for_function(
                "() => document.querySelector('.giskard-hub-table').textContent"
                ".includes('offline scan')",
                timeout=20_000,
            )
            hub_browser.screenshot(path=str(artifacts / "hub_browser.png"))
            # compare v1 with v2 (the pickers start on the last two evaluations)
            hub_browser.locator("button", has_text="Compare").click()
            page.wait_for_selector(".giskard-hub-browser .giskard-comparison", timeout=20_000)
            comparison = page.inner_text(".giskard-hub-browser .giskard-comparison")
            assert "1 regressions (pass→fail), 1 fixes (fail→pass)" in comparison
            hub_browser.screenshot(path=str(artifacts / "hub_browser_compare.png"))

            # the ScanRunner: Scan, wait for the grade card
            page.locator(".giskard-scan-button").click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.giskard-scan-state')]"
                ".some(e => e.textContent.includes('Finished.'))",
                timeout=90_000,
            )
            page.wait_for_selector(".giskard-scan-runner .giskard-grade-card", timeout=20_000)
            runner_text = page.inner_text(".giskard-scan-runner")
            assert "attacks/probe" in runner_text and "findings" in runner_text
            page.locator(".giskard-scan-runner").screenshot(path=str(artifacts / "scan_runner.png"))

            page.wait_for_timeout(1000)  # give any injected handler time to fire
            assert page.evaluate("() => typeof window.__giskard_xss") == "undefined"
            assert page.title() == title_before and dialogs == []
        except Exception:
            page.screenshot(path=str(artifacts / "widgets-failure.png"), full_page=True)
            raise
        finally:
            chromium.close()
