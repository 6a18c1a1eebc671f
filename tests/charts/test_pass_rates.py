"""Pass rates of a Hub evaluation per check, tag and failure category, with 95 % error bars."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from giskard_nb import GiskardValidationError, Hub
from giskard_nb.charts import plot_pass_rates
from giskard_nb.hub.models.base import new_id
from giskard_nb.hub.summary import summarize
from giskard_nb.palette import STATUS_COLORS
from giskard_nb.stats import wilson_interval
from tests.charts.conftest import faq_dataset


def bot(messages):
    return {"hours?": "Open Monday", "refund?": "Within 30 days"}.get(messages[-1]["content"], "no")


@pytest.fixture
def evaluation():
    hub = Hub(":memory:")
    dataset_id = faq_dataset(hub, tagged=True)
    evaluation = hub.evaluations.create_local(bot, dataset_id, progress=False, classifier="rules")
    yield evaluation
    hub.close()


def bars(figure):
    (bar,) = figure.data
    error = bar.error_x
    return (
        bar,
        list(bar.x),
        [v + p for v, p in zip(bar.x, error.array, strict=True)],
        [v - m for v, m in zip(bar.x, error.arrayminus, strict=True)],
    )


def test_check_rates_have_wilson_error_bars(evaluation):
    figure = evaluation.plot_pass_rates(by="check")
    bar, values, highs, lows = bars(figure)
    assert list(bar.y) == ["string_match", "regex_matching"]
    assert values == [0.5, 0.5] and bar.orientation == "h"
    expected = wilson_interval(2, 4)
    assert highs == pytest.approx([expected.high] * 2)
    assert lows == pytest.approx([expected.low] * 2)
    assert bar.error_x.visible and bar.marker.color == STATUS_COLORS["pass"]
    assert "2 of 4 passed" in bar.customdata[0] and "(Wilson)" in bar.customdata[0]
    assert "pass rate per check" in figure.layout.title.text


def test_tag_and_category_charts_escape_names_and_show_shares(evaluation):
    tags = plot_pass_rates(evaluation, by="tag")
    bar, values, highs, lows = bars(tags)
    assert list(bar.y) == ["&lt;odd&gt;", "even"] and values == [0.5, 0.5]
    assert highs == pytest.approx([wilson_interval(1, 2).high] * 2)
    categories = plot_pass_rates(evaluation.summary(), by="category")
    bar, values, highs, lows = bars(categories)
    assert list(bar.y) == ["Wrong &lt;answer&gt;"] and values == [1.0]
    assert highs == [1.0] and lows == pytest.approx([wilson_interval(2, 2).low])
    assert bar.marker.color == STATUS_COLORS["fail"]
    assert "2 of 2 failed results" in bar.customdata[0]


def test_repeated_results_draw_bootstrap_bars(evaluation):
    hub = evaluation.hub
    again = [
        r.model_copy(update={"id": new_id(), "evaluation_id": evaluation.id, "repeat": 1})
        for r in evaluation.results()
    ]
    hub.evaluations.store.append(again)
    summary = summarize(
        SimpleNamespace(id=evaluation.id, name="twice", repeats=2),
        hub.evaluations.results.iter_raw(evaluation.id),
    )
    bar, values, highs, lows = bars(plot_pass_rates(summary, by="check"))
    first = summary.by_check[0]
    assert values[0] == 0.5 and first.interval.method == "bootstrap"
    assert (lows[0], highs[0]) == pytest.approx((first.interval.low, first.interval.high))
    assert "(bootstrap over cases)" in bar.customdata[0] and "4 of 8 passed" in bar.customdata[0]


def test_bad_arguments_and_nothing_to_plot(evaluation):
    with pytest.raises(GiskardValidationError, match="'check', 'tag' or 'category'"):
        plot_pass_rates(evaluation, by="case")
    with pytest.raises(GiskardValidationError, match="Hub Evaluation or its summary"):
        plot_pass_rates([1, 2], by="check")
    empty = summarize(SimpleNamespace(id="e", name="empty"), [])
    figure = plot_pass_rates(empty, by="category")
    assert not figure.data and "Nothing to plot" in figure.layout.annotations[0].text
