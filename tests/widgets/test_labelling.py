"""Labelling check verdicts in the ResultsViewer, headless: the agree / disagree buttons and notes
write the human verdict through the labels file (core results) or the Hub's ``results.label``
(a Hub evaluation, here a fake with that method); labels show again on reopen; "Next unlabelled"
walks the filtered results and moves the focus; hostile notes and check names are escaped."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from giskard_nb import GiskardValidationError, Hub, ResultsViewer, Scenario, SuiteResult, from_fn
from giskard_nb.core.labels import labels, result_key
from giskard_nb.widgets.label_sink import FileLabelSink, HubLabelSink, LabelSink

samples = importlib.import_module("frontend_samples")
XSS = samples.XSS


def _viewer(result: Any, tmp_path, labeler: str = "ana", **kwargs: Any) -> ResultsViewer:
    return ResultsViewer(result, labels=tmp_path / "labels.jsonl", labeler=labeler, **kwargs)


def _stored(tmp_path) -> dict[tuple[str, str, str], tuple[bool, str | None]]:
    return {
        (x.scenario, x.check, x.labeler): (x.passed, x.note)
        for x in labels(path=tmp_path / "labels.jsonl")
    }


def _focused(viewer: ResultsViewer) -> list[Any]:
    """Record the controls the viewer sends the focus to (the browser test sees the real focus)."""
    sent: list[Any] = []
    panel = viewer.labelling
    original = panel.focus
    panel.focus = lambda control: (sent.append(control), original(control))
    return sent


def test_clicking_agree_and_disagree_stores_the_human_verdict(suite_result: SuiteResult, tmp_path):
    viewer = _viewer(suite_result, tmp_path)
    assert "open a result to label" in viewer.labelling.title.value
    viewer._w["pick"].value = 1  # "fails": string_matching failed ("does not contain 'bye'")
    controls = viewer.labelling.controls
    assert list(controls) == ["string_matching"]
    row = controls["string_matching"]
    assert (row.agree.description, row.disagree.description) == ("agree", "disagree")
    assert row.choice is None and row.agree.button_style == ""
    row.agree.click()  # the check was right to fail: the human verdict is FAIL
    assert _stored(tmp_path) == {("fails", "string_matching", "ana"): (False, None)}
    assert row.choice == "agree" and row.agree.button_style == "info" and row.agree.icon == "check"
    row.disagree.click()  # changed my mind: it should have passed (my label is replaced)
    assert _stored(tmp_path) == {("fails", "string_matching", "ana"): (True, None)}
    assert "should PASS (disagree)" in viewer.labelling.message.value
    assert "(1 of 1 labelled)" in viewer.labelling.title.value
    assert row.disagree.button_style == "info" and row.agree.button_style == ""

    viewer.open(0)  # "greets": both checks passed
    assert list(viewer.labelling.controls) == ["frontend_fake_judge", "string_matching"]
    sent = _focused(viewer)
    viewer.labelling.controls["string_matching"].disagree.click()
    assert sent == [viewer.labelling.controls["frontend_fake_judge"].agree]  # the next to label
    viewer.labelling.controls["frontend_fake_judge"].agree.click()
    assert sent[-1] is viewer.labelling.next_button  # all labelled: on to the next result
    assert _stored(tmp_path) == {
        ("fails", "string_matching", "ana"): (True, None),
        ("greets", "string_matching", "ana"): (False, None),
        ("greets", "frontend_fake_judge", "ana"): (True, None),
    }
    (label,) = labels(path=tmp_path / "labels.jsonl", check="frontend_fake_judge")
    # the core labels' key, which calibrate() reads
    assert label.key == result_key(suite_result.results[0])


def test_labels_show_again_on_reopen_with_their_notes(suite_result: SuiteResult, tmp_path):
    viewer = _viewer(suite_result, tmp_path)
    viewer.open(0)
    row = viewer.labelling.controls["string_matching"]
    row.note.value = "says hello but to whom?"  # typed first (Enter): kept until a choice is made
    assert "choose agree or disagree" in viewer.labelling.message.value and not _stored(tmp_path)
    row.disagree.click()
    assert _stored(tmp_path)[("greets", "string_matching", "ana")] == (
        False,
        "says hello but to whom?",
    )
    row.note.value = "greets the wrong person"  # a note edited after the choice is stored again
    assert _stored(tmp_path)[("greets", "string_matching", "ana")] == (
        False,
        "greets the wrong person",
    )
    viewer.label(1, "string_matching", "agree", note="  ")  # from code; a blank note is none

    again = _viewer(suite_result, tmp_path)  # a new viewer on the same file
    again.open(0)
    row = again.labelling.controls["string_matching"]
    assert row.choice == "disagree" and row.note.value == "greets the wrong person"
    assert again.labelling.controls["frontend_fake_judge"].choice is None  # not labelled
    assert "(1 of 2 labelled)" in again.labelling.title.value
    again.open(1)
    assert again.labelling.controls["string_matching"].choice == "agree"
    assert again.labelling.controls["string_matching"].note.value == ""  # the row was reused

    other = _viewer(suite_result, tmp_path, labeler="ben")  # another labeler starts blank
    other.open(0)
    assert other.labelling.controls["string_matching"].choice is None
    other.label(0, "string_matching", "agree")
    assert _stored(tmp_path)[("greets", "string_matching", "ben")] == (True, None)
    assert _stored(tmp_path)[("greets", "string_matching", "ana")][0] is False


def test_a_hostile_note_and_check_name_are_escaped_and_secrets_masked(tmp_path):
    hostile_check = "<img src=x onerror=alert(1)>"
    result = (
        Scenario(f"scenario {XSS}")
        .interact("hi", f"reply {XSS}")
        .check(from_fn(lambda trace: False, name=hostile_check))
        .run_sync()
    )
    viewer = _viewer(result, tmp_path)
    viewer.open(0)
    panel = viewer.labelling
    head = panel.rows.children[0].children[0].value  # the row's check name, status and reason
    assert "<img" not in head and "&lt;img src=x onerror=alert(1)&gt;" in head
    row = panel.controls[hostile_check]
    row.note.value = f"{XSS} key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    row.disagree.click()
    html = panel.message.value + panel.title.value + viewer._w["detail"].value
    assert "<img" not in html and "<script" not in html
    assert "&lt;script&gt;" in panel.message.value
    (stored,) = labels(path=tmp_path / "labels.jsonl")
    assert stored.check == hostile_check and stored.passed is True
    assert "sk-proj-abcdef" not in stored.note and XSS in stored.note  # kept as text, masked
    assert "sk-proj-abcdef" not in row.note.value  # the box shows what was stored
    reopened = _viewer(result, tmp_path)
    reopened.open(0)
    assert reopened.labelling.controls[hostile_check].note.value == stored.note  # a value, not HTML


def test_next_unlabelled_walks_the_filtered_results_and_moves_the_focus(tmp_path):
    # statuses cycle pass, fail, error, pass: result 2's only check errored (nothing to label)
    viewer = _viewer(samples.big_suite_result(45), tmp_path, page_size=20)
    sent = _focused(viewer)
    assert viewer.next_unlabelled() == 0  # nothing opened: the first result with a verdict
    assert sent == [viewer.labelling.controls["check_0"].agree]  # its "agree" button
    viewer.labelling.controls["check_0"].agree.click()
    assert sent[-1] is viewer.labelling.next_button  # every check labelled: on to the next
    viewer.labelling.next_button.click()
    assert viewer.opened == 1
    viewer.label(1, "check_0", "disagree")
    assert viewer.next_unlabelled() == 3  # #2 errored: no verdict to label
    viewer.open(2)
    assert not viewer.labelling.controls and "no PASS/FAIL verdict" in viewer.labelling.title.value

    viewer.filter(status="fail")  # 1, 5, 9, ...: #1 is labelled
    viewer.open(41)
    assert viewer.next_unlabelled() == 5  # from the end back to the first unlabelled one
    viewer.open(37)
    assert viewer.next_unlabelled() == 41 and viewer.page == 0
    viewer.filter()
    viewer.open(19)
    assert viewer.next_unlabelled() == 20 and viewer.page == 1  # on the next page, selected
    assert viewer.selected == 20

    viewer.filter(status="fail")
    for index in viewer.matches:
        viewer.label(index, "check_0", "agree")
    assert viewer.next_unlabelled() is None
    assert "every verdict of the results the filters keep is labelled" in (
        viewer.labelling.message.value
    )
    assert len(labels(path=tmp_path / "labels.jsonl")) == 12  # #0 and the 11 failures (#1 too)


def test_bad_labels_are_refused_with_a_clear_message(suite_result: SuiteResult, tmp_path):
    plain = ResultsViewer(suite_result)  # no labels file, no labeler: no labelling
    assert plain.labelling is None
    with pytest.raises(GiskardValidationError, match="labels='labels.jsonl', labeler='ana'"):
        plain.label(0, "string_matching", "agree")
    viewer = _viewer(suite_result, tmp_path)
    with pytest.raises(
        GiskardValidationError, match="no PASS/FAIL verdict of a check named 'nope'"
    ):
        viewer.label(0, "nope", "agree")
    with pytest.raises(GiskardValidationError, match="no PASS/FAIL verdict.*string_matching"):
        viewer.label(2, "string_matching", "agree")  # it errored: no verdict to label
    with pytest.raises(GiskardValidationError, match="choose 'agree'.*not 'yes'"):
        viewer.label(0, "string_matching", "yes")
    with pytest.raises(GiskardValidationError, match="no result #9"):
        viewer.label(9, "string_matching", "agree")
    with pytest.raises(GiskardValidationError, match="labeler must be your name"):
        _viewer(suite_result, tmp_path, labeler="  ")
    with pytest.raises(GiskardValidationError, match="labels must be the path of a labels file"):
        ResultsViewer(suite_result, labels=42)
    long_note = "x" * 5000  # the labels file takes notes of at most 4000 characters
    viewer.open(0)
    row = viewer.labelling.controls["string_matching"]
    row.note.value = long_note
    row.agree.click()
    assert "at most 4000" in viewer.labelling.message.value  # shown, not raised
    assert row.choice is None and row.note.value == long_note  # nothing chosen; note kept to fix
    assert not (tmp_path / "labels.jsonl").exists()


def test_only_a_labeler_uses_the_default_labels_file(
    suite_result: SuiteResult, tmp_path, monkeypatch
):
    monkeypatch.setenv("GISKARD_NB_HOME", str(tmp_path / "home"))
    viewer = ResultsViewer(suite_result, labeler="ana")
    assert isinstance(viewer.labelling.sink, FileLabelSink)
    viewer.label(3, "answer", "agree")
    (stored,) = labels()  # the default labels file, as label() and calibrate() read it
    assert (stored.scenario, stored.check, stored.passed, stored.labeler) == (
        "structured",
        "answer",
        True,
        "ana",
    )


class FakeHubLabels:
    """Stands for ``hub.evaluations.results``' labelling methods (written by the Hub's side)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def label(self, result_id, *, check, passed, note=None, labeler=None):
        self.rows = [
            r
            for r in self.rows
            if (r["result_id"], r["check"], r["labeler"]) != (result_id, check, labeler)
        ]
        row = {
            "result_id": result_id,
            "check": check,
            "passed": passed,
            "note": note,
            "labeler": labeler,
        }
        self.rows.append(row)
        return row

    def labels(self, evaluation_id=None, result_id=None, check=None):
        return [r for r in self.rows if result_id is None or r["result_id"] == result_id]


def test_a_hub_evaluation_labels_through_the_hub(monkeypatch):
    hub = Hub(":memory:", actor="carla")
    try:
        project = hub.projects.create("support")
        dataset = hub.datasets.upload(
            project.id,
            [
                {
                    "messages": "hours?",
                    "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}],
                },
                {
                    "messages": "refund?",
                    "checks": [{"identifier": "string_match", "params": {"keyword": "30 days"}}],
                },
            ],
            name="faq",
        )
        bot = lambda messages: "Open Monday"  # noqa: E731
        evaluation = hub.evaluations.create_local(bot, dataset.id, name="v1", progress=False)
        fake = FakeHubLabels()
        monkeypatch.setattr(hub.evaluations.results, "label", fake.label, raising=False)
        monkeypatch.setattr(hub.evaluations.results, "labels", fake.labels, raising=False)
        fake.rows.append(  # someone else's label, and a corrupt row: neither is shown as mine
            {
                "result_id": "x",
                "check": "string_match",
                "passed": True,
                "note": None,
                "labeler": "dan",
            }
        )
        viewer = ResultsViewer(evaluation)  # the Hub's actor labels
        assert isinstance(viewer.labelling.sink, HubLabelSink)
        ids = [item.extra["result_id"] for item in viewer.items]
        failed = next(i for i, item in enumerate(viewer.items) if item.status == "fail")
        viewer.open(failed)
        viewer.labelling.controls["string_match"].note.value = "refund answer missing"
        viewer.labelling.controls["string_match"].agree.click()
        assert fake.rows[-1] == {
            "result_id": ids[failed],
            "check": "string_match",
            "passed": False,  # agreeing with a FAIL: the human verdict is FAIL
            "note": "refund answer missing",
            "labeler": "carla",
        }
        fake.rows.append({"result_id": ids[1 - failed], "check": "string_match", "passed": "yes",
                          "note": None, "labeler": "carla"})  # fmt: skip
        again = ResultsViewer(evaluation, labeler="carla")
        again.open(failed)
        assert again.labelling.controls["string_match"].choice == "agree"
        assert again.labelling.controls["string_match"].note.value == "refund answer missing"
        assert again.next_unlabelled() == 1 - failed  # the corrupt row is no label
        assert ResultsViewer(evaluation, labeler="dan").labelling.sink.labeler == "dan"
    finally:
        hub.close()


def test_the_viewer_labels_into_the_real_hub_and_calibration_reads_them():
    hub = Hub(":memory:", actor="carla")
    try:
        project = hub.projects.create("support")
        check = {"identifier": "string_match", "params": {"keyword": "Monday"}}
        dataset = hub.datasets.upload(
            project.id,
            [{"messages": "hours?", "checks": [check]}, {"messages": "open?", "checks": [check]}],
            name="faq",
        )
        replies = iter(["Open Monday", "We are open every weekday"])
        evaluation = hub.evaluations.create_local(
            lambda messages: next(replies), dataset.id, name="v1", progress=False, max_concurrency=1
        )
        viewer = ResultsViewer(evaluation)
        assert isinstance(viewer.labelling.sink, HubLabelSink)
        failed = next(i for i, item in enumerate(viewer.items) if item.status == "fail")
        viewer.open(failed)
        viewer.labelling.controls["string_match"].disagree.click()  # the human says it is right
        viewer.open(1 - failed)
        viewer.labelling.controls["string_match"].agree.click()
        stored = hub.evaluations.results.labels(evaluation_id=evaluation.id)
        assert sorted((label.passed, label.labeler) for label in stored) == [
            (True, "carla"),
            (True, "carla"),
        ]
        again = ResultsViewer(evaluation)
        again.open(failed)
        assert again.labelling.controls["string_match"].choice == "disagree"
        report = hub.checks.calibrate(project.id, check="string_match")
        assert (report.scores.n, report.scores.agreement) == (2, 0.5)
        assert report.verdict == "needs more labels"
    finally:
        hub.close()


def test_any_object_with_the_three_methods_is_a_sink(suite_result: SuiteResult):
    class Memory:
        def __init__(self) -> None:
            self.saved: dict[tuple[str, str], tuple[bool, str | None]] = {}

        def key_of(self, item):
            return item.name

        def label(self, key, check, passed, note):
            self.saved[(key, check)] = (passed, note)

        def existing(self, key):
            return {
                c: {"passed": p, "note": n} for (k, c), (p, n) in self.saved.items() if k == key
            }

    sink = Memory()
    assert isinstance(sink, LabelSink)
    viewer = ResultsViewer(suite_result, labels=sink)
    viewer.label(4, "string_matching", "disagree", note="the output is an attack")
    assert sink.saved == {("hostile output", "string_matching"): (True, "the output is an attack")}
    viewer.open(4)
    assert viewer.labelling.controls["string_matching"].choice == "disagree"
