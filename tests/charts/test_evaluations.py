"""Charts of Hub evaluations: failure categories with drill-down by check, comparisons."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from giskard_nb import GiskardValidationError, Hub
from giskard_nb.charts import plot_comparison, plot_failure_categories
from giskard_nb.charts.evaluations import failure_category_counts
from giskard_nb.core.render import STATUS_COLORS
from tests.charts.conftest import faq_dataset


def first_bot(messages):
    return {"hours?": "Open Monday", "refund?": "Within 30 days"}.get(messages[-1]["content"], "no")


def second_bot(messages):
    return {"hours?": "Closed", "sunday?": "We are closed"}.get(messages[-1]["content"], "No")


@pytest.fixture
def evaluations():
    hub = Hub(":memory:")
    dataset_id = faq_dataset(hub)
    first = hub.evaluations.create_local(first_bot, dataset_id, progress=False, classifier="rules")
    second = hub.evaluations.create_local(
        second_bot, dataset_id, progress=False, classifier="rules"
    )
    yield hub, first, second
    hub.close()


def test_category_counts_split_by_failing_check(evaluations):
    _, first, _ = evaluations
    counts = failure_category_counts(first.to_dataframe(), first.to_dataframe(level="checks"))
    by_check = dict(zip(counts["check"], counts["results"], strict=True))
    assert by_check == {"regex_matching": 2, "string_match": 2}  # "no" fails both checks twice
    assert set(counts["category"]) == {"Wrong <answer>"}


def test_treemap_drills_down_from_category_to_check(evaluations):
    _, first, _ = evaluations
    fig = plot_failure_categories(first)
    treemap = fig.data[0]
    assert isinstance(treemap, go.Treemap)
    assert treemap.labels[0] == "Wrong &lt;answer&gt;" and treemap.parents[0] == ""
    assert set(treemap.parents[1:]) == {treemap.ids[0]}  # checks sit under their category
    assert sum(treemap.values) == 4 and treemap.branchvalues == "remainder"
    assert "2 failed of 4 results" in fig.layout.title.text


def test_bar_kind_and_frames_input(evaluations):
    _, first, _ = evaluations
    fig = plot_failure_categories(
        (first.to_dataframe(), first.to_dataframe(level="checks")), kind="bar"
    )
    assert {t.name for t in fig.data} == {"regex_matching", "string_match"}
    with pytest.raises(GiskardValidationError, match="kind must be"):
        plot_failure_categories(first, kind="pie")
    with pytest.raises(GiskardValidationError, match="takes a Hub Evaluation"):
        plot_failure_categories("nope")


def test_no_failure_gives_an_explaining_figure():
    import pandas as pd

    results = pd.DataFrame({"result_id": ["r"], "status": ["pass"], "failure_category": [None]})
    checks = pd.DataFrame({"result_id": ["r"], "check_name": ["c"], "status": ["pass"]})
    fig = plot_failure_categories((results, checks))
    assert "No failed results" in fig.layout.annotations[0].text


def test_comparison_counts_regressions_and_fixes(evaluations):
    hub, first, second = evaluations
    fig = plot_comparison(first, second)
    bar = fig.data[0]
    counts = dict(zip(bar.x, bar.y, strict=True))
    # hours? and refund? regressed, sunday? was fixed
    assert counts["pass→fail"] == 2 and counts["fail→pass"] == 1
    assert bar.x[0] == "pass→fail"
    colors = dict(zip(bar.x, bar.marker.color, strict=True))
    assert colors["pass→fail"] == STATUS_COLORS["fail"]
    assert colors["fail→pass"] == STATUS_COLORS["pass"]
    assert "hours?" in bar.customdata[0]
    assert "&lt;b&gt;x&lt;/b&gt;?" in " ".join(bar.customdata)  # questions are escaped
    same = plot_comparison(hub.evaluations.compare(first.id, second.id))
    assert same.data[0].y == bar.y
    assert "2 regressions, 1 fixes" in fig.layout.title.text
    with pytest.raises(GiskardValidationError, match="EvaluationComparison"):
        plot_comparison(42)


def test_plot_methods_on_the_evaluation_records(evaluations):
    _, first, second = evaluations
    assert isinstance(first.plot_failure_categories(), go.Figure)
    assert isinstance(first.plot_failure_categories(kind="bar"), go.Figure)
    assert isinstance(first.plot_comparison(second), go.Figure)
