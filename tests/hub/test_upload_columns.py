"""Columns people already have become checks (``giskard_nb.hub.upload_columns``): the expected answer
(a judge's correctness, else the offline stand-in), keywords, forbidden keywords, a regex; what the
upload says about cases without a check; data never configures the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.upload_columns import OFFLINE_CORRECTNESS, OFFLINE_THRESHOLD


def _agent(messages):
    question = messages[-1]["content"].lower()
    if "refund" in question:
        return "You can return any item within 30 days with your receipt for a full refund."
    if "sunday" in question:
        return "We are closed on Sunday."
    return "Sorry, I can only help with returns."


def test_csv_columns_become_checks_that_decide_offline(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    path = tmp_path / "cases.csv"
    path.write_text(
        "prompt,expected_output,keyword,must_not_contain,regex,topic\n"
        "Can I get a refund?,You can return items within 30 days with your receipt.,"
        "30 DAYS|receipt,,\\b30 days\\b,returns\n"
        "Are you open on Sunday?,,,open on sunday|we are open,(?i)closed,hours\n"
        "Do you sell bikes?,,bikes,sorry,,other\n",
        encoding="utf-8",
    )
    dataset = mem_hub.datasets.upload(project.id, path, name="cases")
    first, second, third = dataset.test_cases()
    assert first.conversation == [{"role": "user", "content": "Can I get a refund?"}]
    assert [(c.identifier, c.params.get("name")) for c in first.checks] == [
        ("semantic_similarity", OFFLINE_CORRECTNESS),
        ("string_match", "keyword"),
        ("string_match", "keyword"),
        ("regex_matching", "regex"),
    ]
    assert first.checks[0].params["threshold"] == OFFLINE_THRESHOLD
    assert first.checks[0].params["embedding_model"] == "offline"
    assert [c.params.get("keyword") for c in first.checks[1:3]] == ["30 DAYS", "receipt"]
    assert first.metadata == {"topic": "returns"}
    assert [c.identifier for c in second.checks] == ["not", "not", "regex_matching"]
    assert [c.identifier for c in third.checks] == ["string_match", "not"]
    summary = dataset.upload_summary
    assert (summary.test_cases, summary.without_checks, summary.offline_correctness) == (3, 0, 1)
    assert "offline stand-in for correctness" in repr(dataset)

    evaluation = mem_hub.evaluations.create_local(_agent, dataset.id, progress=False)
    results = evaluation.results()
    assert [r.status for r in results] == ["pass", "pass", "fail"]
    # the keyword is case-insensitive; the reason names the forbidden keyword that was found
    third_reasons = [c.message for c in results[2].checks if c.status == "fail"]
    assert results[2].reason.startswith("keyword: The text does not contain the keyword 'bikes'")
    assert any("contains the keyword 'sorry'" in m for m in third_reasons)


def test_jsonl_lists_answer_as_reference_and_a_judge_at_upload(
    mem_hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = mem_hub.projects.create("p")
    path = tmp_path / "cases.jsonl"
    rows = [
        {
            "question": "Refund?",
            "answer": "Within 30 days.",
            "must_contain": ["30", "days|receipt"],
        },
        {"input": "Hours?", "expected": "9 to 7", "regex": ["(?i)monday", "a|b"]},
        {"query": "Q", "reference": "R", "answer": "A recorded reply"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    monkeypatch.setenv("GISKARD_NB_MODEL", "openai/gpt-4o-mini")  # a judge: correctness
    refund, hours, both = mem_hub.datasets.upload(project.id, path, name="d").test_cases()
    assert refund.demo_output.content == "Within 30 days."  # the answer is also the example reply
    assert [(c.identifier, c.params) for c in refund.checks] == [
        ("correctness", {"reference": "Within 30 days."}),
        ("string_match", {"name": "must_contain", "keyword": "30", "case_sensitive": False}),
        ("string_match", {"name": "must_contain", "keyword": "days", "case_sensitive": False}),
        ("string_match", {"name": "must_contain", "keyword": "receipt", "case_sensitive": False}),
    ]
    # a regex is never split on "|" (alternation); a list gives several patterns
    assert [c.params["pattern"] for c in hours.checks[1:]] == ["(?i)monday", "a|b"]
    assert hours.checks[0].params == {"reference": "9 to 7"}
    # reference comes before answer; the answer stays the demo output
    assert both.checks[0].params == {"reference": "R"}
    assert both.demo_output.content == "A recorded reply"


def test_bad_column_values_are_rejected_naming_line_and_field(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    path = tmp_path / "bad.jsonl"
    rows = [
        {"question": "a", "keyword": 3},
        {"question": "b", "must_not_contain": " | "},
        {"question": "c", "expected_output": ""},
        {"question": "d", "regex": "(unclosed"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(GiskardValidationError) as info:
        mem_hub.datasets.upload(project.id, path, name="bad")
    text = str(info.value)
    assert "4 bad items" in text
    assert "line 1, field 'keyword': must be a string or a list of strings" in text
    assert "line 2, field 'must_not_contain': is empty" in text
    assert "line 3, field 'expected_output'" in text
    assert "line 4, field 'checks[0]'" in text
    assert mem_hub.datasets.list() == []


def test_cases_without_a_check_are_counted_with_the_fix(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    path = tmp_path / "plain.csv"
    path.write_text("question,tags\nHello?,a\nHi?,b\n", encoding="utf-8")
    dataset = mem_hub.datasets.upload(project.id, path, name="plain")
    summary = dataset.upload_summary
    assert (summary.test_cases, summary.without_checks) == (2, 2)
    assert "2 with no check" in str(summary) and "add a column expected_output" in str(summary)
    assert "add a column expected_output" in repr(dataset)
    again = mem_hub.datasets.retrieve(dataset.id)
    assert again.upload_summary is None and "uploaded" not in repr(again)
    assert mem_hub.datasets.summary(dataset.id) == summary


def test_data_never_configures_the_judge(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    item = {
        "question": "q",
        "expected_output": "e",
        "api_base": "http://attacker.example",
        "generator": {"model": "openai/gpt-4o", "api_base": "http://attacker.example"},
    }
    (case,) = mem_hub.datasets.upload(project.id, [item], name="d").test_cases()
    # unknown columns are metadata, never check params: the stand-in uses the offline model
    assert set(case.metadata) == {"api_base", "generator"}
    assert case.checks[0].params["embedding_model"] == "offline"
    item = {
        "question": "q",
        "checks": [
            {
                "identifier": "correctness",
                "params": {
                    "reference": "e",
                    "generator": {"model": "x/y", "api_base": "http://attacker.example"},
                },
            }
        ],
    }
    with pytest.raises(GiskardValidationError, match="cannot configure endpoints"):
        mem_hub.datasets.upload(project.id, [item], name="d2")
