"""Concurrency edges of the Hub on one SQLite file: outside write locks, two runs of one evaluation,
runs whose process died."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from giskard_nb.errors import HubError
from giskard_nb.hub import Hub, ledger, schema, schema_scans
from giskard_nb.hub.migrate import TABLE_LAYOUT
from tests.hub.conftest import rule_case


def _hold_write_lock(path: Path, seconds: float) -> tuple[threading.Thread, threading.Event]:
    """A thread holding the file's write lock (BEGIN IMMEDIATE) for ``seconds``."""
    taken = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        taken.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert taken.wait(10)
    return thread, taken


def test_a_write_waits_for_an_outside_lock_and_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(path)
    hub._db.lock_timeout = 30
    thread, _ = _hold_write_lock(path, 1.5)  # longer than SQLite's own 1 s wait: retried
    project = hub.projects.create("written after the lock")
    thread.join()
    assert hub.projects.retrieve(project.id).name == "written after the lock"
    hub.close()


def test_a_lock_held_too_long_ends_in_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(path)
    hub._db.lock_timeout = 0.3
    thread, _ = _hold_write_lock(path, 3)
    with pytest.raises(HubError, match="is locked") as info:
        hub.projects.create("never written")
    assert str(path) in str(info.value) and "GISKARD_NB_LOCK_TIMEOUT" in str(info.value)
    thread.join()
    assert hub.projects.list() == []
    hub.projects.create("fine once released")
    hub.close()


def test_the_lock_timeout_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GISKARD_NB_LOCK_TIMEOUT", "7.5")
    hub = Hub(tmp_path / "hub.db")
    assert hub._db.lock_timeout == 7.5
    hub.close()


# -- two runs of one evaluation; runs whose process died --------------------------------------------

_CHILD = r"""
import sys, time
from giskard_nb.hub import Hub

hub = Hub(sys.argv[1])
def slow(messages):
    time.sleep(0.2)
    return "answer"
hub.evaluations.resume(sys.argv[2], agent=slow, progress=False)
"""


def _dataset(hub: Hub, n: int) -> Any:
    project = hub.projects.create("p")
    return hub.datasets.upload(
        project.id, [rule_case(f"question {i}", "answer") for i in range(n)], name="d"
    )


def _wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


async def test_a_second_hub_on_the_same_file_cannot_run_it_at_once(tmp_path: Path) -> None:
    first, second = Hub(tmp_path / "hub.db"), Hub(tmp_path / "hub.db")
    dataset = _dataset(first, 6)
    release = asyncio.Event()

    async def waits(messages):
        await release.wait()
        return "answer"

    task = asyncio.create_task(
        first.evaluations.acreate_local(waits, dataset.id, max_concurrency=2, progress=False)
    )
    while not second.evaluations.list():
        await asyncio.sleep(0.01)
    evaluation_id = second.evaluations.list()[0].id
    await asyncio.sleep(0.05)
    assert second.evaluations.retrieve(evaluation_id).status == "running"
    with pytest.raises(HubError, match="already running") as info:
        await second.evaluations.aresume(evaluation_id, agent=waits, progress=False)
    assert f"process {os.getpid()}" in str(info.value)
    release.set()
    finished = await task
    assert finished.status == "finished" and finished.counts["pass"] == 6
    again = await second.evaluations.aresume(evaluation_id, agent=waits, progress=False)
    assert len(again.results()) == 6
    first.close()
    second.close()


def _unstarted_evaluation(hub: Hub, dataset: Any) -> str:
    """An evaluation created but not run yet (a local one: its agent comes with the resume)."""
    evaluation, _ = hub.evaluations._new(
        dataset.project_id,
        dataset.id,
        "run elsewhere",
        agent_name="slow",
        agent_id=None,
        local=True,
        tags=[],
        max_concurrency=1,
        timeout=None,
    )
    return evaluation.id


def test_a_killed_process_leaves_an_interrupted_run_that_resumes(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(path)
    dataset = _dataset(hub, 40)
    evaluation_id = _unstarted_evaluation(hub, dataset)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), evaluation_id],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:

        def started() -> bool:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            return len(hub.evaluations.results.list(evaluation_id)) >= 2

        _wait_for(started)
        running = hub.evaluations.retrieve(evaluation_id)
        assert running.status == "running"
        # a second process resuming it gets a clear error naming the owner
        with pytest.raises(HubError, match=f"already running \\(process {child.pid} "):
            hub.evaluations.resume(evaluation_id, agent=lambda m: "answer", progress=False)
    finally:
        child.kill()  # SIGKILL: no finally block of the child runs
        child.wait()
    stored = len(hub.evaluations.results.list(evaluation_id))
    assert 2 <= stored < 40
    assert hub.evaluations.retrieve(evaluation_id).status == "interrupted"  # its pid is gone
    resumed = hub.evaluations.resume(evaluation_id, agent=lambda m: "answer", progress=False)
    assert resumed.status == "finished" and resumed.counts["pass"] == 40
    assert len(hub.evaluations.results.list(evaluation_id)) == 40
    hub.close()


def test_liveness_by_heartbeat_and_pid() -> None:
    now = datetime.now(UTC)
    here = socket.gethostname()
    fresh, stale = now - timedelta(seconds=1), now - timedelta(seconds=ledger.STALE_AFTER + 1)
    dead_pid = _a_dead_pid()
    assert ledger.alive({"heartbeat_at": fresh, "owner_host": here, "owner_pid": os.getpid()})
    assert not ledger.alive({"heartbeat_at": fresh, "owner_host": here, "owner_pid": dead_pid})
    assert ledger.alive({"heartbeat_at": fresh, "owner_host": "elsewhere", "owner_pid": 1})
    assert not ledger.alive({"heartbeat_at": stale, "owner_host": "elsewhere", "owner_pid": 1})
    # rows written before the heartbeat existed: their last update decides
    assert not ledger.alive({"heartbeat_at": None, "updated_at": stale})
    assert ledger.alive({"heartbeat_at": None, "updated_at": fresh})


def _a_dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


async def test_the_heartbeat_is_refreshed_while_running(
    mem_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "HEARTBEAT_INTERVAL", 0.05)
    dataset = _dataset(mem_hub, 2)
    beats: list[Any] = []

    async def slow(messages):
        for _ in range(6):
            await asyncio.sleep(0.05)
            with mem_hub._db.read() as conn:
                beats.append(conn.execute(sa.select(schema.evaluations.c.heartbeat_at)).scalar())
        return "answer"

    evaluation = await mem_hub.evaluations.acreate_local(slow, dataset.id, progress=False)
    assert evaluation.status == "finished"
    assert len(set(beats)) >= 2  # the heartbeat moved while the agent was working
    row = mem_hub._db.engine.connect().execute(sa.select(schema.evaluations)).mappings().one()
    assert row["owner_pid"] == os.getpid() and row["owner_host"] == socket.gethostname()


def test_a_database_of_the_previous_layout_opens_and_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    hub = Hub(path)
    dataset = _dataset(hub, 3)
    evaluation_id = _unstarted_evaluation(hub, dataset)  # left "running" by a process long gone
    hub.close()
    # the previous layout: no owner columns, no table_layout entry, the run's last update old
    old = sqlite3.connect(path, isolation_level=None)
    for table in ("hub_evaluations", "hub_scans"):
        for column in ("owner_host", "owner_pid", "heartbeat_at"):
            old.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    old.execute("DELETE FROM hub_meta WHERE key = 'table_layout'")
    old.execute("UPDATE hub_evaluations SET updated_at = '2020-01-01 00:00:00.000000'")
    old.close()

    hub = Hub(path)
    with hub._db.read() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("hub_evaluations")}
        layout = conn.execute(
            sa.select(schema.meta.c.value).where(schema.meta.c.key == "table_layout")
        ).scalar()
    assert {"owner_host", "owner_pid", "heartbeat_at"} <= columns
    assert int(layout) == TABLE_LAYOUT
    assert hub.evaluations.retrieve(evaluation_id).status == "interrupted"
    resumed = hub.evaluations.resume(evaluation_id, agent=lambda m: "answer", progress=False)
    assert resumed.status == "finished" and resumed.counts["pass"] == 3
    hub.close()
    Hub(path).close()  # opening again is a no-op


async def test_scans_have_one_live_run_and_a_dead_one_reads_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)
    first, second = Hub(tmp_path / "hub.db"), Hub(tmp_path / "hub.db")
    project = first.projects.create("p")
    release = asyncio.Event()

    async def waits(messages):
        await release.wait()
        return "I'm sorry, I can't help with that."

    options = {"max_attempts_per_probe": 2, "judge": None, "generator": None, "progress": False}
    task = asyncio.create_task(
        first.scans.acreate(project.id, agent=waits, categories=["prompt_injection"], **options)
    )
    while not second.scans.list(project_id=project.id):
        await asyncio.sleep(0.01)
    (scan,) = second.scans.list(project_id=project.id)
    await asyncio.sleep(0.1)
    with pytest.raises(HubError, match="already running"):
        await second.scans.aresume(scan.id, agent=waits, progress=False)
    release.set()
    assert (await task).status == "finished"
    # the same scan left "running" by a process that died
    with second._db.write() as conn:
        conn.execute(
            sa.update(schema_scans.scans).values(status="running", owner_pid=_a_dead_pid())
        )
    assert second.scans.retrieve(scan.id).status == "interrupted"
    resumed = await second.scans.aresume(scan.id, agent=waits, progress=False)
    assert resumed.status == "finished"
    first.close()
    second.close()
