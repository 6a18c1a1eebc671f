"""Hub summaries with 95 % intervals, per-case figures over repeats (pass^k, pass@k, flaky) and the
cases frame: on hand-built raw rows (the shape of ``iter_raw``) and on a real stored evaluation."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from giskard_nb.core.repeats import group_rates
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.models.base import new_id
from giskard_nb.hub.summary import summarize
from giskard_nb.stats import bootstrap_rate, wilson_interval


def row(
    tc: str,
    status: str,
    *,
    repeat: int = 0,
    question: str | None = None,
    tags: list[str] | None = None,
    category: str | None = None,
    check: str = "answer",
) -> dict[str, Any]:
    return {
        "test_case_id": tc,
        "repeat": repeat,
        "status": status,
        "messages": [{"role": "user", "content": question or f"question {tc}"}],
        "tags": tags or [],
        "checks": [{"name": check, "kind": "string_match", "status": status}],
        "failure_category": {"identifier": category, "title": category.title()}
        if category
        else None,
        "usage": {},
    }


def evaluation(repeats: int = 1) -> SimpleNamespace:
    return SimpleNamespace(id="e1", name="v1", repeats=repeats)


def hand_wilson(s: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = s / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def single_run_rows() -> list[dict[str, Any]]:
    rows = [row(f"p{i}", "pass", tags=["billing"]) for i in range(7)]
    rows += [row("f0", "fail", tags=["billing"], category="hallucination")]
    rows += [row(f"f{i}", "fail", category="hallucination") for i in (1, 2)]
    return rows


def test_one_run_of_each_case_gives_wilson_intervals_everywhere() -> None:
    summary = summarize(evaluation(), single_run_rows(), n_test_cases=10)
    low, high = hand_wilson(7, 10)
    assert (round(low, 3), round(high, 3)) == (0.397, 0.892)
    exact = wilson_interval(7, 10)
    assert summary.interval.method == "wilson"
    assert summary.interval.low == pytest.approx(low) == pytest.approx(exact.low)
    assert summary.interval.high == pytest.approx(high) == pytest.approx(exact.high)
    (check,) = summary.by_check
    assert check.interval.low == pytest.approx(low) and check.interval.method == "wilson"
    assert summary.tag_intervals["billing"].low == pytest.approx(wilson_interval(7, 8).low)
    (category,) = summary.by_category
    assert category.share == 1.0 and category.share_interval.high == 1.0
    assert category.share_interval.low == pytest.approx(wilson_interval(3, 3).low)
    assert summary.missing == 0 and summary.n_flaky == 0 and summary.runs_per_case == 1
    assert (summary.n_pass_all, summary.n_pass_any) == (7, 7)
    text = str(summary)
    assert "pass rate 70% [95% CI 40%–89%] (10 of 10 judged; 0 errored)" in text
    assert "answer   70% [40%–89%]  (7/10 passed)" in text
    assert "Repeats" not in text


def test_category_shares_split_the_failures_with_their_intervals() -> None:
    rows = [row("a", "fail", category="hallucination"), row("b", "fail", category="refusal")]
    rows += [row("c", "fail", category="hallucination"), row("d", "fail", category="hallucination")]
    rows += [row("e", "pass")]
    summary = summarize(evaluation(), rows)
    shares = {c.identifier: c for c in summary.by_category}
    assert shares["hallucination"].share == 0.75
    for ident, k in (("hallucination", 3), ("refusal", 1)):
        expected = wilson_interval(k, 4)
        got = shares[ident].share_interval
        assert (got.low, got.high) == pytest.approx((expected.low, expected.high))
    frame = summary.to_dataframe("category")
    assert list(frame.columns) == [
        "identifier",
        "title",
        "count",
        "share",
        "share_low",
        "share_high",
    ]
    assert frame["share_low"].dtype == "float64"
    assert frame.loc[0, "share_high"] == pytest.approx(wilson_interval(3, 4).high)


def repeated_rows() -> list[dict[str, Any]]:
    """4 test cases × 3 runs: A always passes, B flips (flaky), C always fails, D errs, passes,
    skips (flaky, not pass^3)."""
    plan = {
        "A": ["pass", "pass", "pass"],
        "B": ["pass", "fail", "pass"],
        "C": ["fail", "fail", "fail"],
        "D": ["error", "pass", "skip"],
    }
    rows = []
    for r in range(3):
        for tc, statuses in plan.items():
            category = "hallucination" if statuses[r] == "fail" else None
            rows.append(row(tc, statuses[r], repeat=r, tags=["t"], category=category))
    return rows


def test_repeats_give_per_case_figures_and_a_seeded_bootstrap_over_cases() -> None:
    rows = repeated_rows()
    summary = summarize(evaluation(3), rows, n_test_cases=5)
    assert summary.repeats == 3 and summary.total == 12 and summary.missing == 3
    cases = {c.test_case_id: c for c in summary.cases}
    assert [c.test_case_id for c in summary.cases] == ["A", "B", "C", "D"]
    assert (cases["B"].runs, cases["B"].passed, cases["B"].failed) == (3, 2, 1)
    assert cases["B"].pass_fraction == pytest.approx(2 / 3)
    assert (cases["B"].low, cases["B"].high) == pytest.approx(
        (wilson_interval(2, 3).low, wilson_interval(2, 3).high)
    )
    assert cases["D"].pass_fraction == 0.5 and cases["D"].skipped == 1
    assert [c.pass_all for c in summary.cases] == [True, False, False, False]
    assert [c.pass_any for c in summary.cases] == [True, True, False, True]
    assert [c.flaky for c in summary.cases] == [False, True, False, True]
    assert (summary.n_pass_all, summary.n_pass_any, summary.n_flaky) == (1, 3, 2)
    assert summary.cases[0].label == "question A"

    # the pooled interval: the bootstrap over cases, seed 0, the same numbers twice
    expected = bootstrap_rate([(3, 3), (2, 3), (0, 3), (1, 2)], seed=0)
    assert summary.interval.method == "bootstrap"
    assert (summary.interval.low, summary.interval.high) == (expected.low, expected.high)
    again = summarize(evaluation(3), rows, n_test_cases=5)
    assert again.interval == summary.interval and again.by_check == summary.by_check
    assert summary.by_check[0].interval.method == "bootstrap"
    assert summary.tag_intervals["t"].method == "bootstrap"
    (category,) = summary.by_category
    assert category.share_interval.method == "bootstrap"

    text = str(summary)
    assert "Repeats: 3 per case; pass^3 1/4 cases, pass@3 3/4, 2 flaky" in text
    assert "- flaky: question B (2/3 passed)" in text and "- flaky: question D" in text
    assert summary.interval.text() in text


def test_missing_counts_every_repeat_and_is_never_negative() -> None:
    rows = repeated_rows()[:5]
    assert summarize(evaluation(3), rows, n_test_cases=4).missing == 7
    assert summarize(evaluation(1), repeated_rows(), n_test_cases=4).missing == 0
    no_repeats = SimpleNamespace(id="e", name="old")  # an object without ``repeats``
    assert summarize(no_repeats, rows, n_test_cases=6).missing == 1


def test_group_rates_matches_the_pooled_counts() -> None:
    (group,) = group_rates([{"x": ["pass", "fail"]}, {"x": ["pass"]}], repeated=False)
    assert (group.rate.passed, group.rate.failed) == (2, 1)
    assert group.interval == wilson_interval(2, 3)
    (boot,) = group_rates([{None: ["pass", "fail"]}, {None: ["pass"]}], repeated=True, seed=0)
    assert boot.interval == bootstrap_rate([(1, 2), (1, 1)], seed=0)


def test_frames_carry_intervals_with_stable_types() -> None:
    summary = summarize(evaluation(3), repeated_rows())
    checks = summary.to_dataframe("check")
    assert list(checks.columns[-4:]) == [
        "pass_rate",
        "pass_rate_low",
        "pass_rate_high",
        "interval_method",
    ]
    assert checks["pass_rate_low"].dtype == "float64"
    assert checks.loc[0, "interval_method"] == "bootstrap"
    assert checks.loc[0, "pass_rate_low"] <= checks.loc[0, "pass_rate"]
    tags = summary.to_dataframe("tag")
    assert tags.loc[0, "pass_rate_high"] == pytest.approx(summary.tag_intervals["t"].high)
    cases = summary.to_dataframe("case")
    assert list(cases.columns) == [
        "test_case_id", "label", "runs", "passed", "failed", "errored", "skipped",
        "pass_fraction", "pass_rate_low", "pass_rate_high", "pass_all", "pass_any", "flaky",
    ]  # fmt: skip
    assert cases["test_case_id"].dtype == "string" and cases["runs"].dtype == "int64"
    assert cases["flaky"].dtype == "bool" and cases["pass_fraction"].dtype == "float64"
    assert cases["flaky"].tolist() == [False, True, False, True]
    all_errored = summarize(evaluation(), [row("z", "error")]).to_dataframe("case")
    assert math.isnan(all_errored.loc[0, "pass_fraction"])
    assert math.isnan(all_errored.loc[0, "pass_rate_low"])
    with pytest.raises(GiskardValidationError, match="'check', 'category', 'tag' or 'case'"):
        summary.to_dataframe("cases")  # type: ignore[arg-type]


def test_text_and_html_show_intervals_and_escape_hostile_labels() -> None:
    hostile = "<script>alert('x')</script> & more"
    rows = [
        *repeated_rows(),
        row("H", "pass", question=hostile),
        row("H", "fail", repeat=1, question=hostile),
    ]
    summary = summarize(evaluation(3), rows)
    assert f"- flaky: {hostile} (1/2 passed)" in str(summary)  # plain text: as written
    html = summary._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "Repeats: 3 per case; pass^3 1/5 cases, pass@3 4/5, 3 flaky" in html
    assert "flaky test case" in html and "question B" in html
    assert "95% interval" in html and summary.interval.text() in html
    low, high = summary.by_check[0].interval.low, summary.by_check[0].interval.high
    assert f"{low:.0%}–{high:.0%}" in html


def test_a_stored_repeated_evaluation_is_summarized_and_framed_by_case(mem_hub: Hub, setup) -> None:
    _, dataset = setup()
    first = mem_hub.evaluations.create_local(
        lambda m: "Open Monday, refunds within 30 days", dataset.id, name="v1", progress=False
    )
    worse = mem_hub.evaluations.create_local(lambda m: "no idea", dataset.id, progress=False)
    # a second run of each test case, stored in the first evaluation as repeat 1
    second = [
        r.model_copy(update={"id": new_id(), "evaluation_id": first.id, "repeat": 1})
        for r in worse.results()
    ]
    mem_hub.evaluations.store.append(second)
    raw = list(mem_hub.evaluations.results.iter_raw(first.id))
    assert sorted(r["repeat"] for r in raw) == [0, 0, 0, 1, 1, 1]

    summary = mem_hub.evaluations.summary(first.id)
    assert summary.total == 6 and summary.interval.method == "bootstrap"
    assert (summary.n_pass_all, summary.n_pass_any, summary.n_flaky) == (0, 2, 2)
    assert summary.runs_per_case == 2 and "pass^2 0/3 cases, pass@2 2/3, 2 flaky" in str(summary)
    three = summarize(SimpleNamespace(id=first.id, name="v1", repeats=3), raw, n_test_cases=3)
    assert three.missing == 3

    frame = mem_hub.evaluations.results.to_dataframe(first.id, level="cases")
    pd.testing.assert_frame_equal(frame, summary.to_dataframe("case"))
    assert frame["runs"].tolist() == [2, 2, 2]
    assert frame["label"].tolist()[0] == "What are your opening hours?"
    pd.testing.assert_frame_equal(first.to_dataframe(level="cases"), frame)
    listed = first.results().to_dataframe(level="cases")
    assert sorted(listed["pass_fraction"].tolist()) == sorted(frame["pass_fraction"].tolist())
    with pytest.raises(GiskardValidationError, match="'tool_calls' or 'cases'"):
        mem_hub.evaluations.results.to_dataframe(first.id, level="case")  # type: ignore[arg-type]
