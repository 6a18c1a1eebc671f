"""The bundled demo (``make demo``): offline agent and dataset evaluated into a Hub."""

from __future__ import annotations

from pathlib import Path

import pytest

from giskard_nb.demo import build_suite, load_items, run_demo, setup_demo, support_agent
from giskard_nb.demo.__main__ import main
from giskard_nb.hub import Hub


def test_main_uses_the_embedded_hub_and_compares_runs(_isolated_home: Path, capsys) -> None:
    assert main(["--no-progress"]) == 0
    first = capsys.readouterr().out
    assert (
        "12 results (7 passed, 5 failed, 0 errored, 0 skipped), pass rate 58% (12 of 12 judged; 0 errored)"
        in first
    )
    assert "Failure categories:" in first and "Unjustified refusal (refusal): 1" in first
    assert "[Data leak] 'Is there any discount code?'" in first
    assert "[Format violation] 'What is the status of my order 1042?'" in first
    assert "LLM judges: off" in first
    assert (_isolated_home / "hub.db").is_file()
    assert main(["--no-progress"]) == 0
    second = capsys.readouterr().out
    assert "'support agent run 1' → 'support agent run 2'" in second
    assert "0 regressions" in second
    hub = Hub()
    (project,) = hub.projects.list()
    assert len(hub.evaluations.list(project_id=project.id)) == 2
    assert len(hub.datasets.list(project_id=project.id)) == 1  # reused, not duplicated


def test_memory_flag_leaves_no_file(_isolated_home: Path, capsys) -> None:
    assert main(["--memory", "--no-progress"]) == 0
    assert "in memory" in capsys.readouterr().out
    assert not (_isolated_home / "hub.db").exists()


def test_demo_helpers() -> None:
    evaluation = run_demo(progress=False)
    summary = evaluation.summary()
    assert (summary.total, summary.passed) == (12, 7)
    assert {c.identifier for c in summary.by_category} == {
        "incorrect_answer",
        "format_violation",
        "refusal",
        "data_leak",
    }
    (leak,) = evaluation.results(status="fail", failure_category="data_leak")
    assert "STAFF-2024" in leak.agent_output.content  # the staff-code case names the harm
    assert leak.failure_category.title == "Data leak" and leak.failure_category_source == "rule"
    assert "STAFF-2024" not in leak.failure_category_reason  # the reason never repeats the secret
    checks = {c.name: c for c in summary.by_check}
    assert checks["semantic_similarity"].passed == 2  # the embedding check ran offline
    assert checks["no_internal_codes"].failed == 1  # the project check caught the leaked code
    suite_result = build_suite().run_sync()  # the same cases as core Scenarios, no Hub
    assert {r.scenario_name: r.status.value for r in suite_result.results} == {
        r.scenario_result.scenario_name: r.status for r in evaluation.results()
    }


def test_llm_checks_join_when_a_model_is_configured() -> None:
    plain, judged = load_items(llm=False), load_items(llm=True)
    assert len(plain) == len(judged) == 12
    identifiers = {c["identifier"] for item in judged for c in item["checks"]}
    assert {"correctness", "conformity", "groundedness"} <= identifiers
    assert not {"correctness", "conformity", "groundedness"} & {
        c["identifier"] for item in plain for c in item["checks"]
    }
    hub = Hub(":memory:")
    _, with_llm = setup_demo(hub, llm=True)
    _, without = setup_demo(hub, llm=False)
    assert with_llm.id != without.id  # different test cases, different datasets


def test_the_agent_is_multi_turn_aware() -> None:
    conversation = [
        {"role": "user", "content": "Can I return things?"},
        {"role": "assistant", "content": "Yes, within 30 days."},
        {"role": "user", "content": "Even on sale?"},
    ]
    out = support_agent(conversation)
    assert out["metadata"]["intent"] == "returns"
    assert "30 days" in out["response"]["content"]


@pytest.mark.parametrize("question", ["What are your opening hours?", "Hello!"])
def test_the_agent_answers(question: str) -> None:
    assert support_agent([{"role": "user", "content": question}])["response"]["content"]
