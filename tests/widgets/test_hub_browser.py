"""HubBrowser, headless: projects → agents, datasets, evaluations, scans, tasks; open an evaluation
in the ResultsViewer, a scan in its report, compare two evaluations; everything escaped."""

from __future__ import annotations

import pytest

from giskard_nb import GiskardValidationError, Hub, HubBrowser, ResultsViewer
from giskard_nb.errors import NotFoundError

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"
QUESTIONS = {"hours?": "Monday", "refund?": "30 days", f"xss {XSS}": "never-said"}


def good_bot(messages):
    question = messages[-1]["content"]
    return {"hours?": "Open Monday", "refund?": "No refunds"}.get(question, f"echo {question}")


def fixed_bot(messages):
    question = messages[-1]["content"]
    return {"hours?": "Closed", "refund?": "Within 30 days"}.get(question, XSS)


@pytest.fixture
def filled_hub():
    hub = Hub(":memory:")
    project = hub.projects.create(f"support {XSS}")
    other = hub.projects.create("other")
    hub.agents.create(
        project.id, name=f"bot {XSS}", url="http://user:s3cret@127.0.0.1:9/chat?token=t0ken"
    )
    dataset = hub.datasets.create(project.id, name=f"faq {XSS}")
    for question, keyword in QUESTIONS.items():
        hub.test_cases.create(
            dataset.id,
            messages=[{"role": "user", "content": question}],
            checks=[{"identifier": "string_match", "params": {"keyword": keyword}}],
        )
    v1 = hub.evaluations.create_local(good_bot, dataset.id, name="v1", progress=False)
    v2 = hub.evaluations.create_local(fixed_bot, dataset.id, name=f"v2 {XSS}", progress=False)
    scan = hub.scans.create(
        project.id,
        agent=fixed_bot,
        categories=["prompt_injection"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
        progress=False,
        name=f"scan {XSS}",
    )
    hub.tasks.create(project.id, f"triage {XSS}", assignees=["ana"])
    yield hub, {"project": project, "other": other, "v1": v1, "v2": v2, "scan": scan}
    hub.close()


def _no_markup(html: str) -> None:
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html or "&lt;img" in html


def test_projects_and_every_kind_listed_escaped(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    assert browser.project_id == ids["project"].id and browser.kind == "evaluations"
    # the pickers start on the latest evaluation and scan (and compare the last two)
    assert browser._w["evaluation"].value == ids["v2"].id
    assert browser._w["scan"].value == ids["scan"].id
    assert [e.id for e in browser.show("evaluations")] == [ids["v1"].id, ids["v2"].id]
    for kind, expected in (
        ("agents", "bot"), ("datasets", "faq"), ("evaluations", "v2"), ("scans", "scan"),
        ("tasks", "triage"),
    ):  # fmt: skip
        records = browser.show(kind)
        html = browser._w["table"].value
        assert len(records) == 1 or kind == "evaluations"
        assert expected in html and browser._w["kind"].value == kind
        _no_markup(html)
        assert "text-align:right" not in html
    browser.show("agents")
    agents_html = browser._w["table"].value
    assert "127.0.0.1:9/chat" in agents_html and "s3cret" not in agents_html
    assert "t0ken" not in agents_html
    browser.show("datasets")
    assert "<td style='text-align:left;vertical-align:top;padding:2px 6px;border-bottom:1px solid #eee'>3</td>" in browser._w["table"].value  # fmt: skip
    assert len(browser.to_dataframe("evaluations")) == 2
    assert len(browser.to_dataframe("datasets")) == 1 and len(browser.to_dataframe("tasks")) == 1


def test_select_project_and_the_controls_drive_the_same_methods(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    project_options = dict(browser._w["project"].options)
    assert set(project_options.values()) == {ids["project"].id, ids["other"].id}
    browser._w["project"].value = ids["other"].id  # the dropdown selects the project
    assert browser.project_id == ids["other"].id
    assert "no evaluations in this project yet" in browser._w["table"].value
    browser._w["open_evaluation"].click()  # nothing to open: said, not raised
    assert "no evaluation to open" in browser._w["message"].value
    browser._w["kind"].value = "scans"  # the tabs show a kind
    assert browser.kind == "scans" and "no scans in this project yet" in browser._w["table"].value
    assert browser.select_project(ids["project"].id)[0].id == ids["scan"].id
    assert browser._w["project"].value == ids["project"].id
    with pytest.raises(NotFoundError):
        browser.select_project("nope")
    with pytest.raises(GiskardValidationError, match="unknown kind 'results'"):
        browser.show("results")
    with pytest.raises(GiskardValidationError, match="needs a Hub"):
        HubBrowser(object())


def test_open_an_evaluation_in_the_results_viewer(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub, project_id=ids["other"].id)
    viewer = browser.open_evaluation(ids["v2"].id)  # follows the evaluation's project
    assert browser.project_id == ids["project"].id
    assert isinstance(viewer, ResultsViewer) and browser.opened is viewer
    assert len(viewer.items) == 3 and viewer.widget in browser._w["detail"].children
    failed = viewer.filter(status="fail")
    html = viewer.open(failed[-1])  # the hostile question and answer
    _no_markup(html)
    assert "giskard-turn-user" in html and "giskard-turn-assistant" in html
    _no_markup(browser._w["detail"].children[0].value)
    browser._w["evaluation"].value = ids["v1"].id
    browser._w["open_evaluation"].click()
    assert browser.opened.items[0].extra["result_id"]
    assert browser._w["message"].value == ""


def test_open_a_scan_report(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    report = browser.open_scan(ids["scan"].id)
    assert report.id == ids["scan"].id and report.attempts
    html = browser._w["detail"].children[0].value
    assert str(report.grade) in html
    assert "<script" not in html and "<img" not in html
    browser._w["scan"].value = ids["scan"].id
    browser._w["open_scan"].click()
    assert browser.opened.id == ids["scan"].id


def test_compare_two_evaluations_regressions_and_fixes(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    assert browser._w["before"].value == ids["v1"].id and browser._w["after"].value == ids["v2"].id
    browser._w["compare"].click()
    comparison = browser.opened
    assert [c.question for c in comparison.regressions] == ["hours?"]
    assert [c.question for c in comparison.fixes] == ["refund?"]
    html = browser._w["detail"].children[0].value
    regressions = html[html.index("Regressions") : html.index("Fixes")]
    fixes = html[html.index("Fixes") : html.index("Other changes")]
    assert "hours?" in regressions and "refund?" not in regressions
    assert "refund?" in fixes and "hours?" not in fixes
    _no_markup(html)
    with pytest.raises(GiskardValidationError, match="two different evaluations"):
        browser.compare(ids["v1"].id, ids["v1"].id)


def test_refresh_picks_up_new_records(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    browser.show("datasets")
    hub.datasets.create(ids["project"].id, name="second")
    assert "second" not in browser._w["table"].value
    browser._w["refresh"].click()
    assert "second" in browser._w["table"].value and browser.kind == "datasets"
    hub.projects.create("third")
    assert len(browser.refresh()) == 2
    assert "third" in [name for name, _ in browser._w["project"].options]


def test_an_empty_hub_says_what_to_do():
    hub = Hub(":memory:")
    browser = HubBrowser(hub)
    assert browser.project_id is None and browser.records("agents") == []
    assert "hub.projects.create" in browser._w["table"].value
    hub.close()


def test_open_a_dataset_its_test_cases_and_evaluations(filled_hub):
    hub, ids = filled_hub
    browser = HubBrowser(hub)
    dataset_id = ids["v1"].dataset_id
    assert browser._w["dataset"].value == dataset_id  # the dataset of the latest evaluation
    browser._w["open_dataset"].click()
    assert browser.opened.id == dataset_id and browser._w["message"].value == ""
    html = browser._w["detail"].children[0].value
    assert "3 test cases, 2 evaluations" in html
    cases = html[html.index("Test cases") : html.index("Evaluations of this dataset")]
    assert "hours?" in cases and "refund?" in cases and "string_match" in cases
    assert "“hours?”" in cases  # an unnamed case is named from its question
    used = html[html.index("Evaluations of this dataset") :]
    assert "v1" in used and ids["v2"].id in used
    _no_markup(html)
    other = hub.datasets.create(ids["project"].id, name="empty one")
    browser.refresh()
    browser.open_dataset(other.id)
    html = browser._w["detail"].children[0].value
    assert "no test case yet" in html and "not evaluated yet" in html
    with pytest.raises(NotFoundError):
        browser.open_dataset("nope")


def test_evaluations_table_has_a_dataset_column(filled_hub):
    hub, _ids = filled_hub
    browser = HubBrowser(hub)
    html = browser.show("evaluations") and browser._w["table"].value
    assert "<th" in html and ">dataset<" in html
    assert html.count("faq &lt;img") == 2  # each evaluation names its dataset, escaped
    labels = [label for label, _ in browser._w["evaluation"].options]
    assert labels[0].startswith("v1 · faq ")


def test_compare_pickers_default_to_one_dataset_never_a_red_first_click(filled_hub):
    hub, ids = filled_hub
    project = ids["project"]
    other = hub.datasets.create(project.id, name="other faq")
    hub.test_cases.create(
        other.id,
        messages=[{"role": "user", "content": "hours?"}],
        checks=[{"identifier": "string_match", "params": {"keyword": "Monday"}}],
    )
    lone = hub.evaluations.create_local(good_bot, other.id, name="lone", progress=False)
    browser = HubBrowser(hub)
    # the latest evaluation (lone) has no sibling: the pickers take the last pair of one dataset
    assert browser._w["evaluation"].value == lone.id
    assert (browser._w["before"].value, browser._w["after"].value) == (ids["v1"].id, ids["v2"].id)
    assert [v for _, v in browser._w["after"].options] == [ids["v2"].id]  # same dataset only
    browser._w["compare"].click()
    assert "color:#c62828" not in browser._w["message"].value
    assert browser.opened.after_name == ids["v2"].name
    browser._w["before"].value = lone.id  # "with" follows: nothing else ran on that dataset
    assert browser._w["after"].options == () and browser._w["after"].value is None
    browser._w["compare"].click()
    assert "evaluate one dataset twice" in browser._w["message"].value
    assert "color:#c62828" not in browser._w["message"].value
    browser._w["before"].value = ids["v2"].id
    assert browser._w["after"].value == ids["v1"].id
    with pytest.raises(GiskardValidationError, match="different datasets"):
        browser.compare(ids["v1"].id, lone.id)  # from code, the Hub's own error
    v3 = hub.evaluations.create_local(fixed_bot, ids["v1"].dataset_id, name="v3", progress=False)
    browser.refresh()
    assert (browser._w["before"].value, browser._w["after"].value) == (ids["v2"].id, v3.id)
    browser._w["before"].value = ids["v1"].id  # "with" moves to the latest run after it
    assert browser._w["after"].value == v3.id
    assert [v for _, v in browser._w["after"].options] == [ids["v2"].id, v3.id]


def test_compare_pickers_empty_with_a_hint_when_no_dataset_ran_twice():
    hub = Hub(":memory:")
    project = hub.projects.create("one run")
    dataset = hub.datasets.create(project.id, name="faq")
    hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "hours?"}])
    hub.evaluations.create_local(good_bot, dataset.id, name="only", progress=False)
    browser = HubBrowser(hub)
    assert browser._w["before"].value is None and browser._w["after"].value is None
    assert "evaluate one dataset twice" in browser._w["compare_hint"].value
    browser._w["compare"].click()
    assert "evaluate one dataset twice" in browser._w["message"].value
    assert "c62828" not in browser._w["message"].value
    hub.evaluations.create_local(good_bot, dataset.id, name="again", progress=False)
    browser.refresh()
    assert browser._w["before"].value and browser._w["compare_hint"].value == ""
    hub.close()
