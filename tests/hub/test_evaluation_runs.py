"""Evaluation runs: each stored result passed to ``on_result`` (sync or async; one that raises loses
nothing), results stored in batches through the run's store (one audit entry per run), the agent's
reply read back from the trace, and the agent called through one function per run."""

from __future__ import annotations

import asyncio
import warnings
from datetime import UTC, datetime
from typing import Any

import pytest

from giskard_nb.core import inject
from giskard_nb.hub import Hub
from giskard_nb.hub.models import EvaluationResult

from .conftest import rule_case


def _dataset(hub: Hub, n: int, keyword: str = "answer") -> Any:
    project = hub.projects.create("p")
    return hub.datasets.upload(
        project.id, [rule_case(f"question {i}", keyword) for i in range(n)], name="d"
    )


def test_on_result_receives_every_stored_result(hub: Hub) -> None:
    dataset = _dataset(hub, 12)
    seen: list[EvaluationResult] = []
    evaluation = hub.evaluations.create_local(
        lambda m: "answer" if m[-1]["content"] != "question 3" else "no",
        dataset.id,
        max_concurrency=4,
        progress=False,
        on_result=seen.append,
    )
    stored = {r.id: r for r in evaluation.results()}
    assert sorted(r.id for r in seen) == sorted(stored)  # each one, once
    assert all(r == stored[r.id] for r in seen)  # as stored
    assert [r.status for r in seen].count("fail") == 1
    failed = next(r for r in seen if r.status == "fail")
    assert failed.failure_category is not None  # classified before it is passed on


async def test_an_async_callback_is_awaited_and_the_widget_counts_from_it(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 6)
    seen: list[str] = []

    async def callback(result: EvaluationResult) -> None:
        await asyncio.sleep(0)
        seen.append(result.status)

    evaluation = await mem_hub.evaluations.acreate_local(
        lambda m: "answer", dataset.id, progress=False, on_result=callback
    )
    assert seen == ["pass"] * 6 and evaluation.counts["pass"] == 6


def test_a_callback_that_raises_loses_no_result(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 10)
    calls: list[str] = []

    def broken(result: EvaluationResult) -> None:
        calls.append(result.id)
        raise ValueError("the notebook's callback has a bug")

    with pytest.warns(RuntimeWarning, match="on_result raised ValueError: the notebook's"):
        evaluation = mem_hub.evaluations.create_local(
            lambda m: "answer", dataset.id, progress=False, on_result=broken
        )
    assert evaluation.status == "finished" and evaluation.counts["pass"] == 10
    assert len(calls) == 10 and len(evaluation.results()) == 10  # called for each, all stored


async def test_an_interrupted_run_stores_and_reports_what_finished(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 8)
    gate = asyncio.Event()
    seen: list[str] = []

    async def agent(messages: list[dict[str, str]]) -> str:
        if messages[-1]["content"] not in ("question 0", "question 1"):
            await gate.wait()  # never set: the run is cancelled while these wait
        return "answer"

    task = asyncio.create_task(
        mem_hub.evaluations.acreate_local(
            agent,
            dataset.id,
            max_concurrency=8,
            progress=False,
            on_result=lambda r: seen.append(r.id),
        )
    )
    while not mem_hub.evaluations.list() or len(seen) < 2:
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (evaluation,) = mem_hub.evaluations.list()
    assert evaluation.status == "interrupted" and evaluation.counts["pass"] == 2
    assert sorted(seen) == sorted(r.id for r in evaluation.results())
    (entry,) = [e for e in mem_hub.audit.history(evaluation.id) if e.action == "results"]
    assert entry.changes == {"written": 2, "replaced": 0, "by_status": {"pass": 2}}


def test_results_are_written_in_batches_with_one_audit_entry(
    mem_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    from giskard_nb.hub import ledger

    monkeypatch.setattr(ledger, "BATCH_ROWS", 5)
    dataset = _dataset(mem_hub, 23)
    batches: list[int] = []
    save = mem_hub.evaluations.store.append

    def counted(results: Any, **kwargs: Any) -> Any:
        batches.append(len(results))
        return save(results, **kwargs)

    monkeypatch.setattr(mem_hub.evaluations.store, "append", counted)
    evaluation = mem_hub.evaluations.create_local(lambda m: "answer", dataset.id, progress=False)
    assert sum(batches) == 23 and len(batches) < 23  # transactions of many results
    entries = mem_hub.audit.search(project_id=evaluation.project_id)
    assert not [e for e in entries if e.entity_type == "evaluation_result"]
    (entry,) = [e for e in entries if e.action == "results"]
    assert entry.changes["written"] == 23 and entry.triggered_by == evaluation.id


def test_the_reply_is_read_from_the_trace_with_its_role(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 2)

    def agent(messages: list[dict[str, str]]) -> Any:
        if messages[-1]["content"] == "question 0":
            return {"role": "tool", "content": "answer", "metadata": {"tool": "faq"}}
        return "answer"

    evaluation = mem_hub.evaluations.create_local(agent, dataset.id, progress=False)
    by_question = {r.messages[-1].content: r for r in evaluation.results()}
    tool = by_question["question 0"]
    assert tool.agent_output.response.role == "tool" and tool.reply_role == "tool"
    assert tool.agent_output.metadata == {"tool": "faq"}
    assert tool.scenario_result.final_trace.last.metadata == {"tool": "faq"}
    assert by_question["question 1"].agent_output.response.role == "assistant"
    dump = tool.model_dump()  # the derived fields are still in a dump, and a dump validates back
    assert dump["status"] == "pass" and dump["checks"][0]["name"] == "string_match"
    assert EvaluationResult.model_validate(dump) == tool


def test_the_agent_is_called_through_one_function_per_run(
    mem_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(mem_hub, 40)
    planned: list[Any] = []
    original = inject.injector

    def spy(fn: Any, names: tuple[str, ...]) -> Any:
        planned.append(fn)
        return original(fn, names)

    monkeypatch.setattr("giskard_nb.core.spec.injector", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluation = mem_hub.evaluations.create_local(
            lambda m: "answer", dataset.id, progress=False
        )
    assert evaluation.counts["pass"] == 40
    assert len(planned) >= 40 and len({id(fn) for fn in planned}) == 1  # one function, not 40


def test_a_rerun_replaces_errors_in_place_on_every_backend(hub: Hub) -> None:
    dataset = _dataset(hub, 6)
    down = {"on": True}

    def flaky(messages: list[dict[str, str]]) -> str:
        if down["on"] and messages[-1]["content"] in ("question 1", "question 4"):
            raise ConnectionError("backend down")
        return "answer"

    first = hub.evaluations.create_local(flaky, dataset.id, progress=False)
    errored = {r.test_case_id: r for r in first.results(status="error")}
    assert len(errored) == 2
    down["on"] = False
    rerun = hub.evaluations.rerun_errored(first.id, agent=flaky, progress=False)
    assert rerun.counts["pass"] == 6
    after = {r.test_case_id: r for r in rerun.results()}
    for case_id, before in errored.items():
        assert after[case_id].id == before.id and after[case_id].created_at == before.created_at
        assert after[case_id].status == "pass" and after[case_id].error is None
    frame = rerun.to_dataframe()
    assert set(frame["status"]) == {"pass"} and frame["error"].isna().all()


def test_schema_1_records_are_upgraded_when_the_database_opens(hub_url: str) -> None:
    """The upgrade on every backend: results rewritten as schema 1 stored them (copies in ``data``,
    no index columns) come back the same after reopening."""
    import json

    import sqlalchemy as sa

    from giskard_nb.hub import schema

    hub = Hub(hub_url)
    dataset = _dataset(hub, 4)
    evaluation = hub.evaluations.create_local(
        lambda m: "answer" if m[-1]["content"] != "question 2" else "no", dataset.id, progress=False
    )
    results = evaluation.results()
    before = {r.id: r.model_dump() for r in results}
    nulls = {c.name: None for c in schema.result_index_columns()}
    with hub._db.write() as conn:
        for result in results:
            old = result.model_dump(
                mode="json",
                exclude={"id", "created_at", "updated_at", "schema_version", "evaluation_id",
                         "test_case_id", "status", "scenario_result", "reply_role",
                         "failure_category_usage"},
            )  # fmt: skip
            conn.execute(
                sa.update(schema.results)
                .where(schema.results.c.id == result.id)
                .values(schema_version=1, data=json.dumps(old), **nulls)
            )
        conn.execute(
            sa.update(schema.meta).where(schema.meta.c.key == "schema_version").values(value="1")
        )
    if hub_url != ":memory:":
        hub.close()
        hub = Hub(hub_url)
    else:  # an in-memory database cannot be reopened: run the upgrade as opening does
        from giskard_nb.hub.migrate import upgrade_records

        with hub._db.write() as conn:
            assert upgrade_records(conn, 2) == {"hub_evaluation_results": 4}
    with hub._db.read() as conn:
        versions = conn.execute(sa.select(schema.results.c.schema_version)).scalars().all()
    assert set(versions) == {2}
    assert {r.id: r.model_dump() for r in hub.evaluations.results.list(evaluation.id)} == before
    assert len(hub.evaluations.results.to_dataframe(evaluation.id)) == 4
    hub.close()


def test_bulk_insert_stores_what_sqlalchemy_would(hub: Hub) -> None:
    """The store's fast INSERT binds every value as ``conn.execute(table.insert(), rows)`` does (the
    same text for timestamps on SQLite, the same types on PostgreSQL)."""
    import sqlalchemy as sa

    from giskard_nb.hub import schema
    from giskard_nb.hub.evaluation_store import bulk_insert
    from giskard_nb.hub.result_rows import result_row

    dataset = _dataset(hub, 1)
    evaluation = hub.evaluations.create_local(lambda m: "answer", dataset.id, progress=False)
    (result,) = evaluation.results()
    whole = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)  # no microseconds: formats differ there
    rows = []
    for name in ("fast", "core"):
        copy = result.model_copy(
            update={"id": f"id-{name}", "test_case_id": f"tc-{name}", "created_at": whole}
        )
        rows.append(result_row(copy))
    t = schema.results
    with hub._db.write() as conn:
        bulk_insert(conn, t, [rows[0]])
        conn.execute(t.insert(), [rows[1]])
    raw = sa.select(t).where(t.c.id.in_(["id-fast", "id-core"])).order_by(t.c.id.desc())
    cast = [sa.cast(c, sa.String) if c.name.endswith("_at") else c for c in t.columns]
    with hub._db.read() as conn:
        fast, core = conn.execute(raw).mappings().all()
        texts = conn.execute(sa.select(*cast).where(t.c.id.in_(["id-fast", "id-core"]))).all()
    skip = {"id", "test_case_id"}
    assert {k: v for k, v in fast.items() if k not in skip} == {
        k: v for k, v in core.items() if k not in skip
    }
    assert (
        len(
            {
                tuple(v for k, v in zip(t.columns.keys(), row, strict=True) if k not in skip)
                for row in texts
            }
        )
        == 1
    )
    assert hub.evaluations.results.retrieve("id-fast").created_at == whole


def test_the_frames_of_an_evaluation_without_results(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 1)
    evaluation = mem_hub.evaluations.create_local(lambda m: "answer", dataset.id, progress=False)
    for result in evaluation.results():
        mem_hub.evaluations.results.delete(result.id)
    for frame in (evaluation.to_dataframe(), evaluation.results().to_dataframe()):
        assert frame.empty and len(frame.columns) == 25
        assert frame["question"].dtype == object and frame["n_checks"].dtype == "int64"
        assert str(frame["created_at"].dt.tz) == "UTC"
    assert evaluation.to_dataframe("checks").empty
