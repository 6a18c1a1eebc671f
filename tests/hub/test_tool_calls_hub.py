"""Tool calls in the Hub: a local or remote agent's calls are stored with its result (the trajectory,
``hub_evaluation_results.tool_calls``) and read back by the models, ``iter_raw`` and the DataFrames
(``level="tool_calls"``); datasets keep OpenAI conversations with tool messages and expected calls;
a check kind registered lazily (``core.registry.LAZY_KINDS``) runs as a test case's identifier with no
Hub change; a file of table layout 5 opens with an empty trajectory."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from giskard_nb.core.registry import LAZY_KINDS
from giskard_nb.errors import GiskardValidationError
from giskard_nb.frames import write_frame
from giskard_nb.frames.tool_calls import CALL_COLUMNS, HUB_CASE_COLUMNS
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.migrate import TABLE_LAYOUT

CALLS = [
    {"name": "get_weather", "arguments": {"city": "Paris"}, "result": "18°C, sunny"},
    {"name": "send_mail", "arguments": {"to": "=HYPERLINK(1)"}, "error": "<b>smtp down</b>"},
]

#: An OpenAI chat conversation with tool use: the assistant calls a tool, the tool answers.
CONVERSATION = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"},
    {"role": "assistant", "content": "It is 18°C and sunny."},
    {"role": "user", "content": "And mail it to me"},
]

_KIND_MODULE = '''
from giskard_nb.core.check import Check
from giskard_nb.core.result import CheckResult


@Check.register("test_hub_trajectory")
class HubTrajectory(Check):
    """Compares the calls' names with trace.annotations["expected_tool_calls"]."""

    def run(self, trace):
        made = [c.name for c in trace.tool_calls]
        expected = [c["name"] for c in trace.annotations.get("expected_tool_calls", [])]
        details = {
            "matched": [c for c in expected if c in made],
            "missing": [{"name": c, "arguments": {}} for c in expected if c not in made],
            "extra": [c.model_dump(mode="json") for c in trace.tool_calls if c.name not in expected],
        }
        if details["missing"] or details["extra"]:
            return CheckResult.failure("the trajectory differs", details=details)
        return CheckResult.success("the expected calls were made", details=details)
'''


@pytest.fixture
def lazy_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A check kind the Hub knows only through LAZY_KINDS (as the tool checks' kinds are)."""
    (tmp_path / "gnb_test_hub_trajectory.py").write_text(textwrap.dedent(_KIND_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(LAZY_KINDS["check"], "test_hub_trajectory", "gnb_test_hub_trajectory")
    return "test_hub_trajectory"


def _tool_agent(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"text": "I checked and mailed it.", "tool_calls": CALLS}


def _evaluation(hub: Hub, checks: list[dict[str, Any]], **case: Any) -> Any:
    project = hub.projects.create("p")
    item = {"messages": "Weather in Paris, then mail it", "checks": checks, **case}
    dataset = hub.datasets.upload(project.id, [item], name="d")
    return hub.evaluations.create_local(_tool_agent, dataset.id, progress=False)


def test_a_local_agent_s_tool_calls_are_stored_and_read_back(hub: Hub, lazy_kind: str) -> None:
    equals = {
        "identifier": "equals",
        "params": {"target_key": "trace.last.tool_calls[0].name", "expected_value": "get_weather"},
    }
    evaluation = _evaluation(
        hub,
        [equals, {"identifier": lazy_kind}],
        expected_tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}],
    )
    (result,) = evaluation.results()
    assert [c.name for c in result.tool_calls] == ["get_weather", "send_mail"]
    assert [c.status for c in result.tool_calls] == ["ok", "error"]
    assert result.tool_calls[0].result == "18°C, sunny" and result.tool_calls[1].turn == 0
    assert [c.status for c in result.checks] == ["pass", "fail"]  # the lazy kind ran
    assert result.checks[1].details["extra"][0]["name"] == "send_mail"

    (raw,) = hub.evaluations.results.iter_raw(evaluation.id)
    assert [c["name"] for c in raw["tool_calls"]] == ["get_weather", "send_mail"]
    stored = json.loads(evaluation.to_dataframe()["tool_calls"][0])
    assert stored[1] == {**CALLS[1], "status": "error", "turn": 0}

    frame = evaluation.to_dataframe(level="tool_calls")
    assert list(frame.columns) == [*HUB_CASE_COLUMNS, *CALL_COLUMNS]
    assert frame["name"].tolist() == ["get_weather", "send_mail"]
    assert frame["index"].tolist() == [0, 1] and frame["turn"].tolist() == [0, 0]
    assert json.loads(frame["arguments"][0]) == {"city": "Paris"}
    assert frame["status"].astype(str).tolist() == ["ok", "error"]
    assert frame["error"][1] == "<b>smtp down</b>" and frame["result"][0] == "18°C, sunny"
    assert json.loads(frame["tool_checks"][0]) == {lazy_kind: "fail"}  # equals is not a tool check
    assert (frame["result_status"] == "fail").all() and (frame["result_id"] == result.id).all()
    in_memory = evaluation.results().to_dataframe(level="tool_calls")
    assert in_memory.astype(str).equals(frame.astype(str))


def test_tool_calls_export_to_csv_with_formulas_escaped(mem_hub: Hub, tmp_path: Path) -> None:
    evaluation = _evaluation(mem_hub, [{"identifier": "string_match", "params": {"keyword": "I"}}])
    path = write_frame(evaluation.to_dataframe(level="tool_calls"), tmp_path / "calls.csv")
    text = path.read_text(encoding="utf-8")
    assert '"{""to"": ""=HYPERLINK(1)""}"' in text  # JSON text starts with {: not a formula
    frame = evaluation.to_dataframe(level="tool_calls")
    frame.loc[0, "name"] = "=cmd|' /C calc'!A0"
    assert "'=cmd" in write_frame(frame, tmp_path / "hostile.csv").read_text(encoding="utf-8")


def test_a_case_without_tool_calls_has_no_rows_and_the_level_is_checked(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [{"question": "hi"}], name="d")
    evaluation = mem_hub.evaluations.create_local(lambda m: "hello", dataset.id, progress=False)
    (result,) = evaluation.results()
    assert result.tool_calls == []
    assert evaluation.to_dataframe()["tool_calls"].tolist() == ["[]"]
    frame = evaluation.to_dataframe(level="tool_calls")
    assert frame.empty and list(frame.columns) == [*HUB_CASE_COLUMNS, *CALL_COLUMNS]
    with pytest.raises(GiskardValidationError, match="'tool_calls'"):
        mem_hub.evaluations.results.to_dataframe(evaluation.id, level="calls")  # type: ignore[arg-type]


def test_a_remote_openai_agent_s_tool_calls_are_recorded(
    mem_hub: Hub, agent_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    completion = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "lookup_order", "arguments": '{"id": 42}'},
                        }
                    ],
                }
            }
        ]
    }
    monkeypatch.setattr(
        agent_server, "route", lambda *a: (200, "application/json", json.dumps(completion))
    )
    project = mem_hub.projects.create("p")
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/openai"))
    dataset = mem_hub.datasets.upload(project.id, [{"question": "Where is order 42?"}], name="d")
    evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    (result,) = evaluation.results()
    (call,) = result.tool_calls
    assert (call.name, call.arguments, call.id) == ("lookup_order", {"id": 42}, "call_9")
    assert evaluation.to_dataframe(level="tool_calls")["name"].tolist() == ["lookup_order"]


def test_an_openai_conversation_with_tool_messages_is_kept(mem_hub: Hub, tmp_path: Path) -> None:
    path = tmp_path / "tools.jsonl"
    item = {
        "messages": CONVERSATION,
        "expected_tool_calls": [
            {"type": "function", "function": {"name": "send_mail", "arguments": '{"to": "me"}'}}
        ],
    }
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, path, name="d")
    (case,) = dataset.test_cases()
    assert case.messages[1].tool_calls[0]["function"]["name"] == "get_weather"
    assert case.messages[1].content == "" and case.messages[2].tool_call_id == "call_1"
    assert [(c.name, c.arguments) for c in case.expected_tool_calls] == [
        ("send_mail", {"to": "me"})
    ]
    assert case.conversation[0] == {"role": "user", "content": "Weather in Paris?"}

    received: list[Any] = []

    def agent(messages: list[dict[str, Any]]) -> str:
        received.append(messages)
        return "done"

    evaluation = mem_hub.evaluations.create_local(agent, dataset.id, progress=False)
    assert received[0][1]["tool_calls"][0]["id"] == "call_1"  # the agent gets the tool turns
    assert received[0][2] == {"role": "tool", "content": "18°C, sunny", "tool_call_id": "call_1"}
    (result,) = evaluation.results()
    assert result.messages[2].tool_call_id == "call_1"  # the conversation sent, as stored

    exported = json.loads(
        Path(mem_hub.datasets.export(dataset.id, tmp_path / "out.jsonl")).read_text()
    )
    assert exported["messages"][1]["tool_calls"][0]["id"] == "call_1"
    assert exported["expected_tool_calls"] == [{"name": "send_mail", "arguments": {"to": "me"}}]
    again = mem_hub.datasets.upload(project.id, tmp_path / "out.jsonl", name="again")
    (copy,) = again.test_cases()
    assert copy.messages == case.messages and copy.expected_tool_calls == case.expected_tool_calls


def test_bad_expected_tool_calls_are_refused_naming_the_line(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    items = [{"question": "hi", "expected_tool_calls": [{"arguments": {}}]}]
    with pytest.raises(
        GiskardValidationError, match=r"item 1.*expected_tool_calls.*not tool calls"
    ):
        mem_hub.datasets.upload(project.id, items, name="d")
    with pytest.raises(GiskardValidationError, match="expected_tool_calls is a list"):
        mem_hub.datasets.upload(
            project.id, [{"question": "hi", "expected_tool_calls": 3}], name="e"
        )


def test_a_file_of_table_layout_5_opens_with_an_empty_trajectory(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(str(path))
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(project.id, [{"question": "hi"}], name="d")
    evaluation = hub.evaluations.create_local(lambda m: "hello", dataset.id, progress=False)
    hub.close()
    with sqlite3.connect(path) as conn:  # the file as table layout 5 left it: no tool_calls column
        conn.execute("ALTER TABLE hub_evaluation_results DROP COLUMN tool_calls")
        conn.execute("UPDATE hub_meta SET value = '5' WHERE key = 'table_layout'")
    hub = Hub(str(path))
    try:
        with hub._db.read() as conn:
            layout = conn.execute(
                sa.select(schema.meta.c.value).where(schema.meta.c.key == "table_layout")
            ).scalar()
            stored = conn.execute(sa.select(schema.results.c.tool_calls)).scalars().all()
        assert int(layout) == TABLE_LAYOUT >= 6 and stored == [None]
        (result,) = hub.evaluations.results.list(evaluation.id)
        assert result.tool_calls == [] and result.status == "skip"  # no check
        (raw,) = hub.evaluations.results.iter_raw(evaluation.id)
        assert raw["tool_calls"] == []
        assert hub.evaluations.results.to_dataframe(evaluation.id)["tool_calls"].isna().all()
        assert hub.evaluations.results.to_dataframe(evaluation.id, level="tool_calls").empty
    finally:
        hub.close()


def test_a_csv_cell_of_expected_tool_calls_is_read_as_json(mem_hub: Hub, tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    cell = json.dumps([{"name": "get_weather", "arguments": {"city": "Paris"}}]).replace('"', '""')
    path.write_text(f'question,expected_tool_calls\nWeather?,"{cell}"\n', encoding="utf-8")
    project = mem_hub.projects.create("p")
    (case,) = mem_hub.datasets.upload(project.id, path, name="d").test_cases()
    assert [(c.name, c.arguments) for c in case.expected_tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    updated = mem_hub.test_cases.update(case.id, expected_tool_calls=[])
    assert updated.expected_tool_calls == []


@pytest.mark.parametrize(
    "reply",
    [
        {  # an OpenAI chat completion
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": "ok",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    }
                }
            ]
        },
        {  # an Anthropic message with content blocks
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "c", "name": "f", "input": {}},
            ],
        },
        {"text": "ok", "metadata": {"tool_calls": [{"name": "f", "arguments": {}}]}},
        {"response": "ok", "metadata": {"tool_calls": [{"name": "f", "arguments": {}}]}},
    ],
    ids=["openai-completion", "anthropic-blocks", "text-metadata", "hub-shape"],
)
def test_a_local_agent_may_report_its_calls_in_any_shape(mem_hub: Hub, reply: Any) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [{"question": "go"}], name="d")
    evaluation = mem_hub.evaluations.create_local(lambda m: reply, dataset.id, progress=False)
    (result,) = evaluation.results()
    assert result.error is None and result.agent_output.content == "ok"
    assert [c.name for c in result.tool_calls] == ["f"]  # once, not twice
