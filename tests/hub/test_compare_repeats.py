"""Comparing evaluations whose test cases ran several times: per-case verdicts and pass fractions,
per-run rates, the paired sign test over fractions; single-run comparisons as before."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

from giskard_nb.hub import Hub
from giskard_nb.hub.comparison import CaseChange, compare_rows, verdict
from giskard_nb.hub.models.base import new_id
from giskard_nb.stats import paired_test

BEFORE = SimpleNamespace(id="a", name="v1", dataset_id="d")
AFTER = SimpleNamespace(id="b", name="v2", dataset_id="d")


def rows(plan: dict[str, list[str]]) -> list[dict[str, Any]]:
    out = []
    for tc, statuses in plan.items():
        for r, status in enumerate(statuses):
            category = {"identifier": "wrong", "title": "Wrong"} if status == "fail" else None
            out.append(
                {
                    "test_case_id": tc,
                    "repeat": r,
                    "status": status,
                    "messages": [{"role": "user", "content": f"q {tc}"}],
                    "failure_category": category,
                }
            )
    return out


def test_verdict_of_a_case_over_its_runs() -> None:
    assert verdict([]) is None
    assert [verdict([s]) for s in ("pass", "fail", "error", "skip")] == [
        "pass",
        "fail",
        "error",
        "skip",
    ]
    assert verdict(["pass", "pass", "skip"]) == "pass"
    assert verdict(["pass", "fail", "pass"]) == "fail"
    assert verdict(["error", "error"]) == "error"
    assert verdict(["skip", "skip"]) == "skip"
    assert verdict(["pass", "error"]) == "fail"


def test_repeated_rows_give_verdicts_fractions_and_per_run_rates() -> None:
    before = rows(
        {
            "A": ["fail", "fail", "fail"],
            "B": ["pass", "fail", "fail"],
            "C": ["pass", "pass", "pass"],
            "D": ["skip", "skip", "skip"],
        }
    )
    after = rows(
        {
            "A": ["pass", "pass", "pass"],
            "B": ["pass", "pass", "fail"],
            "C": ["pass", "error", "pass"],
            "E": ["pass"],
        }
    )
    comparison = compare_rows(BEFORE, AFTER, before, after)
    cases = {c.test_case_id: c for c in comparison.cases}
    assert [(c.before, c.after) for c in comparison.cases] == [
        ("fail", "pass"),
        ("fail", "fail"),
        ("pass", "fail"),
        ("skip", None),
        (None, "pass"),
    ]
    assert (cases["B"].before_runs, cases["B"].after_runs) == (3, 3)
    assert cases["B"].before_fraction == pytest.approx(1 / 3)
    assert cases["B"].after_fraction == pytest.approx(2 / 3)
    assert cases["C"].after_fraction == pytest.approx(2 / 3)  # an error counts as not passed
    assert cases["D"].before_fraction is None and cases["D"].after_runs == 0
    assert cases["E"].before_fraction is None and cases["E"].after_fraction == 1.0
    assert cases["A"].category_before == "wrong" and cases["A"].category_after is None
    assert [c.test_case_id for c in comparison.fixes] == ["A"]
    assert [c.test_case_id for c in comparison.regressions] == ["C"]

    # rates over every stored run, not over verdicts
    a, b = comparison.rates()
    assert (a.passed, a.failed, a.skipped) == (4, 5, 3)
    assert (b.passed, b.failed, b.errored) == (8, 1, 1)

    # the sign test pairs the fractions of the cases judged on both sides
    test = comparison.significance()
    expected = paired_test([0.0, 1 / 3, 1.0], [1.0, 2 / 3, 2 / 3], old_name="v1", new_name="v2")
    assert (test.better, test.worse, test.same) == (2, 1, 0)
    assert test.p_value == expected.p_value and test.sentence() == expected.sentence()
    assert test.sentence() in str(comparison)

    frame = comparison.to_dataframe()
    assert list(frame.columns[-4:]) == [
        "before_runs",
        "after_runs",
        "before_fraction",
        "after_fraction",
    ]
    assert frame["before_fraction"].dtype == "float64" and frame["after_runs"].dtype == "int64"
    assert frame["after_fraction"].tolist()[:3] == pytest.approx([1.0, 2 / 3, 2 / 3])
    assert math.isnan(frame.loc[3, "before_fraction"])
    assert frame["before"].tolist()[:3] == ["fail", "fail", "pass"]


def test_single_runs_compare_as_before() -> None:
    before = rows({"A": ["pass"], "B": ["fail"], "C": ["error"], "D": ["skip"]})
    after = rows({"A": ["fail"], "B": ["pass"], "C": ["pass"], "D": ["pass"]})
    comparison = compare_rows(BEFORE, AFTER, before, after)
    assert [c.change for c in comparison.cases] == [
        "pass→fail",
        "fail→pass",
        "error→pass",
        "skip→pass",
    ]
    assert [c.before_fraction for c in comparison.cases] == [1.0, 0.0, 0.0, None]
    test = comparison.significance()
    assert (test.better, test.worse, test.same) == (2, 1, 0)
    a, b = comparison.rates()
    assert (a.passed, a.failed, a.errored, a.skipped) == (1, 1, 1, 1) and b.passed == 3
    assert str(comparison).startswith(
        "'v1' → 'v2': pass rate 33% (2 of 3 judged; 1 errored; 1 skipped) → 75% (4 of 4 judged; 0 errored), "
        "1 regressions (pass→fail), 1 fixes (fail→pass)"
    )
    # a case given only statuses counts as one run on each side
    built = CaseChange(test_case_id="x", before="error", after="pass")
    assert (built.before_runs, built.before_fraction, built.after_fraction) == (1, 0.0, 1.0)


def test_a_stored_repeated_evaluation_compares_and_plots(mem_hub: Hub, setup) -> None:
    from giskard_nb.charts import plot_comparison

    _, dataset = setup()
    good = "Open Monday, refunds within 30 days, we ship worldwide"
    before = mem_hub.evaluations.create_local(lambda m: "no", dataset.id, progress=False)
    after = mem_hub.evaluations.create_local(lambda m: good, dataset.id, progress=False)
    flaky = mem_hub.evaluations.create_local(lambda m: "no", dataset.id, progress=False)
    # ``after`` ran twice: its second run fails everything but one case
    second = [
        r.model_copy(update={"id": new_id(), "evaluation_id": after.id, "repeat": 1})
        for r in flaky.results()
    ]
    mem_hub.evaluations.store.append(second)
    comparison = mem_hub.evaluations.compare(before.id, after.id)
    assert [(c.before_runs, c.after_runs) for c in comparison.cases] == [(1, 2)] * 3
    assert all(c.after == "fail" and c.after_fraction == 0.5 for c in comparison.cases)
    assert all(c.before_fraction == 0.0 for c in comparison.cases)
    a, b = comparison.rates()
    assert (a.counted, b.counted, b.passed) == (3, 6, 3)
    assert comparison.significance().better == 3
    figure = plot_comparison(comparison)
    assert "pass rate 0% (0 errored) → 50% (0 errored)" in figure.layout.title.text
    assert figure.data[0].x == ("unchanged",) and figure.data[0].y == (3,)  # fail → fail
