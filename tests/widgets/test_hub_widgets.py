"""The widgets on a Hub: evaluations run and stored from the EvaluationRunner, results relabelled
into the Hub from the ResultsViewer, builder and playground scenarios saved as test cases."""

from __future__ import annotations

import asyncio

import pytest

from giskard_nb import (
    EvaluationRunner,
    GiskardValidationError,
    Hub,
    Playground,
    ResultsViewer,
    Scenario,
    ScenarioBuilder,
    from_fn,
)
from giskard_nb.widgets import save_to_hub, scenario_to_test_case


def faq_bot(messages):
    question = messages[-1]["content"]
    return {"hours?": "Open Monday to Friday", "refund?": "Within 30 days"}.get(
        question, f"Sorry: <b>{question}</b>"
    )


@pytest.fixture
def hub_project():
    hub = Hub(":memory:")
    project = hub.projects.create(
        "support",
        failure_categories=[
            {"identifier": "off_topic", "title": "Off topic"},
            {"identifier": "wrong_fact", "title": "Wrong fact"},
        ],
    )
    dataset = hub.datasets.create(project.id, name="faq")
    for question, keyword in (("hours?", "Monday"), ("refund?", "30 days"), ("sunday?", "closed")):
        hub.test_cases.create(
            dataset.id,
            messages=[{"role": "user", "content": question}],
            checks=[{"identifier": "string_match", "params": {"keyword": keyword}}],
            tags=["topic:faq"],
        )
    yield hub, project, dataset
    hub.close()


async def test_runner_stores_a_hub_evaluation_with_live_counts(hub_project):
    hub, project, _dataset = hub_project
    runner = EvaluationRunner({"faq bot": faq_bot}, hub=hub, project_id=project.id)
    assert runner._w["dataset"].options == ("faq",) and "faq bot" in runner._w["agent"].options
    runner._w["run"].click()
    evaluation = await runner.job
    assert evaluation.status == "finished" and evaluation.counts["pass"] == 2
    assert hub.evaluations.retrieve(evaluation.id).local
    assert runner.counts == {"pass": 2, "fail": 1, "error": 0, "skip": 0}
    assert "2 passed" in runner._w["counters"].value and "3 / 3" in runner._w["counters"].value
    assert "pass rate 67% (3 of 3 judged; 0 errored)" in runner._w["state"].value
    viewer = runner.viewer
    assert viewer is not None and viewer.categories[:2] == ["off_topic", "wrong_fact"]
    failed = viewer.filter(status="fail")
    assert len(failed) == 1
    html = viewer.open(failed[0])
    assert "&lt;b&gt;sunday?&lt;/b&gt;" in html and "<b>sunday?" not in html
    viewer.relabel(failed[0], "wrong_fact")
    stored = hub.evaluations.results.list(evaluation.id, status="fail")[0]
    assert stored.failure_category.identifier == "wrong_fact"
    assert stored.failure_category_source == "user"


async def test_runner_repeats_each_case_on_the_hub_and_in_a_suite(hub_project):
    hub, project, _dataset = hub_project
    runner = EvaluationRunner({"faq bot": faq_bot}, hub=hub, project_id=project.id, repeats=2)
    runner._w["run"].click()
    evaluation = await runner.job
    assert evaluation.repeats == 2 and len(evaluation.results()) == 6
    assert runner.counts == {"pass": 4, "fail": 2, "error": 0, "skip": 0}
    assert "6 / 6" in runner._w["counters"].value
    names = sorted(item.name for item in runner.open_results().items)
    assert names[:2] == ["“hours?” (run 1/2)", "“hours?” (run 2/2)"]
    suite = [
        Scenario("hours").interact("hours?").check(from_fn(lambda t: "Monday" in t.last.outputs))
    ]
    core = EvaluationRunner(lambda q: "Open Monday", {"faq": suite}, repeats=3)
    core._w["run"].click()
    result = await core.job
    assert len(result.results) == 3 and [r.repeat for r in result.results] == [0, 1, 2]
    with pytest.raises(GiskardValidationError, match="repeats must be a whole number"):
        EvaluationRunner({"faq bot": faq_bot}, hub=hub, project_id=project.id, repeats=0)


async def test_runner_counts_come_from_the_run_not_from_polling(hub_project, monkeypatch):
    hub, project, _dataset = hub_project
    reports = []

    def no_polling(*args, **kwargs):
        raise AssertionError("the runner must not read the results while the run goes on")

    monkeypatch.setattr(hub.evaluations.results, "iter_raw", no_polling)
    monkeypatch.setattr(hub.evaluations.results, "list", no_polling)
    from giskard_nb.widgets.backends import HubBackend

    backend = HubBackend(hub, project.id, {"faq bot": faq_bot}, max_concurrency=2, timeout=None)
    evaluation = await backend.run("faq bot", "faq", reports.append)
    assert reports[-1] == {"pass": 2, "fail": 1, "error": 0, "skip": 0}
    assert [sum(r.values()) for r in reports] == [1, 2, 3]  # one report per stored result
    assert backend.evaluation_id == evaluation.id and backend.partial().id == evaluation.id


def test_viewer_of_a_stored_evaluation_and_refused_labels(hub_project):
    hub, _project, dataset = hub_project
    evaluation = hub.evaluations.create_local(faq_bot, dataset.id, progress=False)
    viewer = ResultsViewer(evaluation)
    assert len(viewer.items) == 3 and all(it.extra["result_id"] for it in viewer.items)
    assert viewer.filter(tag="topic:faq") == [0, 1, 2]
    index = viewer.filter(status="fail")[0]
    before = viewer.items[index].failure_category
    viewer.open(index)
    viewer._w["category"].value = "not_a_category_of_the_project"
    viewer._w["relabel"].click()  # the Hub refuses: the label stays, the reason is shown
    assert viewer.items[index].failure_category == before
    assert "not_a_category_of_the_project" in viewer._w["detail"].value


async def test_cancel_a_hub_run_keeps_it_interrupted(hub_project):
    hub, project, _dataset = hub_project
    gate = asyncio.Event()

    async def slow_bot(messages):
        if messages[-1]["content"] != "hours?":
            await gate.wait()
        return "Open Monday"

    runner = EvaluationRunner({"slow": slow_bot}, hub=hub, project_id=project.id, max_concurrency=1)
    job = runner.run()
    while runner.counts["pass"] < 1:
        await asyncio.sleep(0.02)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert runner.state == "cancelled"
    assert runner.result.status == "interrupted" and runner.counts["pass"] == 1
    assert len(hub.evaluations.results.list(runner.result.id)) == 1


def test_hub_runner_bad_input(hub_project):
    hub, _project, _ = hub_project
    with pytest.raises(GiskardValidationError, match="project_id"):
        EvaluationRunner({"b": faq_bot}, hub=hub)
    empty = hub.projects.create("empty")
    with pytest.raises(GiskardValidationError, match="at least one dataset and one agent"):
        EvaluationRunner({"b": faq_bot}, hub=hub, project_id=empty.id)


def test_builder_and_playground_save_test_cases(hub_project):
    hub, _project, dataset = hub_project
    save = save_to_hub(hub, dataset.id)
    builder = ScenarioBuilder(lambda inputs: "Open Monday", on_save=save, name="weekdays")
    builder.add_interaction("when are you open?")
    builder.add_check("string_matching", keyword="Monday")
    builder._w["tags"].value = "topic:hours"
    builder._w["save"].click()
    stored = next(tc for tc in hub.test_cases.list(dataset.id) if tc.name == "weekdays")
    assert stored.tags == ["topic:hours"] and stored.checks[0].identifier == "string_matching"
    assert stored.checks[0].params == {"keyword": "Monday"}
    pg = Playground(lambda inputs: "Open Monday", on_save=save)
    pg.send("hours?").wait(5)
    chat = pg.save("from chat")
    assert chat.demo_output.content == "Open Monday" and chat.messages[0].content == "hours?"
    evaluation = hub.evaluations.create_local(faq_bot, dataset.id, progress=False)
    assert evaluation.n_test_cases == 5  # the saved cases run like the others


def test_scenarios_that_cannot_become_test_cases_are_explained():
    with pytest.raises(GiskardValidationError, match="Python function"):
        scenario_to_test_case(Scenario("s").interact(lambda: "x"))
    with pytest.raises(GiskardValidationError, match="no interaction"):
        scenario_to_test_case(Scenario("s"))
    with pytest.raises(GiskardValidationError, match="cannot be saved as a Hub test case"):
        scenario_to_test_case(Scenario("s").interact("q").check(from_fn(lambda trace: True)))
    data = scenario_to_test_case(Scenario("s").interact("q", outputs={"a": 1}))
    assert data["messages"][1] == {"role": "assistant", "content": '{"a": 1}'}


def test_unnamed_hub_rows_are_named_from_their_question(hub_project):
    hub, _project, dataset = hub_project
    long_question = (
        "Can I <b>return</b>\n a tent that I bought\tlast summer and then used twice or more?"
    )
    hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": long_question}])
    hub.test_cases.create(
        dataset.id, name="named case", messages=[{"role": "user", "content": "x"}]
    )
    evaluation = hub.evaluations.create_local(faq_bot, dataset.id, progress=False)
    viewer = ResultsViewer(evaluation)
    names = [it.name for it in viewer.items]
    assert names[:3] == ["“hours?”", "“refund?”", "“sunday?”"]  # not "test case 1"
    assert names[3] == "“Can I <b>return</b> a tent that I bought…”"  # 8 words, one line
    assert names[4] == "named case"
    assert not any(name.startswith("test case") for name in names)
    table = viewer._w["table"].value
    assert "&lt;b&gt;return&lt;/b&gt;" in table and "<b>return</b>" not in table
    labels = [label for label, _ in viewer._w["pick"].options]
    assert labels[3].startswith("#3 SKIP · “Can I <b>return</b> a tent") and "\n" not in labels[3]
    assert viewer.filter(search="tent that") == [3]
