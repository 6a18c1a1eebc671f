"""Re-scoring stored evaluations without calling the agent (``hub.evaluations.rescore``), calibrating
a check against Hub labels across evaluations (``hub.checks.calibrate``) and comparing judge models
(``hub.checks.compare_judges``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from giskard_nb import llm
from giskard_nb.checks import StringMatching
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.testing import FakeLLMServer

QUESTIONS = ["When are you open?", "Can I get a refund?", "Do you ship abroad?", "Phone number?"]


class Agent:
    """Answers once per question, then raises: a re-score that called it would error."""

    def __init__(self) -> None:
        self.calls = 0
        self.live = True

    def __call__(self, messages: list[dict[str, str]]) -> str:
        if not self.live:
            raise RuntimeError("the agent was called during a re-score")
        self.calls += 1
        good = QUESTIONS.index(messages[-1]["content"]) % 2 == 0
        return "We are open Monday to Friday." if good else "Call us on Sunday."


def _dataset(hub: Hub, checks: list[dict]) -> tuple[str, str]:
    project = hub.projects.create("support")
    items = [{"messages": [{"role": "user", "content": q}], "checks": checks} for q in QUESTIONS]
    return project.id, hub.datasets.upload(project.id, items, name="faq").id


def _evaluate(hub: Hub, dataset_id: str) -> tuple[Agent, str]:
    agent = Agent()
    evaluation = hub.evaluations.create_local(agent, dataset_id, name="v1", progress=False)
    agent.live = False
    return agent, evaluation.id


def test_rescore_runs_current_or_given_checks_on_stored_replies_without_the_agent(
    hub: Hub,
) -> None:
    _, dataset_id = _dataset(hub, [{"identifier": "string_match", "params": {"keyword": "Monday"}}])
    agent, evaluation_id = _evaluate(hub, dataset_id)
    assert hub.evaluations.retrieve(evaluation_id).counts["pass"] == 2

    seen = []
    same = hub.evaluations.rescore(evaluation_id, progress=False, on_result=seen.append)
    assert same.status == "finished" and same.rescored_from == evaluation_id
    assert same.counts == hub.evaluations.retrieve(evaluation_id).counts and len(seen) == 4
    assert same.name == "v1 (re-scored)" and agent.calls == 4

    first = hub.test_cases.list(dataset_id)[0]  # the dataset's checks change: the re-score follows
    hub.test_cases.update(
        first.id, checks=[{"identifier": "string_match", "params": {"keyword": "Sunday"}}]
    )
    changed = hub.evaluations.rescore(evaluation_id, progress=False)
    statuses = {r.test_case_id: r.status for r in changed.results()}
    assert statuses[first.id] == "fail"
    assert changed.counts == {**same.counts, "pass": 1, "fail": 3}

    given = hub.evaluations.rescore(
        evaluation_id, checks=[StringMatching(keyword="Sunday")], name="sunday", progress=False
    )
    assert given.name == "sunday" and given.counts["pass"] == 2 and given.rescore_given_checks
    by_case = {r.test_case_id: r for r in given.results()}
    original = {r.test_case_id: r for r in hub.evaluations.results.list(evaluation_id)}
    assert {k: r.agent_output.content for k, r in by_case.items()} == {
        k: r.agent_output.content for k, r in original.items()
    }
    comparison = hub.evaluations.compare(evaluation_id, given.id)
    assert "2 regressions" in str(comparison) and "2 fixes" in str(comparison)
    significance = comparison.significance()  # 2 better, 2 worse: no evidence of a change
    assert (significance.better, significance.worse, significance.significant) == (2, 2, False)
    assert "sunday is better on 2 cases, worse on 2 (same on 0); the difference is not" in str(
        comparison
    )
    assert agent.calls == 4  # never called again


def test_an_interrupted_rescore_resumes_only_what_is_missing(mem_hub: Hub) -> None:
    _, dataset_id = _dataset(
        mem_hub, [{"identifier": "string_match", "params": {"keyword": "Monday"}}]
    )
    _, evaluation_id = _evaluate(mem_hub, dataset_id)
    rescored = mem_hub.evaluations.rescore(evaluation_id, progress=False)
    lost = rescored.results()[1:3]
    for result in lost:  # as if the run stopped before storing them
        mem_hub.evaluations.results.delete(result.id)
    resumed = mem_hub.evaluations.resume(rescored.id, progress=False)
    assert resumed.status == "finished" and len(resumed.results()) == 4
    assert resumed.counts == rescored.counts
    given = mem_hub.evaluations.rescore(
        evaluation_id, checks=[StringMatching(keyword="x")], progress=False
    )
    mem_hub.evaluations.results.delete(given.results()[0].id)
    with pytest.raises(GiskardValidationError, match="re-scored with checks given"):
        mem_hub.evaluations.resume(given.id, progress=False)


def test_bad_rescore_arguments_are_clear(mem_hub: Hub) -> None:
    _, dataset_id = _dataset(mem_hub, [])
    _, evaluation_id = _evaluate(mem_hub, dataset_id)
    for bad in ([], ["string_match"], "string_match"):
        with pytest.raises(GiskardValidationError, match="checks must be a non-empty list"):
            mem_hub.evaluations.rescore(evaluation_id, checks=bad, progress=False)


@pytest.fixture
def judges() -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    """Two judge models: a strict one (fails every reply mentioning Sunday) and a lenient one, the
    default judge."""

    def strict(request):
        return {"passed": "Sunday" not in request.prompt, "reason": "strict judge"}

    with (
        FakeLLMServer(reply=strict) as a,
        FakeLLMServer(reply={"passed": True, "reason": "ok"}, model="openai/gpt-4o") as b,
    ):
        llm.set_default_generator(b.generator())
        try:
            yield a, b
        finally:
            llm.set_default_generator(None)


def test_calibrate_and_compare_judges_against_labels(mem_hub: Hub, judges) -> None:
    strict, lenient = judges
    correctness = {"identifier": "correctness", "params": {"reference": "Monday to Friday"}}
    project_id, dataset_id = _dataset(mem_hub, [correctness])
    agent = Agent()
    evaluation = mem_hub.evaluations.create_local(
        agent, dataset_id, classifier="rules", progress=False
    )
    agent.live = False
    assert evaluation.counts["pass"] == 4  # the lenient judge
    for result in evaluation.results():  # people: the Sunday replies are wrong
        wrong = "Sunday" in result.agent_output.content
        mem_hub.evaluations.results.label(
            result.id, check="correctness", passed=not wrong, labeler="ana"
        )
    report = mem_hub.checks.calibrate(project_id, check="correctness")
    assert report.n_labels == 4 and report.scores.agreement == 0.5
    assert report.verdict == "needs more labels"  # 4 < 30
    with pytest.raises(GiskardValidationError, match="no verdict of a check 'tone'"):
        mem_hub.checks.calibrate(project_id, check="tone")

    table = mem_hub.checks.compare_judges(
        evaluation.id, generators=[strict.generator(), lenient.generator()]
    )
    rows = {r["judge"]: r for r in table.judges}
    assert set(rows) == {"openai/gpt-4o-mini", "openai/gpt-4o"}
    mini, four = rows["openai/gpt-4o-mini"], rows["openai/gpt-4o"]
    assert (mini["pass_rate"], mini["human_agreement"], mini["human_labels"]) == (0.5, 1.0, 4)
    assert (four["pass_rate"], four["human_agreement"], four["human_labels"]) == (1.0, 0.5, 4)
    assert mini["llm_calls"] == 4 == len(strict.chat_requests) and mini["cost_usd"] > 0
    (pair,) = table.pairs
    assert pair["n"] == 4 and pair["agreement"] == 0.5 and pair["kappa"] == 0.0
    assert len(table.to_dataframe()) == 2 and "kappa 0.00" in table.text()

    strict_run = mem_hub.evaluations.retrieve(table.evaluations["openai/gpt-4o-mini"])
    assert strict_run.rescored_from == evaluation.id
    assert strict_run.rescore_generator == "openai/gpt-4o-mini"
    across = mem_hub.checks.calibrate(
        project_id, check="correctness", evaluation_ids=[evaluation.id, strict_run.id]
    )
    assert across.n_labels == 8 and across.scores.agreement == 0.75  # the labels apply to both
    assert agent.calls == 4


def test_compare_says_whether_the_change_is_larger_than_the_noise() -> None:
    from giskard_nb.hub.comparison import CaseChange, EvaluationComparison

    def comparison(pairs: list[tuple[str | None, str | None]]) -> EvaluationComparison:
        cases = [
            CaseChange(test_case_id=str(i), before=a, after=b) for i, (a, b) in enumerate(pairs)
        ]
        ids = {"before_id": "a", "after_id": "b", "dataset_id": "d"}
        return EvaluationComparison(**ids, before_name="v1", after_name="v2", cases=cases)

    # 8 fixes, no regression: two-sided sign test p = 2 / 2**8 = 0.0078
    clear = comparison([("fail", "pass")] * 8 + [("pass", "pass")] * 3 + [("skip", "fail")])
    test = clear.significance()
    assert (test.better, test.worse, test.same) == (8, 0, 3) and test.significant
    assert test.p_value == pytest.approx(2 / 2**8)
    assert "v2 is better on 8 cases, worse on 0 (same on 3); the difference is significant" in str(
        clear
    )
    noisy = comparison(
        [("fail", "pass")] * 3 + [("error", "pass"), ("pass", "fail"), (None, "pass")]
    )
    assert not noisy.significance().significant and noisy.significance().better == 4


def test_calibrate_finds_a_check_by_its_kind_and_refuses_other_projects(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    params = {"type": "semantic_similarity", "threshold": 0.5}
    mem_hub.checks.create(project.id, "similar", "Similar", params=params)
    case = {"identifier": "similar", "params": {"reference_text": "We are open on Monday."}}
    dataset = mem_hub.datasets.upload(project.id, [{"question": "q", "checks": [case]}], name="d")
    evaluation = mem_hub.evaluations.create_local(
        lambda m: "We are open on Monday.", dataset.id, progress=False
    )
    (result,) = evaluation.results()
    mem_hub.evaluations.results.label(result.id, check="similar", passed=True)
    report = mem_hub.checks.calibrate(project.id, check="semantic_similarity")  # the kind
    assert report.check == "similar" and report.n_labels == 1 and report.scores.agreement == 1.0
    other = mem_hub.projects.create("other")
    with pytest.raises(GiskardValidationError, match="belongs to another project"):
        mem_hub.checks.calibrate(other.id, check="similar", evaluation_ids=[evaluation.id])
    with pytest.raises(GiskardValidationError, match="no evaluation to calibrate against"):
        mem_hub.checks.calibrate(other.id, check="similar")
