"""Failure categories: the documented rule, project overrides, and the LLM classifier (against the
fake OpenAI-compatible server shipped in giskard_nb.testing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from giskard_nb.errors import ConfigError
from giskard_nb.hub import (
    DEFAULT_FAILURE_CATEGORIES,
    CheckOutcome,
    FailureCategory,
    FailureClassifier,
    Hub,
    classify_by_rules,
)

from .conftest import rule_case

llm = pytest.importorskip(
    "giskard_nb.llm", reason="the LLM layer (giskard_nb.llm) is not installed"
)
testing = pytest.importorskip("giskard_nb.testing", reason="giskard_nb.testing is not installed")


def failed(kind: str, message: str = "failed", **kw) -> CheckOutcome:
    return CheckOutcome(name=f"my_{kind}", kind=kind, status="fail", message=message, **kw)


@pytest.mark.parametrize(
    ("checks", "reply", "expected"),
    [
        ([failed("toxicity")], "x", "harmful_content"),
        ([failed("llm_judge", "The reply contains offensive language")], "x", "harmful_content"),
        ([failed("string_matching")], "I'm sorry, but I can't help with that.", "refusal"),
        ([failed("correctness")], "I cannot answer questions about pricing.", "refusal"),
        ([failed("groundedness")], "The X4 tent costs $10.", "hallucination"),
        ([failed("json_valid")], "{not json", "format_violation"),
        ([failed("conformity", "The answer is not in bullet points")], "x", "format_violation"),
        ([failed("conformity", "The answer promises a discount")], "x", "policy_violation"),
        ([failed("answer_relevance")], "x", "off_topic"),
        ([failed("semantic_similarity", score=0.1, threshold=0.8)], "x", "off_topic"),
        ([failed("semantic_similarity", score=0.6, threshold=0.8)], "x", "incorrect_answer"),
        ([failed("correctness")], "Paris is in Italy.", "incorrect_answer"),
        ([failed("regex_matching"), failed("equals")], "x", "incorrect_answer"),
    ],
)
def test_the_rule(checks: list[CheckOutcome], reply: str, expected: str) -> None:
    verdict = classify_by_rules(DEFAULT_FAILURE_CATEGORIES, checks, reply)
    assert verdict.category.identifier == expected
    assert verdict.source == "rule" and verdict.reason


def test_the_rule_falls_back_to_the_projects_categories() -> None:
    own = [
        FailureCategory(identifier="wrong_price", title="Wrong price"),
        FailureCategory(identifier="other", title="Other"),
    ]
    verdict = classify_by_rules(own, [failed("groundedness")], "x")
    assert verdict.category.identifier == "other"
    assert "no 'hallucination' category" in verdict.reason
    only = [FailureCategory(identifier="wrong_price", title="Wrong price")]
    assert classify_by_rules(only, [failed("json_valid")], "x").category.identifier == "wrong_price"
    assert classify_by_rules([], [failed("json_valid")], "x").category is None


def test_project_categories_are_used_in_evaluations(mem_hub: Hub) -> None:
    project = mem_hub.projects.create(
        "p", failure_categories=[{"identifier": "bad_answer", "title": "Bad answer"}]
    )
    dataset = mem_hub.datasets.upload(project.id, [rule_case("q", "yes")], name="d")
    evaluation = mem_hub.evaluations.create_local(lambda m: "no", dataset.id, progress=False)
    assert evaluation.failure_categories == {"bad_answer": 1}


@pytest.fixture
def judge() -> Iterator[object]:
    def reply(request):
        if "triage the failures" in request.prompt:
            if "mountains" in request.prompt:
                return {"identifier": "not_a_category", "reason": "?"}
            return {"identifier": "hallucination", "reason": "The reply invents an opening day."}
        return {"passed": False, "reason": "The answer contradicts the reference."}

    with testing.FakeLLMServer(reply=reply) as server:
        llm.set_default_generator(server.generator())
        try:
            yield server
        finally:
            llm.set_default_generator(None)


def test_llm_classifier_labels_failures(mem_hub: Hub, judge) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [rule_case("When are you open?", "Monday"), rule_case("Any mountains?", "Alps")],
        name="d",
    )
    evaluation = mem_hub.evaluations.create_local(
        lambda m: "We are open on Sundays.", dataset.id, progress=False
    )
    by_question = {r.messages[-1].content: r for r in evaluation.results()}
    labelled = by_question["When are you open?"]
    assert labelled.failure_category.identifier == "hallucination"
    assert labelled.failure_category_source == "llm"
    assert labelled.failure_category_reason == "The reply invents an opening day."
    assert labelled.usage.llm_calls == 1 and labelled.usage.total_tokens > 0
    invented = by_question["Any mountains?"]  # the judge invents a category, also after the repair
    assert invented.failure_category is None and invented.failure_category_source == "llm"
    assert invented.failure_category_reason.startswith("no category: the LLM classifier's reply")
    assert "not_a_category" in invented.failure_category_reason
    assert invented.usage.llm_calls == 2  # the first reply and the repair request
    prompts = [r.prompt for r in judge.chat_requests]
    assert any("We are open on Sundays." in p and "hallucination" in p for p in prompts)
    rules_only = mem_hub.evaluations.create_local(
        lambda m: "x", dataset.id, classifier="rules", progress=False
    )
    assert {r.failure_category_source for r in rules_only.results()} == {"rule"}


async def test_classifier_modes_without_a_model() -> None:
    assert FailureClassifier.create(DEFAULT_FAILURE_CATEGORIES, "auto").mode == "rules"
    with pytest.raises(ConfigError):
        FailureClassifier.create(DEFAULT_FAILURE_CATEGORIES, "llm")
    with pytest.raises(ConfigError, match="'auto', 'rules' or 'llm'"):
        FailureClassifier.create(DEFAULT_FAILURE_CATEGORIES, "magic")  # type: ignore[arg-type]


def test_llm_checks_run_in_evaluations(mem_hub: Hub, judge) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {
                "messages": [{"role": "user", "content": "When are you open?"}],
                "checks": [
                    {"identifier": "correctness", "params": {"reference": "Monday to Friday"}},
                    {"identifier": "conformity", "params": {"rules": ["Be polite", "Be brief"]}},
                ],
            }
        ],
        name="d",
    )
    evaluation = mem_hub.evaluations.create_local(
        lambda m: "We are open on Sundays.", dataset.id, progress=False
    )
    (result,) = evaluation.results()
    assert result.status == "fail"
    assert result.checks[0].kind == "correctness" and result.checks[0].status == "fail"
    assert "contradicts the reference" in result.checks[0].message
    assert result.usage.llm_calls >= 2  # the judge calls are counted (checks + classifier)
    summary = evaluation.summary()
    assert summary.usage.llm_calls == result.usage.llm_calls


def test_semantic_similarity_runs_offline(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {
                "messages": [{"role": "user", "content": "When are you open?"}],
                "checks": [
                    {
                        "identifier": "semantic_similarity",
                        "params": {
                            "reference_text": "We are open from Monday to Friday.",
                            "threshold": 0.5,
                        },
                    }
                ],
            }
        ],
        name="d",
    )
    good = mem_hub.evaluations.create_local(
        lambda m: "We are open Monday to Friday.", dataset.id, progress=False
    )
    ((check,),) = [r.checks for r in good.results()]
    assert check.status == "pass" and check.score is not None and check.threshold == 0.5
    bad = mem_hub.evaluations.create_local(
        lambda m: "Bananas are yellow fruit rich in potassium.", dataset.id, progress=False
    )
    (result,) = bad.results()
    assert result.status == "fail" and result.checks[0].score < 0.5
    frame = bad.to_dataframe("checks")
    assert frame["score"].iloc[0] == pytest.approx(result.checks[0].score)
