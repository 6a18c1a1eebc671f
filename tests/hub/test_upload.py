"""Uploading test cases from lists and .json/.jsonl files, rejecting bad files whole, exporting JSONL."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub


def _write_jsonl(path: Path, items: list) -> Path:
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    return path


GOOD = [
    {
        "messages": [{"role": "user", "content": "Opening hours?"}],
        "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}],
        "tags": ["hours"],
    },
    {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "Refunds?"},
        ],
        "demo_output": {"role": "assistant", "content": "Within 30 days."},
        "checks": [{"identifier": "regex_matching", "params": {"pattern": "30 days"}}],
        "metadata": {"source": "prod-log-17"},
        "status": "draft",
        "name": "refund follow-up",
    },
]


def test_upload_jsonl_creates_a_dataset_and_exports_back(hub: Hub, tmp_path: Path) -> None:
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(
        project.id, _write_jsonl(tmp_path / "cases.jsonl", GOOD), name="faq"
    )
    cases = hub.test_cases.list(dataset.id)
    assert [c.position for c in cases] == [0, 1]
    assert cases[1].name == "refund follow-up" and cases[1].status == "draft"
    assert cases[1].demo_output.content == "Within 30 days."
    assert cases[1].metadata == {"source": "prod-log-17"}

    exported = hub.datasets.export(dataset.id, tmp_path / "out" / "faq.jsonl")
    lines = Path(exported).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["messages"] for line in lines] == [g["messages"] for g in GOOD]
    again = hub.datasets.upload(project.id, exported, name="faq copy")
    copy = hub.test_cases.list(again.id)
    strip = lambda c: c.model_dump(exclude={"id", "created_at", "updated_at", "dataset_id"})  # noqa: E731
    assert [strip(c) for c in copy] == [strip(c) for c in cases]
    assert hub.datasets.export(again.id) == hub.datasets.export(dataset.id)


def test_upload_json_list_file_object_and_append(hub: Hub, tmp_path: Path) -> None:
    project = hub.projects.create("p")
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    dataset = hub.datasets.upload(project.id, path, name="from json")
    hub.datasets.upload(data=GOOD[:1], dataset_id=dataset.id)  # appended
    handle = io.StringIO("\n".join(json.dumps(i) for i in GOOD))
    handle.name = "stream.jsonl"
    hub.datasets.upload(data=handle, dataset_id=dataset.id)
    assert [c.position for c in hub.test_cases.list(dataset.id)] == [0, 1, 2, 3, 4]


def test_plain_chat_logs_qa_rows_and_legacy_keys(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    items = [
        {
            "messages": [{"role": "user", "content": "Q1"}, {"role": "assistant", "content": "A1"}],
            "source": "x.jsonl",
        },
        {
            "chat_history": [
                {"inputs": {"question": "Q1"}, "outputs": {"answer": "A1"}},
                {"inputs": {"question": "Q2"}, "outputs": {"answer": "A2", "context": "ctx"}},
            ]
        },
        {
            "question": "Which tent?",
            "answer": "The X4.",
            "context": "catalogue",
            "ground_truth": "X4",
        },
        {"messages": [{"role": "user", "content": "Q"}], "expected_output": "exact"},
    ]
    dataset = mem_hub.datasets.upload(project.id, items, name="d")
    first, chat, qa, legacy = mem_hub.test_cases.list(dataset.id)
    # no judge configured: the expected output gets the offline stand-in for correctness
    assert legacy.checks[0].identifier == "semantic_similarity"
    assert legacy.checks[0].params["name"] == "correctness_offline"
    assert legacy.checks[0].params["reference_text"] == "exact"
    assert first.metadata == {"source": "x.jsonl"} and first.demo_output.content == "A1"
    assert [m.content for m in chat.messages] == ["Q1", "A1", "Q2"]
    assert chat.demo_output.content == "A2"
    assert qa.messages[0].content == "Which tent?" and qa.demo_output.content == "The X4."
    assert qa.metadata == {"context": "catalogue", "ground_truth": "X4"}


def test_a_bad_file_is_rejected_whole_naming_line_and_field(hub: Hub, tmp_path: Path) -> None:
    project = hub.projects.create("p")
    bad = tmp_path / "bad.jsonl"
    lines = [
        json.dumps(GOOD[0]),
        "",
        json.dumps({"messages": [{"role": "bot", "content": "x"}]}),
        json.dumps(
            {"messages": [{"role": "user", "content": "x"}], "checks": [{"identifier": "nope"}]}
        ),
        json.dumps({"title": "no messages here"}),
        "{not json",
    ]
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(GiskardValidationError) as info:
        hub.datasets.upload(project.id, bad, name="bad")
    text = str(info.value)
    assert "line 6: not valid JSON" in text  # JSON errors are reported first, before anything else
    assert "nothing was imported" in text
    lines.pop()
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(GiskardValidationError) as info:
        hub.datasets.upload(project.id, bad, name="bad")
    text = str(info.value)
    assert "3 bad items" in text and "nothing was imported" in text
    assert "line 3, field 'messages.0.role'" in text
    assert "line 4, field 'checks[0]'" in text and "unknown check identifier 'nope'" in text
    assert "line 5, field 'messages'" in text
    assert hub.datasets.list() == [] and hub.test_cases.list() == []
    assert [e.entity_type for e in hub.audit.search()] == ["project"]


def test_bad_upload_calls(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    with pytest.raises(GiskardValidationError, match="no file at"):
        mem_hub.datasets.upload(project.id, tmp_path / "missing.jsonl", name="d")
    with pytest.raises(GiskardValidationError, match="dataset_id= .* or project_id and name="):
        mem_hub.datasets.upload(project.id, GOOD)
    with pytest.raises(GiskardValidationError, match="item 1: must be a JSON object"):
        mem_hub.datasets.upload(project.id, ["just a string"], name="d")
    with pytest.raises(GiskardValidationError, match="holds no test case"):
        mem_hub.datasets.upload(project.id, [], name="d")
    (tmp_path / "x.json").write_text('{"a": [1,', encoding="utf-8")
    with pytest.raises(GiskardValidationError, match="line 1: not valid JSON"):
        mem_hub.datasets.upload(project.id, tmp_path / "x.json", name="d")


def test_shared_promptflow_files_upload(mem_hub: Hub, shared_data: Path) -> None:
    folder = shared_data / "conversations" / "promptflow"
    project = mem_hub.projects.create("p")
    chats = mem_hub.datasets.upload(project.id, folder / "multi_turn_chat.jsonl", name="chats")
    cases = mem_hub.test_cases.list(chats.id)
    assert len(cases) == 6
    assert any(len(c.messages) > 1 for c in cases)  # multi-turn conversations
    assert all(c.messages[-1].role == "user" for c in cases)
    qa = mem_hub.datasets.upload(project.id, folder / "qa_with_context.jsonl", name="qa")
    qa_cases = mem_hub.test_cases.list(qa.id)
    assert len(qa_cases) == 26
    assert all("context" in c.metadata for c in qa_cases)
    # evaluate the imported multi-turn chats with a local agent
    evaluation = mem_hub.evaluations.create_local(
        lambda messages: f"{len(messages)} messages received",
        chats.id,
        progress=False,
    )
    results = evaluation.results()
    # chat logs carry no checks: SKIP "no checks", never PASS
    assert len(results) == 6 and {r.status for r in results} == {"skip"}
    assert {r.agent_output.content for r in results} == {
        f"{len(c.messages)} messages received" for c in cases
    }
