"""Human labels on core results (a JSONL file) and the calibration report of a check against them."""

from __future__ import annotations

import json

import pytest

from giskard_nb import (
    Check,
    CheckResult,
    Equals,
    Scenario,
    Suite,
    calibrate,
    label,
    labels,
)
from giskard_nb.core.calibration import suggest_threshold
from giskard_nb.core.labels import LabelStore, result_key
from giskard_nb.errors import GiskardValidationError


def _run(replies: list[str], name: str = "s"):
    """One case per reply; the agent answers the reply; check "exact" expects "ok"."""
    suite = Suite(name, target=lambda inputs: inputs.split("|")[1])
    for i, reply in enumerate(replies):
        suite.append(
            Scenario(f"case {i}")
            .interact(f"q{i}|{reply}")
            .check(Equals(expected_value="ok", name="exact"))
        )
    return suite.run_sync()


def test_label_round_trip_replace_and_several_labelers(tmp_path):
    path = tmp_path / "labels.jsonl"
    result = _run(["ok", "no"])
    first, second = result.results
    label(first, check="exact", passed=True, labeler="ana", path=path)
    label(first, check="exact", passed=False, note="actually wrong", labeler="ana", path=path)
    label(first, check="exact", passed=True, labeler="bob", path=path)
    label(second, check="exact", passed=False, path=path)
    found = labels(path=path)
    assert len(found) == 3  # ana's second label replaced her first
    ana = labels(labeler="ana", path=path)
    assert [(x.passed, x.note) for x in ana] == [(False, "actually wrong")]
    assert {x.labeler for x in labels(results=[second], path=path)} == {"default"}
    assert all(x.key == result_key(first) for x in labels(results=first, path=path))
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["check"] == "exact"
    frame = found.to_dataframe()
    assert {"key", "scenario", "check", "passed", "note", "labeler", "created_at"} <= set(frame)


def test_labels_default_to_the_home_file_and_mask_credentials(_isolated_home):
    result = _run(["ok"])
    key = "sk-" + "a1B2" * 10
    label(result.results[0], check="exact", passed=True, note=f"leaked {key} in reply")
    stored = (_isolated_home / "labels.jsonl").read_text()
    assert key not in stored
    assert key not in labels()[0].note and "leaked" in labels()[0].note


def test_bad_labels_are_clear_errors(tmp_path):
    path = tmp_path / "labels.jsonl"
    result = _run(["ok"])
    r = result.results[0]
    with pytest.raises(GiskardValidationError, match="no check named 'nope'; its checks: 'exact'"):
        label(r, check="nope", passed=True, path=path)
    with pytest.raises(GiskardValidationError, match="passed must be True or False"):
        label(r, check="exact", passed="yes", path=path)
    with pytest.raises(GiskardValidationError, match="takes a ScenarioResult"):
        label(result, check="exact", passed=True, path=path)
    with pytest.raises(GiskardValidationError, match="labeler"):
        label(r, check="exact", passed=True, labeler="", path=path)
    path.write_text('{"key": "x"}\n')
    with pytest.raises(GiskardValidationError, match="line 1 is not a label"):
        labels(path=path)


def test_key_survives_a_new_run_with_the_same_conversation():
    a, b = _run(["ok"]).results[0], _run(["ok"]).results[0]
    assert result_key(a) == result_key(b)
    assert result_key(a) != result_key(_run(["no"]).results[0])


def _labelled(tmp_path, replies, human, labeler="ana"):
    store = LabelStore(tmp_path / "labels.jsonl")
    result = _run(replies)
    for r, passed in zip(result.results, human, strict=True):
        store.add(
            r, check="exact", passed=passed, labeler=labeler, note="n" if not passed else None
        )
    return result, store


def test_calibration_figures_by_hand_and_verdicts(tmp_path):
    # 40 cases: the check passes 20 ("ok"), fails 20; people disagree on 2 of the passes
    replies = ["ok"] * 20 + ["no"] * 20
    human = [True] * 18 + [False] * 2 + [False] * 20
    result, store = _labelled(tmp_path, replies, human)
    report = calibrate(result, store, check="exact")
    s = report.scores
    assert report.n_labels == 40 and s.agreement == pytest.approx(38 / 40)
    # judge pass share .5, human pass share .45: pe = .5·.45 + .5·.55 = .5 → kappa = (.95-.5)/.5
    assert s.kappa == pytest.approx(0.9)
    # positive = failure: judge failed 20, all failures by people (22): precision 1, recall 20/22
    assert s.precision == 1.0 and s.recall == pytest.approx(20 / 22)
    assert s.f1 == pytest.approx(2 * (20 / 22) / (1 + 20 / 22))
    assert s.confusion["judge_pass_human_fail"] == 2
    assert report.verdict == "reliable", report.reason
    assert s.f1_interval.low <= s.f1 <= s.f1_interval.high
    assert len(report.disagreements) == 2
    row = report.disagreements[0]
    assert row["judge_passed"] and not row["human_passed"] and row["human_note"] == "ana: n"
    assert row["output"] == "ok" and row["input"] == "q18|ok"
    frame = report.to_dataframe(disagreements_only=True)
    assert list(frame["agree"]) == [False, False] and frame["labelers"].tolist() == [1, 1]
    figure = report.plot_confusion()
    assert figure.data[0].z[0] == (18, 2) or list(figure.data[0].z[0]) == [18, 2]
    assert "reliable" in figure.layout.title.text
    assert "RELIABLE" in report.text() and "<table>" in report._repr_html_()
    assert calibrate(result, store, check="exact").summary() == report.summary()  # seeded


def test_few_labels_low_kappa_and_one_sided_labels(tmp_path):
    result, store = _labelled(tmp_path, ["ok", "no"] * 5, [True, False] * 5)
    few = calibrate(result, store, check="exact")
    assert few.verdict == "needs more labels" and "fewer than 30" in few.reason
    coin = [True, False, False, True] * 10  # agrees with the check on half the cases
    result, store = _labelled(tmp_path / "b", ["ok", "no"] * 20, coin)
    bad = calibrate(result, store, check="exact")
    assert bad.verdict == "unreliable" and "kappa" in bad.reason
    result, store = _labelled(tmp_path / "c", ["ok"] * 30, [True] * 30)
    one_sided = calibrate(result, store, check="exact")
    assert one_sided.scores.kappa is None and one_sided.verdict == "needs more labels"


def test_unlabelled_ties_and_interlabeler_agreement(tmp_path):
    result, store = _labelled(tmp_path, ["ok", "no", "ok", "no"], [True, False, True, False])
    for r, passed in zip(result.results, [True, False, False, False], strict=True):
        store.add(r, check="exact", passed=passed, labeler="bob")
    report = calibrate(result.results + _run(["maybe"]).results, store, check="exact")
    assert report.ties == 1 and report.n_labels == 3
    assert report.labelers == 2 and report.interlabeler_method == "Fleiss"
    # items (ana, bob): TT, FF, TF, FF → P_i 1, 1, 0, 1; share yes 3/8 → pe = 34/64; P̄ = .75
    assert report.interlabeler_kappa == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))
    assert report.unlabelled == 1


@Check.register("test_scored")
class Scored(Check):
    """PASS when metadata score >= threshold, recording the score like SemanticSimilarity."""

    threshold: float = 0.8

    def run(self, trace):
        score = trace.last.metadata["score"]
        details = {"similarity": score, "threshold": self.threshold}
        if score >= self.threshold:
            return CheckResult.success("close", details=details)
        return CheckResult.failure("far", details=details)


def test_threshold_suggestion_for_a_scored_check(tmp_path):
    scores = [0.95, 0.9, 0.85, 0.75, 0.72, 0.6, 0.5, 0.3]
    human = [True, True, True, True, True, False, False, False]  # people accept from 0.72
    suite = Suite("sim")
    for i, score in enumerate(scores):
        suite.append(
            Scenario(f"c{i}")
            .interact(f"q{i}", "a", metadata={"score": score})
            .check(Scored(name="sim"))
        )
    result = suite.run_sync()
    store = LabelStore(tmp_path / "l.jsonl")
    for r, passed in zip(result.results, human, strict=True):
        store.add(r, check="sim", passed=passed)
    report = calibrate(result, store, check="sim")
    assert report.current_threshold == 0.8 and report.scores.agreement == pytest.approx(6 / 8)
    assert report.suggested_threshold == pytest.approx(0.66) and report.threshold_agreement == 1.0
    assert report.to_dataframe()["score"].tolist() == scores
    assert suggest_threshold([0.2, 0.8], [False, True], current=0.3) == (0.5, 1.0)
    assert suggest_threshold([], []) is None


def test_calibrate_needs_a_check_name():
    with pytest.raises(GiskardValidationError, match="check="):
        calibrate([], [], check="")


def test_calibration_report_from_plain_items_as_the_hub_builds_them():
    from giskard_nb.core.calibration import CalibrationItem, HumanLabel, calibration_report

    ana_bob = [HumanLabel("ana", False, "wrong"), HumanLabel("bob", False)]
    items = [
        CalibrationItem("k1", True, ana_bob, output="a", judge_reason="looks fine"),
        CalibrationItem("k1", False, ana_bob, output="a"),  # a repeat: same labels, counted once
        CalibrationItem("k2", True, [HumanLabel("ana", True), HumanLabel("bob", False)]),
        CalibrationItem("k3", False, [HumanLabel("ana", True), HumanLabel("ana", False)]),
    ]
    report = calibration_report("judge", items, unlabelled=5, min_labels=2)
    assert report.ties == 1 and report.n_labels == 3 and report.unlabelled == 5
    assert [r["agree"] for r in report.rows] == [False, True, True]  # ana's latest label counts
    assert report.rows[0]["human_note"] == "ana: wrong"
    # k1 (F, F) and k2 (T, F) by ana and bob: Fleiss over 2 items
    assert report.interlabeler_method == "Fleiss" and report.labelers == 2
    assert report.summary()["unlabelled"] == 5


def test_calibrate_rejects_what_is_not_a_result():
    with pytest.raises(GiskardValidationError, match="results must be a SuiteResult"):
        calibrate(42, [], check="exact")
    with pytest.raises(GiskardValidationError, match="results must be a SuiteResult"):
        labels(results=["not a result"])
