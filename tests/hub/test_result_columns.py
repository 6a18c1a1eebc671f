"""The Hub declares the stored columns of an evaluation result (``giskard_nb.hub.result_columns``):
the table's index columns, the values written for them and the results DataFrame all follow that one
declaration, and the frame keeps its columns and dtypes whether read from the rows or the models."""

from __future__ import annotations

import sqlalchemy as sa

from giskard_nb.core.usage import Usage
from giskard_nb.frames.hub_results import RESULT_COLUMNS as FRAME_NAMES
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.models.project import FailureCategory
from giskard_nb.hub.result_columns import RESULT_COLUMNS
from giskard_nb.hub.result_rows import FRAME_COLUMNS, encode_json, index_values, result_row

from .conftest import rule_case

#: The results frame's columns as they were before the Hub declared them (pinned: a change is a
#: change of the public frame, to be made on purpose).
PINNED = [
    "evaluation_id",
    "result_id",
    "test_case_id",
    "repeat",
    "status",
    "failure_category",
    "failure_category_title",
    "failure_category_source",
    "question",
    "agent_output",
    "agent_metadata",
    "error",
    "reason",
    "n_checks",
    "n_failed_checks",
    "duration_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "llm_calls",
    "cost_usd",
    "tags",
    "messages",
    "tool_calls",  # the trajectory (JSON), table layout 6
    "created_at",
]


def _evaluation(hub: Hub):
    project = hub.projects.create("p")
    items = [rule_case(f"question {i}", "answer") for i in range(3)]
    dataset = hub.datasets.upload(project.id, items, name="d")
    return hub.evaluations.create_local(
        lambda m: "answer" if m[-1]["content"] != "question 1" else "no", dataset.id, progress=False
    )


def test_the_table_and_the_written_values_follow_the_declaration(mem_hub: Hub) -> None:
    declared = [c.name for c in RESULT_COLUMNS if c.index]
    assert [c.name for c in schema.result_index_columns()] == declared
    assert all(c.name in schema.results.c for c in RESULT_COLUMNS)  # the row's own ones too
    (result, *_) = _evaluation(mem_hub).results()
    assert set(index_values(result)) == set(declared)  # a declared column without a value fails
    assert tuple(c.name for c in RESULT_COLUMNS) == FRAME_COLUMNS


def test_the_results_frame_keeps_its_columns_and_dtypes(mem_hub: Hub) -> None:
    assert list(FRAME_NAMES) == PINNED
    frame = _evaluation(mem_hub).to_dataframe()
    assert list(frame.columns) == PINNED
    kinds = {("result_id" if c.name == "id" else c.name): c.kind for c in RESULT_COLUMNS}
    dtypes = {name: str(frame[name].dtype) for name in PINNED}
    assert {n for n, k in kinds.items() if k == "integer"} == {
        n for n, d in dtypes.items() if d == "int64"
    }
    assert {n for n, k in kinds.items() if k == "float"} == {"duration_ms", "cost_usd"}
    assert {n for n, d in dtypes.items() if d == "float64"} == {"duration_ms", "cost_usd"}
    assert dtypes["status"] == "category"
    assert str(frame["created_at"].dt.tz) == "UTC"
    assert frame["status"].tolist() == ["pass", "fail", "pass"]
    assert frame["n_failed_checks"].tolist() == [0, 1, 0]


def test_a_row_without_index_columns_reads_the_same_frame(mem_hub: Hub) -> None:
    """A row an older version wrote (index columns empty; the conversation was kept in ``data``, so
    it stays) is rebuilt from its model, by column name, into the frame row the stored columns
    give."""
    evaluation = _evaluation(mem_hub)
    before = evaluation.to_dataframe()
    middle = evaluation.results()[1].id
    nulls = {c.name: None for c in RESULT_COLUMNS if c.index and c.name != "messages"}
    with mem_hub._db.write() as conn:
        conn.execute(sa.update(schema.results).where(schema.results.c.id == middle).values(nulls))
    after = mem_hub.evaluations.results.to_dataframe(evaluation.id)
    assert after.equals(before)
    assert after["result_id"].tolist()[1] == middle and after["n_checks"].tolist()[1] == 1


def test_the_written_row_is_what_each_field_encodes_to(mem_hub: Hub) -> None:
    """The row's shortcuts (no reason for a pass, ``{}``/``[]`` for empty metadata and tags, the
    ``data`` of an unlabelled result encoded once per reply role) write what the fields encode to."""
    project = mem_hub.projects.create("p")
    items = [
        rule_case("plain", "answer"),
        rule_case("tagged", "answer", tags=["topic:x"]),
        rule_case("fails", "answer"),
        rule_case("raises", "answer"),
        rule_case("tool", "answer"),
    ]
    dataset = mem_hub.datasets.upload(project.id, items, name="d")

    def agent(messages):
        question = messages[-1]["content"]
        if question == "raises":
            raise RuntimeError("down")
        if question == "tool":
            return {"response": {"role": "tool", "content": "answer"}, "metadata": {"k": 1}}
        return "no" if question == "fails" else "answer"

    evaluation = mem_hub.evaluations.create_local(agent, dataset.id, progress=False)
    results = evaluation.results()
    (failed,) = [r for r in results if r.status == "fail"]
    category = FailureCategory(identifier="wrong", title="Wrong")
    labelled = failed.model_copy(
        update={"failure_category": category, "failure_category_usage": Usage(llm_calls=1)}
    )
    assert {r.status for r in results} == {"pass", "fail", "error"}
    assert {r.reply_role for r in results} == {"assistant", "tool"}
    for result in [*results, labelled]:
        scenario = result.scenario_result
        last = scenario.final_trace.last
        row = result_row(result)
        fields = ("source", "reason", "usage")
        data = {f"failure_category_{f}": getattr(result, f"failure_category_{f}") for f in fields}
        expected = {
            "data": encode_json(
                {
                    "failure_category": result.failure_category,
                    **data,
                    "reply_role": result.reply_role,
                }
            ),
            "reason": scenario.reason,
            "error": scenario.error or (scenario.reason if scenario.errored else None),
            "agent_metadata": encode_json(last.metadata if last is not None else {}),
            "tags": encode_json(scenario.tags),
            "status": scenario.status.value,
        }
        assert {k: row[k] for k in expected} == expected
        assert {k: v for k, v in index_values(result).items() if k in expected} == {
            k: v for k, v in expected.items() if k not in ("data", "status")
        }
    assert '"llm_calls":1' in result_row(labelled)["data"]
