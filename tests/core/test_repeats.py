"""Suite.run(repeats=k): per-case pass^k, pass@k, pass fraction, flaky; intervals; the paired compare."""

from __future__ import annotations

import itertools

import pytest

from giskard_nb import Equals, Scenario, Suite
from giskard_nb.errors import GiskardValidationError


def _suite(answers: dict[str, list[str]]) -> Suite:
    """Case ``q`` expects "ok"; the agent's replies to ``q`` cycle through ``answers[q]``."""
    cycles = {q: itertools.cycle(a) for q, a in answers.items()}
    suite = Suite("s", target=lambda inputs: next(cycles[inputs]))
    for q in answers:
        suite.append(
            Scenario(q, tags=[f"topic:{q[0]}"]).interact(q).check(Equals(expected_value="ok"))
        )
    return suite


def test_repeats_keep_the_index_and_summarise_each_case():
    suite = _suite({"a1": ["ok"], "b1": ["ok", "no", "ok"], "b2": ["no"]})
    result = suite.run_sync(repeats=3, parallel=False)
    assert len(result.results) == 9 and result.repeats == 3
    assert [(r.case_index, r.repeat) for r in result.results[:4]] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
    ]
    always, flaky, never = result.cases
    assert (always.pass_all, always.pass_any, always.flaky) == (True, True, False)
    assert (flaky.pass_all, flaky.pass_any, flaky.flaky) == (False, True, True)
    assert flaky.pass_fraction == pytest.approx(2 / 3) and flaky.runs == 3
    assert (never.pass_all, never.pass_any, never.pass_fraction) == (False, False, 0.0)
    assert result.pass_hat_k == pytest.approx(1 / 3) and result.pass_at_k == pytest.approx(2 / 3)
    assert [c.scenario for c in result.flaky] == ["b1"]
    assert result.pass_rate == pytest.approx(5 / 9)
    text = repr(result)
    assert "3 repeats: pass^k 33%, pass@k 67%, 1 flaky" in text and "95% CI" in text


def test_interval_is_wilson_for_one_run_and_bootstrap_over_cases_for_repeats():
    suite = _suite({"a1": ["ok"], "b1": ["ok", "no"], "b2": ["no"], "a2": ["ok"]})
    once = suite.run_sync()
    assert once.results[0].repeat is None
    interval = once.pass_rate_interval()
    assert interval.method == "wilson"
    assert (interval.low, interval.high) == pytest.approx((0.3006, 0.9544), abs=1e-3)  # 3 of 4
    repeated = _suite({"a1": ["ok"], "b1": ["ok", "no"], "b2": ["no"], "a2": ["ok"]}).run_sync(
        repeats=2, parallel=False
    )
    boot = repeated.pass_rate_interval()
    assert boot.method == "bootstrap" and boot == repeated.pass_rate_interval()  # seeded
    assert boot.low <= repeated.pass_rate <= boot.high


def test_rates_per_check_and_tag_with_intervals_and_frames():
    result = _suite({"a1": ["ok"], "b1": ["ok", "no"], "b2": ["no"]}).run_sync(
        repeats=2, parallel=False
    )
    by_tag = {g.name: g for g in result.pass_rates(by="tag", tag_key="topic")}
    assert by_tag["a"].rate.value == 1.0 and by_tag["b"].rate.value == pytest.approx(1 / 4)
    assert by_tag["b"].interval.method == "bootstrap"
    groups = result.group_by("topic").groups
    assert groups["b"].pass_rate_low is not None and groups["b"].interval.contains(0.25)
    (check,) = result.pass_rates(by="check")
    assert check.name == "equals" and check.rate.passed == 3
    frame = result.pass_rates_frame(by="check")
    assert list(frame.columns[-3:]) == ["pass_rate_low", "pass_rate_high", "interval_method"]
    assert frame.loc[0, "pass_rate"] == pytest.approx(0.5)
    cases = result.to_dataframe(level="cases")
    assert list(cases["flaky"]) == [False, True, False]
    assert list(cases["pass_all"]) == [True, False, False]
    assert cases.loc[1, "pass_rate_low"] < 0.5 < cases.loc[1, "pass_rate_high"]
    runs = result.to_dataframe()
    assert list(runs["repeat"])[:2] == [0, 1] and list(runs["case_index"])[-1] == 2


def test_compare_uses_the_paired_sign_test():
    names = [f"c{i}" for i in range(14)]
    v1 = _suite({n: ["no"] if i < 12 else ["ok"] for i, n in enumerate(names)}).run_sync()
    v2 = _suite({n: ["ok"] if i < 12 else ["no"] for i, n in enumerate(names)}).run_sync()
    v2 = v2.model_copy(update={"name": "v2"})
    test = v1.compare(v2)
    assert (test.better, test.worse) == (12, 2) and test.significant
    assert str(test).startswith("v2 is better on 12 cases, worse on 2")
    assert "is significant at 95%" in str(test)
    small = v1.compare(v1.model_copy(update={"name": "again"}))
    assert (small.better, small.worse, small.same) == (0, 0, 14) and not small.significant
    with pytest.raises(GiskardValidationError, match="same cases"):
        v1.compare(v2.model_copy(update={"results": v2.results[:3]}))
    with pytest.raises(GiskardValidationError, match="case 0 is 'c0' in one and 'c1'"):
        v1.compare(
            v2.model_copy(update={"results": [v2.results[1], v2.results[0], *v2.results[2:]]})
        )


def test_bad_repeats_is_a_clear_error():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(GiskardValidationError, match="repeats must be a whole number"):
            _suite({"a1": ["ok"]}).run_sync(repeats=bad)
