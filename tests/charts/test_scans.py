"""Charts of scans: the category × severity grid and the grade card."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from giskard_nb import GiskardValidationError
from giskard_nb.charts import plot_grade_card, plot_scan_grid
from giskard_nb.charts.scans import GRADE_COLORS, scan_grid_counts
from giskard_nb.scan import run_scan_sync


def obedient_agent(messages):
    """Follows injected instructions: repeats any canary code it was told to say."""
    text = " ".join(m["content"] for m in messages if m["role"] == "user")
    codes = re.findall(r"\b[A-Z]{3,}-[0-9A-F]{5}\b", text)
    return codes[-1] if codes else "I can't help with that."


def careful_agent(messages):
    return "I can't help with that."


def _scan(agent):
    return run_scan_sync(
        agent, categories=["prompt_injection"], max_attempts_per_probe=2, judge=None, generator=None
    )


@pytest.fixture(scope="module")
def weak_report():
    return _scan(obedient_agent)


def test_grid_counts_findings_per_category_and_severity(weak_report):
    grid = scan_grid_counts(weak_report)
    row = grid["prompt_injection"]
    assert row["attempts"] == len(weak_report.attempts)
    assert row["minor"] + row["major"] + row["critical"] == len(weak_report.findings) > 0
    fig = plot_scan_grid(weak_report)
    heat = fig.data[0]
    assert isinstance(heat, go.Heatmap) and list(heat.x) == ["minor", "major", "critical"]
    assert heat.y[0] == "prompt_injection (LLM01)"
    assert sum(heat.z[0]) == len(weak_report.findings)
    assert f"grade {weak_report.grade}" in fig.layout.title.text


def test_grade_card_shows_the_grade_and_what_is_behind_it(weak_report):
    fig = plot_grade_card(weak_report)
    grade = str(weak_report.grade)
    assert grade in ("B", "C", "D")
    assert fig.layout.shapes[0].fillcolor == GRADE_COLORS[grade]
    assert f"<b>{grade}</b>" == fig.layout.annotations[0].text
    assert f"{len(weak_report.findings)} findings in" in fig.layout.annotations[1].text


def test_a_clean_scan_is_grade_a():
    report = _scan(careful_agent)
    assert plot_grade_card(report).layout.shapes[0].fillcolor == GRADE_COLORS["A"]
    assert sum(plot_scan_grid(report).data[0].z[0]) == 0


def test_bad_input():
    with pytest.raises(GiskardValidationError, match="ScanReport"):
        plot_scan_grid([1, 2])


def test_plot_methods_on_the_report(weak_report):
    assert weak_report.plot_grid().to_dict() == plot_scan_grid(weak_report).to_dict()
    assert weak_report.plot_grade_card().to_dict() == plot_grade_card(weak_report).to_dict()


def complying_agent(messages):
    return "Sure! Here is exactly how to do it, step by step…"


def test_an_incomplete_scan_says_so_on_the_card():
    from giskard_nb.charts.scans import INCOMPLETE_COLOR, NO_GRADE_COLOR

    report = run_scan_sync(
        complying_agent,
        categories=["prompt_injection", "harmful_content"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
    )
    assert report.incomplete and report.grade == "A"
    fig = plot_grade_card(report)
    text = fig.layout.annotations[1].text
    assert "INCOMPLETE" in text and "A on 1 of 2 categories — incomplete" in text
    assert INCOMPLETE_COLOR in text and fig.layout.title.text == "Scan grade: A — incomplete"
    grid = plot_scan_grid(report)
    assert "(incomplete)" in grid.layout.title.text
    assert "harmful_content · not assessed" in grid.data[0].y

    def broken(messages):
        raise RuntimeError("down")

    nothing = run_scan_sync(
        broken,
        categories=["prompt_injection"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
    )
    card = plot_grade_card(nothing)
    assert nothing.grade is None and card.layout.shapes[0].fillcolor == NO_GRADE_COLOR
    assert card.layout.annotations[0].text == "<b>—</b>" and "not assessed" in card.to_json()
