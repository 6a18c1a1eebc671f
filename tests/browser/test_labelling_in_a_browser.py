"""A real browser: JupyterLab on 127.0.0.1 driven by Playwright with Debian's Chromium, labelling
check verdicts in the ResultsViewer.

A notebook runs a small suite and opens its results in ``ResultsViewer(result, labels=<file>,
labeler="ana")``. The test clicks "disagree" on one check and "agree" on the other (the focus
follows: to the next check, then to "Next unlabelled"), presses Enter there (the next result opens,
the focus on its first "agree"), labels it with the keyboard only (Space on the focused "agree", Tab
then Enter on "disagree"), reading the labels file after each label, and saves a note with Enter.
The agent's reply and the note carry ``<img onerror>`` and ``<script>`` payloads: nothing may run,
and typing in the note box triggers no notebook shortcut. Skipped with the reason without Chromium, playwright or
JupyterLab (``.ci/browser.sh`` installs them).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from .jupyter import CHROMIUM, CHROMIUM_ARGS, open_and_run_all, requirements

XSS_NOTE = '<img src=x onerror="window.__giskard_xss=3">'

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(requirements() is not None, reason=requirements() or ""),
]

CELL = """\
from giskard_nb import ResultsViewer, Scenario, StringMatching, Suite, from_fn

XSS = "<img src=x onerror=\\"window.__giskard_xss=1\\"><script>window.__giskard_xss=2</script>"


def agent(question):
    return {"hours?": "Open Monday", "refund?": "No refunds " + XSS}[question]


def short(trace):
    return len(str(trace.last.outputs)) < 40


suite = Suite("faq", target=agent)
for name, question, keyword in (("hours", "hours?", "Monday"), ("refund", "refund?", "30 days")):
    suite.append(
        Scenario(name)
        .interact(question)
        .check(StringMatching(keyword=keyword, name="keyword"))
        .check(from_fn(short, name="short"))
    )
result = await suite.run()
viewer = ResultsViewer(result, labels=LABELS, labeler="ana")
viewer.open(0)
viewer"""


def _labels(path: Path, count: int, deadline: float) -> dict[tuple[str, str], tuple[bool, str]]:
    """The labels file once it holds ``count`` labels: {(scenario, check): (passed, labeler)}."""
    rows: list[dict] = []
    while time.monotonic() < deadline:
        if path.exists():
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            if len(rows) >= count:
                break
        time.sleep(0.2)
    return {(r["scenario"], r["check"]): (r["passed"], r["labeler"]) for r in rows}


def _notes(path: Path, scenario: str, check: str, deadline: float) -> list[str]:
    """The notes of the labels of ``check`` on ``scenario`` once one has a note."""
    notes: list[str] = []
    while time.monotonic() < deadline:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        mine = [r for r in rows if (r["scenario"], r["check"]) == (scenario, check)]
        notes = [r["note"] for r in mine]
        if any(notes):
            break
        time.sleep(0.2)
    return notes


def test_label_two_checks_by_clicking_then_one_result_by_keyboard(jupyterlab):
    from playwright.sync_api import sync_playwright

    artifacts = Path(os.environ.get("GISKARD_NB_BROWSER_ARTIFACTS") or jupyterlab["tmp"])
    artifacts.mkdir(parents=True, exist_ok=True)
    labels_file = jupyterlab["tmp"] / "labels.jsonl"
    notebook = jupyterlab["root"] / "labelling.ipynb"
    cell = {"cell_type": "code", "id": "labelling", "metadata": {}, "execution_count": None,
            "outputs": [], "source": f"LABELS = {str(labels_file)!r}\n{CELL}"}  # fmt: skip
    kernel = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.write_text(
        json.dumps(
            {
                "cells": [cell],
                "metadata": {"kernelspec": kernel},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    dialogs: list[str] = []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1200})
            page.set_default_timeout(60_000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            title_before = open_and_run_all(page, jupyterlab, "labelling.ipynb")
            panel = page.locator(".giskard-results-viewer .giskard-labels")
            panel.locator(".giskard-label-row").first.wait_for(timeout=90_000)
            assert "#0" in panel.inner_text() and "0 of 2 labelled" in panel.inner_text()

            def row(check: str):
                return panel.locator(".giskard-label-row", has_text=check)

            def focus_on(selector: str, check: str | None = None) -> None:
                """Wait until the focused element matches ``selector`` (in the row of ``check``)."""
                where = (
                    f" && document.activeElement.closest('.giskard-label-row')"
                    f".textContent.includes({check!r})"
                    if check
                    else ""
                )
                page.wait_for_function(
                    f"() => document.activeElement && document.activeElement.matches({selector!r})"
                    + where,
                    timeout=20_000,
                )

            # result #0 "hours": both checks passed; keyword is wrong (disagree), short is right
            row("keyword").get_by_role("button", name="disagree", exact=True).click()
            page.wait_for_function(
                "() => document.querySelector('.giskard-labels').textContent"
                ".includes('keyword should FAIL (disagree)')",
                timeout=20_000,
            )
            focus_on(".giskard-label-agree", "short")  # on to the next check to label
            row("short").get_by_role("button", name="agree", exact=True).click()
            assert _labels(labels_file, 2, time.monotonic() + 30) == {
                ("hours", "keyword"): (False, "ana"),  # disagreeing with a PASS: should fail
                ("hours", "short"): (True, "ana"),  # agreeing with a PASS
            }
            # the chosen buttons show as chosen
            assert row("keyword").locator(".giskard-label-disagree.giskard-chosen").count() == 1
            assert row("keyword").locator(".giskard-label-agree.giskard-chosen").count() == 0

            # every check labelled: the focus is on "Next unlabelled", Enter opens #1
            focus_on(".giskard-next-unlabelled")
            page.keyboard.press("Enter")
            page.wait_for_function(
                "() => document.querySelector('.giskard-labels').textContent"
                ".includes('#1 (0 of 2')",
                timeout=20_000,
            )
            assert row("keyword").locator(".giskard-chosen").count() == 0  # the rows were reused
            # #1 "refund", by keyboard only: the focus is on keyword's "agree" (it failed, rightly)
            focus_on(".giskard-label-agree", "keyword")
            page.keyboard.press("Space")
            assert _labels(labels_file, 3, time.monotonic() + 20)[("refund", "keyword")] == (
                False,
                "ana",
            )
            # then on short's "agree"; Tab to its "disagree" (short failed: it should pass), Enter
            focus_on(".giskard-label-agree", "short")
            page.keyboard.press("Tab")
            focus_on(".giskard-label-disagree", "short")
            page.keyboard.press("Enter")
            stored = _labels(labels_file, 4, time.monotonic() + 20)
            assert stored[("refund", "short")] == (True, "ana") and len(stored) == 4
            page.wait_for_function(
                "() => document.querySelector('.giskard-labels').textContent"
                ".includes('#1 (2 of 2 labelled)')",
                timeout=20_000,
            )
            focus_on(".giskard-next-unlabelled")
            page.keyboard.press("Enter")
            page.wait_for_function(
                "() => document.querySelector('.giskard-labels').textContent"
                ".includes('every verdict of the results the filters keep is labelled')",
                timeout=20_000,
            )
            # a note: typed in the box, saved with Enter (with the chosen verdict), shown as text
            note = row("short").get_by_placeholder("note (optional; Enter saves)")
            note.click()
            note.press_sequentially(f"ok {XSS_NOTE} dd", delay=20)  # "dd" is no cell deletion
            note.press("Enter")
            # the file holds JSON (the note's quotes escaped): wait for the parsed note, not its text
            assert _notes(labels_file, "refund", "short", time.monotonic() + 20) == [
                f"ok {XSS_NOTE} dd"
            ]
            assert page.locator(".jp-Notebook .jp-Cell").count() == 1
            page.wait_for_function(
                "() => document.querySelector('.giskard-labels').textContent"
                ".includes('note: ok <img')",
                timeout=20_000,
            )
            panel.screenshot(path=str(artifacts / "labelling.png"))

            page.wait_for_timeout(1000)  # give any injected handler time to fire
            assert page.evaluate("() => typeof window.__giskard_xss") == "undefined"
            assert page.title() == title_before and dialogs == []
        except Exception:
            page.screenshot(path=str(artifacts / "labelling-failure.png"), full_page=True)
            raise
        finally:
            chromium.close()
