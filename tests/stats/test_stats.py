"""The statistics, against values computed by hand (and a seeded coverage simulation)."""

from __future__ import annotations

import random

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.stats import (
    agreement_scores,
    bootstrap_interval,
    bootstrap_rate,
    cohen_kappa,
    fleiss_kappa,
    mean_pairwise_kappa,
    paired_test,
    precision_recall_f1,
    raw_agreement,
    sign_test_p_value,
    wilson_interval,
)


def test_wilson_matches_hand_computed_values():
    # 7 of 10, z = 1.959964: centre (0.7 + z²/20) / (1 + z²/10) = 0.64887, half-width 0.25092
    interval = wilson_interval(7, 10)
    assert interval.low == pytest.approx(0.39677, abs=1e-4)
    assert interval.high == pytest.approx(0.89222, abs=1e-4)
    assert interval.method == "wilson" and interval.contains(0.7)
    # 0 of 10: [0, z²/(n + z²)] = [0, 0.27753]
    zero = wilson_interval(0, 10)
    assert zero.low == 0.0 and zero.high == pytest.approx(0.27753, abs=1e-4)
    full = wilson_interval(10, 10)
    assert full.high == 1.0 and full.low == pytest.approx(1 - 0.27753, abs=1e-4)
    assert wilson_interval(0, 0) is None
    narrow = wilson_interval(70, 100, confidence=0.9)
    assert narrow.width < wilson_interval(70, 100).width
    assert interval.text() == "95% CI 40%–89%"


def test_wilson_rejects_bad_counts_with_a_clear_message():
    with pytest.raises(GiskardValidationError, match="cannot exceed"):
        wilson_interval(5, 3)
    with pytest.raises(GiskardValidationError, match="whole number"):
        wilson_interval(-1, 3)
    with pytest.raises(GiskardValidationError, match="between 0 and 1"):
        wilson_interval(1, 3, confidence=95)


def test_wilson_covers_a_known_pass_probability_about_95_percent_of_the_time():
    rng = random.Random(27)
    runs, n, p = 1000, 50, 0.7
    covered = 0
    for _ in range(runs):
        passed = sum(rng.random() < p for _ in range(n))
        covered += wilson_interval(passed, n).contains(p)
    assert 0.92 <= covered / runs <= 0.975, covered


def test_bootstrap_is_seeded_and_resamples_cases_not_runs():
    cases = [(3, 3), (0, 3), (3, 3), (2, 3), (1, 3)]  # pooled rate 9 / 15 = 0.6
    first = bootstrap_rate(cases, seed=1)
    assert first == bootstrap_rate(cases, seed=1)
    assert first.method == "bootstrap" and first.low < 0.6 < first.high
    many = [(i % 4, 3) for i in range(40)]
    assert bootstrap_rate(many, seed=1) != bootstrap_rate(many, seed=2)
    # every resample of identical cases gives the same rate: a zero-width interval
    same = bootstrap_rate([(2, 4)] * 6)
    assert same.low == same.high == 0.5
    assert bootstrap_rate([]) is None and bootstrap_rate([(0, 0)]) is None
    mean = bootstrap_interval([1.0, 2.0, 3.0], lambda s: sum(s) / len(s), resamples=500)
    assert 1.0 <= mean.low < 2.0 < mean.high <= 3.0


def test_bootstrap_percentiles_of_a_two_valued_statistic():
    # one item of two: each resample of size 1 is either item → the 2.5 % and 97.5 % percentiles are
    # the two values
    interval = bootstrap_interval([0.0, 1.0], lambda s: s[0], resamples=400, seed=3)
    assert interval.low == 0.0 and interval.high == 1.0


def test_sign_test_against_the_binomial_by_hand():
    # 12 better, 3 worse: 2 · (C(15,0)+C(15,1)+C(15,2)+C(15,3)) / 2^15 = 2 · 576 / 32768
    assert sign_test_p_value(12, 3) == pytest.approx(1152 / 32768)
    assert sign_test_p_value(0, 0) == 1.0
    assert sign_test_p_value(3, 3) == 1.0
    assert sign_test_p_value(5, 0) == pytest.approx(2 / 32)  # 0.0625: not significant


def test_paired_test_in_words():
    old = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    new = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1]
    result = paired_test(old, new, old_name="v1", new_name="v2")
    assert (result.better, result.worse, result.same) == (12, 3, 2)
    assert result.significant
    assert result.sentence().startswith(
        "v2 is better on 12 cases, worse on 3 (same on 2); the difference is significant at 95%"
    )
    small = paired_test([0, 0, 1], [1, 1, 1])
    assert not small.significant and "is not significant at 95%" in str(small)
    fractions = paired_test([1 / 3, None, 1.0], [2 / 3, 1.0, 1.0])
    assert (fractions.better, fractions.worse, fractions.same) == (1, 0, 1)
    with pytest.raises(GiskardValidationError, match="same cases"):
        paired_test([1, 0], [1])


JUDGE = [True, True, True, False, False, False, True, False, True, True]
HUMAN = [True, True, False, False, False, True, True, False, True, True]


def test_agreement_kappa_and_f1_by_hand():
    # 8 of 10 agree; judge yes 6/10, human yes 6/10: pe = .36 + .16 = .52, kappa = (.8-.52)/.48
    assert raw_agreement(JUDGE, HUMAN) == pytest.approx(0.8)
    assert cohen_kappa(JUDGE, HUMAN) == pytest.approx(0.28 / 0.48)
    # positive = fail: judge failed items 3,4,5,7 (0-based); human failed 2,3,4,7 → tp 3
    precision, recall, f1 = precision_recall_f1(JUDGE, HUMAN)
    assert (precision, recall, f1) == pytest.approx((0.75, 0.75, 0.75))
    p_pass, r_pass, _ = precision_recall_f1(JUDGE, HUMAN, positive=True)
    assert (p_pass, r_pass) == pytest.approx((5 / 6, 5 / 6))
    assert cohen_kappa([True, True], [True, True]) is None  # one verdict only: undefined
    assert precision_recall_f1([True], [True]) == (None, None, None)
    with pytest.raises(GiskardValidationError, match="booleans"):
        raw_agreement([1], [True])


def test_agreement_scores_with_seeded_intervals_and_confusion():
    scores = agreement_scores(JUDGE * 4, HUMAN * 4, resamples=500)
    assert scores.n == 40 and scores.kappa == pytest.approx(0.28 / 0.48)
    assert scores.confusion == {
        "judge_pass_human_pass": 20,
        "judge_pass_human_fail": 4,
        "judge_fail_human_pass": 4,
        "judge_fail_human_fail": 12,
    }
    for value, interval in (
        (scores.agreement, scores.agreement_interval),
        (scores.kappa, scores.kappa_interval),
        (scores.f1, scores.f1_interval),
    ):
        assert interval.low <= value <= interval.high
    again = agreement_scores(JUDGE * 4, HUMAN * 4, resamples=500)
    assert again.f1_interval == scores.f1_interval


def test_fleiss_kappa_by_hand():
    # 3 labelers, 4 items: yes counts 3, 0, 2, 1 → P_i = 1, 1, 1/3, 1/3, P̄ = 2/3;
    # share yes 6/12 → pe = 0.5; kappa = (2/3 - 1/2) / (1/2) = 1/3
    items = [[True] * 3, [False] * 3, [True, True, False], [True, False, False]]
    assert fleiss_kappa(items) == pytest.approx(1 / 3)
    assert fleiss_kappa([[True, True], [True, True]]) is None
    with pytest.raises(GiskardValidationError, match="same number"):
        fleiss_kappa([[True, False], [True]])


def test_mean_pairwise_kappa_uses_shared_items():
    ann = {"a": True, "b": False, "c": True, "d": False}
    bob = {"a": True, "b": False, "c": True, "d": False, "e": True}
    eve = {"a": True, "b": True, "c": False, "d": False}
    # ann~bob: perfect (1.0) on a-d; ann~eve and bob~eve: po 0.5, pe 0.5 → 0
    assert mean_pairwise_kappa({"ann": ann, "bob": bob, "eve": eve}) == pytest.approx(1 / 3)
    assert mean_pairwise_kappa({"ann": ann}) is None
