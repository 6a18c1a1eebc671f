"""ResultsViewer, headless: filters, paging, opening a result, relabelling, escaping."""

from __future__ import annotations

import importlib

import pytest

from giskard_nb import GiskardValidationError, ResultsViewer, SuiteResult

samples = importlib.import_module("frontend_samples")


def test_first_page_and_paging():
    viewer = ResultsViewer(samples.big_suite_result(45), page_size=20)
    assert [i for i, _ in viewer.page_items] == list(range(20))
    assert viewer._w["page_label"].value == "page 1 of 3 — 45 of 45 results"
    assert viewer._w["prev"].disabled and not viewer._w["next"].disabled
    viewer._w["next"].click()
    viewer._w["next"].click()
    assert [i for i, _ in viewer.page_items] == list(range(40, 45))
    assert viewer._w["next"].disabled
    viewer.next_page()  # clamped
    assert viewer.page == 2
    viewer._w["prev"].click()
    assert viewer.page == 1
    assert viewer._w["table"].value.count("<tr>") == 21  # header + 20 rows


def test_filters_by_status_check_tag_and_text(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    assert viewer.filter(status="fail") == [1, 4]
    assert viewer.filter(status="error") == [2]
    # with a check, the status is that check's status
    assert viewer.filter(check="string_matching", status="pass") == [0]
    assert viewer.filter(check="answer") == [3]
    assert viewer.filter(tag="topic:greeting") == [0, 1]
    assert viewer.filter(tag="topic:greeting", status="pass") == [0]
    assert viewer.filter(search="HELLO") == [0, 1, 3]  # name, input or output, any case
    assert viewer.filter(search="greets") == [0]
    viewer.clear_filters()
    assert viewer.matches == [0, 1, 2, 3, 4]


def test_filter_controls_drive_the_same_method(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    viewer._w["f_status"].value = "fail"  # a dropdown filters at once: no Filter button
    assert viewer.matches == [1, 4] and "apply" not in viewer._w
    assert "greets" not in viewer._w["table"].value
    viewer._w["clear"].click()
    assert len(viewer.matches) == 5 and viewer._w["f_status"].value == "(all)"
    viewer.filter(status="skip")
    assert "no result matches" in viewer._w["table"].value


def test_unknown_filter_values_are_rejected(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    with pytest.raises(GiskardValidationError, match="unknown status 'failed'"):
        viewer.filter(status="failed")
    with pytest.raises(GiskardValidationError, match="unknown check 'nope'.*'answer'"):
        viewer.filter(check="nope")
    with pytest.raises(GiskardValidationError, match="no result #9"):
        viewer.open(9)
    with pytest.raises(GiskardValidationError, match="page_size"):
        ResultsViewer(suite_result, page_size=0)
    with pytest.raises(GiskardValidationError, match="ResultsViewer shows"):
        ResultsViewer(42)


def test_open_shows_conversation_and_every_reason(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    viewer._w["pick"].value = 1  # a click on the second row of the list opens it
    html = viewer._w["detail"].value
    assert viewer.opened == 1
    assert "there" in html and "hello there" in html  # user turn and agent output
    assert "does not contain the keyword &#x27;bye&#x27;" in html
    assert "an earlier step did not pass" in html  # the skipped step's reason
    error_html = viewer.open(2)
    assert "agent exploded" in error_html


def test_agent_output_is_escaped(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    html = viewer.open(4)
    assert "<img" not in html and "<script" not in html
    assert "&lt;img src=x onerror=" in html and "&lt;script&gt;" in html
    viewer.filter(search="onerror")
    assert "<img" not in viewer._w["table"].value


def test_relabel_sets_category_filters_and_calls_back(suite_result: SuiteResult):
    calls = []
    viewer = ResultsViewer(
        suite_result,
        categories=["Hallucination"],
        on_relabel=lambda item, cat: calls.append((item.name, cat)),
    )
    viewer.open(1)
    viewer._w["category"].value = "Off-topic"
    viewer._w["relabel"].click()
    assert viewer.items[1].failure_category == "Off-topic"
    assert calls == [("fails", "Off-topic")]
    assert "Off-topic" in viewer.categories and "Off-topic" in viewer._w["f_category"].options
    assert viewer.filter(failure_category="Off-topic") == [1]
    assert "failure category: <b>Off-topic</b>" in viewer._w["detail"].value
    df = viewer.to_dataframe()
    assert list(df["scenario_index"]) == [1] and list(df["failure_category"]) == ["Off-topic"]
    viewer.relabel(1, None)
    assert viewer.items[1].failure_category is None and calls[-1] == ("fails", None)
    with pytest.raises(GiskardValidationError, match="non-empty"):
        viewer.relabel(1, "  ")
    passing = viewer.filter(status="pass")[0]
    viewer.filter()
    with pytest.raises(GiskardValidationError, match="did not fail"):
        viewer.relabel(passing, "Off-topic")  # a passing result takes no failure category
    assert viewer.items[passing].failure_category is None and len(calls) == 2


def test_relabel_button_without_a_visible_result_explains(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    viewer.filter(status="skip")  # nothing left to select
    assert viewer.selected is None
    viewer._w["relabel"].click()
    assert "select a result in the list first" in viewer._w["detail"].value
    viewer._w["open"].click()
    assert "no result on this page: clear or change the filters" in viewer._w["detail"].value
    assert all(i.failure_category is None for i in viewer.items)


def test_the_list_selects_the_first_visible_row_and_a_click_opens(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    pick = viewer._w["pick"]
    assert viewer.selected == 0 and viewer.opened is None  # selected, not opened yet
    assert pick.options[0][0].startswith("#0 PASS · ")
    viewer._w["open"].click()  # Open shows the selected row (a click on it changes nothing)
    assert viewer.opened == 0
    viewer.filter(status="fail")
    assert [i for _, i in pick.options] == [1, 4] and viewer.selected == 1  # not the hidden #0
    pick.value = 4
    assert viewer.opened == 4 and "#4" in viewer._w["detail"].value
    viewer.filter(status="fail")  # the opened result stays selected while it is visible
    assert viewer.selected == 4


def test_relabel_box_follows_the_selection(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result, categories=["Hallucination"])
    viewer.filter(status="fail")
    viewer._w["pick"].value = 4
    viewer._w["category"].value = "Hallucination"
    viewer._w["relabel"].click()
    assert viewer.items[4].failure_category == "Hallucination"
    viewer._w["pick"].value = 1  # another row: the box shows its (empty) category
    assert viewer._w["category"].value == ""
    viewer._w["relabel"].click()  # so Relabel does not copy the previous label over
    assert viewer.items[1].failure_category is None
    viewer._w["pick"].value = 4
    assert viewer._w["category"].value == "Hallucination"
    viewer.filter(status="pass")  # the page changes: the box follows the new selection
    assert viewer.selected == 0 and viewer._w["category"].value == ""
    viewer.filter()
    viewer.open(1)
    viewer._w["category"].value = "Off-topic"
    viewer._w["relabel"].click()  # Relabel acts on the selected (opened) row
    assert viewer.items[1].failure_category == "Off-topic"


def test_to_dataframe_of_nothing_is_empty(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    viewer.filter(status="skip")
    assert viewer.to_dataframe().empty


def test_text_filter_applies_once_typing_pauses(suite_result: SuiteResult):
    viewer = ResultsViewer(suite_result)
    viewer._live.debounce.delay = 60  # the timer never fires by itself in this test
    for typed in ("g", "gr", "greets"):
        viewer._w["f_search"].value = typed
    assert viewer.matches == [0, 1, 2, 3, 4] and viewer._live.debounce.pending
    viewer._live.debounce.flush()  # what the timer does when typing pauses
    assert viewer.matches == [0] and not viewer._live.debounce.pending
    viewer._w["f_status"].value = "fail"  # a dropdown applies at once, with the typed text
    assert viewer.matches == []
    viewer.clear_filters()
    assert viewer._w["f_search"].value == "" and not viewer._live.debounce.pending


def test_text_filter_fires_by_itself_after_the_pause(suite_result: SuiteResult):
    import time

    viewer = ResultsViewer(suite_result)
    viewer._live.debounce.delay = 0.05
    viewer._w["f_search"].value = "greets"  # no running loop here: a timer thread
    deadline = time.monotonic() + 10
    while viewer.matches != [0] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert viewer.matches == [0]


def test_results_table_is_left_aligned(suite_result: SuiteResult):
    html = ResultsViewer(suite_result)._w["table"].value
    assert "text-align:right" not in html and html.count("text-align:left") > 10


def test_hub_style_conversation_renders_as_chat_turns():
    from giskard_nb import Scenario

    xss = samples.XSS
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": xss},
        {"role": "user", "content": "hours?"},
    ]
    calls = [{"name": "lookup", "arguments": {"q": "<script>x</script>"}}]
    result = (
        Scenario("hub case")
        .interact(messages, "Open <b>Monday</b>", metadata={"tool_calls": calls})
        .run_sync(lambda inputs: "unused")
    )
    html = ResultsViewer(result).open(0)
    assert "1. user" not in html and "[{" not in html  # no raw JSON list
    assert html.count("giskard-turn-user") == 2 and html.count("giskard-turn-assistant") == 2
    assert "<script" not in html and "<img" not in html and "<b>Monday" not in html
    assert "&lt;img src=x onerror" in html and "lookup" in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html
