"""Repeated runs in the Hub: ``create_local(..., repeats=k)`` stores k results per test case, keyed by
their repeat index; resume and rerun_errored work run by run; re-scores keep the repeats; an older file
is re-keyed when it is opened (table layout 8)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.migrate import TABLE_LAYOUT
from tests.hub.conftest import interrupt_when_stored, rule_case


def _dataset(hub: Hub, n: int = 3):
    project = hub.projects.create("p")
    questions = ["When do you open on Mondays?", "How long do refunds take?", "Do you ship abroad?"]
    keywords = ["Monday", "days", "worldwide"]
    items = [rule_case(questions[i % 3] + f" (#{i})", keywords[i % 3]) for i in range(n)]
    return project, hub.datasets.upload(project.id, items, name="faq")


class Wavering:
    """An agent that forgets the refund delay on every other call: the refund case is flaky."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __call__(self, messages: list[dict[str, str]]) -> str:
        question = messages[-1]["content"]
        self.calls[question] += 1
        if "Monday" in question:
            return "We are open on Monday from 9 am to 6 pm, and on every other weekday too."
        if "refund" in question:
            if self.calls[question] % 2 == 0:
                return "Refunds are processed quickly once we receive the item back."
            return "Refunds take 5 to 10 business days once we receive the item back."
        return "Sorry, we only deliver within the country for now."


def test_each_test_case_runs_k_times_and_keeps_its_repeat_index(hub: Hub) -> None:
    _, dataset = _dataset(hub)
    agent = Wavering()
    evaluation = hub.evaluations.create_local(agent, dataset.id, repeats=3, progress=False)
    assert evaluation.repeats == 3 and evaluation.n_test_cases == 3
    assert sum(agent.calls.values()) == 9 and set(agent.calls.values()) == {3}
    results = evaluation.results()
    runs = Counter((r.test_case_id, r.repeat) for r in results)
    assert len(runs) == 9 and set(runs.values()) == {1}
    assert {r.repeat for r in results} == {0, 1, 2}
    by_case: dict[str, list[str]] = {}
    for r in results:
        by_case.setdefault(r.messages[-1].content, []).append(r.status)
    statuses = {q.split(" (#")[0]: sorted(s) for q, s in by_case.items()}
    assert statuses == {
        "When do you open on Mondays?": ["pass"] * 3,
        "How long do refunds take?": ["fail", "pass", "pass"],  # calls 1 and 3 pass, 2 fails
        "Do you ship abroad?": ["fail"] * 3,
    }
    assert evaluation.counts == {"pass": 5, "fail": 4, "error": 0, "skip": 0}
    frame = evaluation.to_dataframe()
    assert list(frame.columns[:4]) == ["evaluation_id", "result_id", "test_case_id", "repeat"]
    assert sorted(frame["repeat"].tolist()) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert str(frame["repeat"].dtype) == "int64"
    assert "×3 runs" in repr(evaluation)
    assert "9/9 results (3 test cases × 3 runs)" in evaluation._repr_html_()
    summary = evaluation.summary()
    assert summary.repeats == 3 and summary.missing == 0 and summary.n_flaky == 1
    assert "pass^3 1/3 cases, pass@3 2/3, 1 flaky" in str(summary)


def test_repeats_must_be_a_whole_number_of_at_least_one(mem_hub: Hub) -> None:
    _, dataset = _dataset(mem_hub)
    for bad in (0, -2, 1.5, True, "3"):
        with pytest.raises(GiskardValidationError, match="repeats must be a whole number >= 1"):
            mem_hub.evaluations.create_local(Wavering(), dataset.id, repeats=bad, progress=False)
    assert mem_hub.evaluations.list() == []  # nothing stored for a refused run


async def test_an_interrupted_repeated_run_resumes_only_the_missing_runs(mem_hub: Hub) -> None:
    _, dataset = _dataset(mem_hub, n=4)
    never = asyncio.Event()
    calls: Counter[tuple[str, int]] = Counter()
    seen: Counter[str] = Counter()

    async def stalls_on_third_runs(messages):
        question = messages[-1]["content"]
        seen[question] += 1
        if seen[question] >= 3:
            await never.wait()  # every case's third run is in flight when the interrupt comes
        return "Open on Monday, refunds in 5 days, we ship worldwide."

    task = asyncio.create_task(
        mem_hub.evaluations.acreate_local(
            stalls_on_third_runs, dataset.id, repeats=3, max_concurrency=4, progress=False
        )
    )
    evaluation_id = await interrupt_when_stored(mem_hub, task, 8)
    assert mem_hub.evaluations.retrieve(evaluation_id).status == "interrupted"
    stored = mem_hub.evaluations.results.list(evaluation_id)
    assert {r.repeat for r in stored} == {0, 1}

    def answer(messages):
        calls[messages[-1]["content"], 0] += 1
        return "Open on Monday, refunds in 5 days, we ship worldwide."

    resumed = await mem_hub.evaluations.aresume(evaluation_id, agent=answer, progress=False)
    assert sum(calls.values()) == 4  # only the four missing third runs
    results = resumed.results()
    assert len(results) == 12 and resumed.counts["pass"] == 12
    assert Counter(r.repeat for r in results) == {0: 4, 1: 4, 2: 4}
    again = await mem_hub.evaluations.aresume(evaluation_id, agent=answer, progress=False)
    assert len(again.results()) == 12 and sum(calls.values()) == 4  # nothing left to run


def test_rerun_errored_replaces_the_errored_runs_in_place(hub: Hub) -> None:
    _, dataset = _dataset(hub)
    state = {"down": True, "calls": 0}

    def flaky(messages):
        state["calls"] += 1
        if state["down"] and "refund" in messages[-1]["content"] and state["calls"] % 2:
            raise ConnectionError("backend down")
        return "Open Monday; refunds take 5 days; we ship worldwide."

    evaluation = hub.evaluations.create_local(
        flaky, dataset.id, repeats=2, max_concurrency=1, progress=False
    )
    errored = hub.evaluations.results.list(evaluation.id, status="error")
    assert len(errored) == 1
    state["down"] = False
    state["calls"] = 0
    rerun = hub.evaluations.rerun_errored(evaluation.id, agent=flaky, progress=False)
    assert state["calls"] == 1
    results = {r.id: r for r in rerun.results()}
    assert len(results) == 6 and rerun.counts["error"] == 0
    assert results[errored[0].id].status == "pass"
    assert results[errored[0].id].repeat == errored[0].repeat


def test_a_rescore_keeps_the_repeats(mem_hub: Hub) -> None:
    _, dataset = _dataset(mem_hub)
    source = mem_hub.evaluations.create_local(Wavering(), dataset.id, repeats=2, progress=False)
    rescored = mem_hub.evaluations.rescore(source.id, progress=False)
    assert rescored.repeats == 2 and rescored.n_test_cases == 3
    pairs = lambda e: sorted((r.test_case_id, r.repeat, r.status) for r in e.results())  # noqa: E731
    assert pairs(rescored) == pairs(source)


def _keyed_by_test_case(hub: Hub, url: str) -> None:
    """Turn a current file back into table layout 7: results unique by (evaluation, test case)."""
    t = schema.results
    if hub._db.dialect == "sqlite":
        hub.close()
        conn = sqlite3.connect(url, isolation_level=None)  # foreign keys off: nothing cascades
        create = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t.name,)).fetchone()[
            0
        ]
        old = create.replace(
            "CONSTRAINT uq_hub_results_repeat UNIQUE (evaluation_id, test_case_id, repeat)",
            "CONSTRAINT uq_hub_results_test_case UNIQUE (evaluation_id, test_case_id)",
        )
        assert old != create
        conn.execute("PRAGMA legacy_alter_table=ON")  # the labels keep referring to the results
        conn.execute(f"ALTER TABLE {t.name} RENAME TO old_results")
        conn.execute(old)
        conn.execute(f"INSERT INTO {t.name} SELECT * FROM old_results")
        conn.execute("DROP TABLE old_results")
        conn.execute(f'UPDATE {t.name} SET "repeat" = NULL')
        conn.execute("UPDATE hub_meta SET value = '7' WHERE key = 'table_layout'")
        conn.close()
        return
    with hub._db.engine.begin() as conn:
        conn.exec_driver_sql(f"ALTER TABLE {t.name} DROP CONSTRAINT uq_hub_results_repeat")
        conn.exec_driver_sql(
            f"ALTER TABLE {t.name} ADD CONSTRAINT uq_hub_results_test_case "
            "UNIQUE (evaluation_id, test_case_id)"
        )
        conn.exec_driver_sql(f'UPDATE {t.name} SET "repeat" = NULL')
        conn.execute(
            sa.update(schema.meta).where(schema.meta.c.key == "table_layout").values(value="7")
        )
    hub.close()


def test_a_file_of_layout_7_is_rekeyed_and_keeps_its_results_and_labels(
    hub: Hub, hub_url: str
) -> None:
    if hub_url == ":memory:":
        pytest.skip("an in-memory database is not reopened")
    _, dataset = _dataset(hub)
    before = hub.evaluations.create_local(Wavering(), dataset.id, progress=False)
    failed = next(r for r in before.results() if r.status == "fail")
    hub.evaluations.results.label(failed.id, check="string_match", passed=False, labeler="ana")
    _keyed_by_test_case(hub, hub_url)

    reopened = Hub(hub_url)
    try:
        unique = sa.inspect(reopened._db.engine).get_unique_constraints(schema.results.name)
        assert [u["name"] for u in unique] == ["uq_hub_results_repeat"]
        with reopened._db.read() as conn:
            layout = conn.execute(
                sa.select(schema.meta.c.value).where(schema.meta.c.key == "table_layout")
            ).scalar()
        assert int(layout) == TABLE_LAYOUT == 8
        kept = reopened.evaluations.results.list(before.id)
        assert sorted(r.id for r in kept) == sorted(r.id for r in before.results())
        assert {r.repeat for r in kept} == {0}
        labels = reopened.evaluations.results.labels(evaluation_id=before.id)
        assert [(lb.result_id, lb.labeler, lb.passed) for lb in labels] == [
            (failed.id, "ana", False)
        ]
        again = reopened.evaluations.create_local(Wavering(), dataset.id, repeats=2, progress=False)
        assert len(again.results()) == 6
    finally:
        reopened.close()


def test_an_older_version_writing_without_a_repeat_gets_repeat_0(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(str(path))
    _, dataset = _dataset(hub)
    evaluation = hub.evaluations.create_local(Wavering(), dataset.id, progress=False)
    hub.close()
    columns = [c.name for c in schema.results.columns if c.name != "repeat"]
    with sqlite3.connect(path) as conn:  # a row written as a version before layout 8 writes it
        names = ", ".join(f'"{c}"' for c in columns)
        conn.execute(
            f"INSERT INTO {schema.results.name} ({names}) SELECT "
            + ", ".join(
                "'copy'" if c == "id" else "'other-case'" if c == "test_case_id" else f'"{c}"'
                for c in columns
            )
            + f" FROM {schema.results.name} LIMIT 1"
        )
    reopened = Hub(str(path))
    try:
        stored = reopened.evaluations.results.retrieve("copy")
        assert stored.repeat == 0 and stored.evaluation_id == evaluation.id
    finally:
        reopened.close()
