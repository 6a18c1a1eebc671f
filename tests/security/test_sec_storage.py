"""Storage faults are ordinary errors (security review item 11): a full disk, a read-only database, a
damaged file, a bad schema version and a bad row give a ``HubStorageError`` saying what failed and
what to do, never SQL; a run stopped by a full disk can be resumed at once by the same process."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from giskard_nb.errors import HubStorageError
from giskard_nb.hub import Hub

SQL_WORDS = ("INSERT", "SELECT", "UPDATE ", "[SQL", "parameters", "sqlalche.me")


def _no_sql(error: BaseException) -> str:
    text = str(error)
    assert not any(word in text for word in SQL_WORDS), text
    assert error.__suppress_context__ or error.__cause__ is None
    return text


def _cases(n: int) -> list[dict]:
    return [
        {"messages": f"question {i}", "checks": [{"identifier": "string_match", "params": {"keyword": "x"}}]}
        for i in range(n)
    ]  # fmt: skip


class DiskFull:
    """Every new connection of the Hub's engine capped at its current size plus a few pages (SQLite's
    ``max_page_count``: writes past it fail with "database or disk is full"), until ``lift()``."""

    def __init__(self, hub: Hub, extra_pages: int = 2):
        self.engine = hub._db.engine
        self.on = True
        with self.engine.connect() as conn:
            self.pages = conn.exec_driver_sql("PRAGMA page_count").scalar() + extra_pages
        sa.event.listen(self.engine, "connect", self._cap)
        self.engine.dispose()

    def _cap(self, dbapi_conn, _record) -> None:
        if self.on:
            dbapi_conn.execute(f"PRAGMA max_page_count={self.pages}")

    def lift(self) -> None:
        self.on = False
        self.engine.dispose()


def test_a_full_disk_mid_evaluation_is_a_clear_error_and_the_same_process_resumes_at_once(
    tmp_path: Path,
) -> None:
    hub = Hub(str(tmp_path / "hub.db"))
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(project.id, _cases(40), name="d")

    def agent(messages):
        return "a long answer that fills pages. " * 400

    full = DiskFull(hub)
    with pytest.raises(HubStorageError) as raised:
        hub.evaluations.create_local(agent, dataset.id, progress=False, name="full")
    text = _no_sql(raised.value)
    assert raised.value.reason == "disk_full" and "free some space" in text
    full.lift()
    (evaluation,) = hub.evaluations.list()
    assert evaluation.status == "error" and "disk holding it is full" in (evaluation.error or "")
    resumed = hub.evaluations.resume(evaluation.id, agent=agent, progress=False)
    assert resumed.status == "finished"
    assert sum(resumed.counts.values()) == 40
    hub.close()


def test_a_read_only_database_is_a_clear_error(tmp_path: Path) -> None:
    hub = Hub(str(tmp_path / "hub.db"))
    hub.projects.create("p")
    engine = hub._db.engine
    sa.event.listen(engine, "connect", lambda c, _r: c.execute("PRAGMA query_only=1"))
    engine.dispose()
    with pytest.raises(HubStorageError) as raised:
        hub.projects.create("q")
    assert raised.value.reason == "read_only" and "permissions" in _no_sql(raised.value)
    assert [p.name for p in hub.projects.list()] == ["p"]  # reading still works
    hub.close()


def test_an_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(HubStorageError, match="choose a path you may write to"):
        Hub(str(blocker / "hub.db"))


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_file_is_named_with_what_to_do(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "hub.db"
    if damage == "garbage":
        path.write_bytes(b"this is not an sqlite file at all" * 200)
    else:
        hub = Hub(str(path))
        project = hub.projects.create("p")
        hub.datasets.upload(project.id, _cases(300), name="d")
        hub.close()
        for suffix in ("-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    with pytest.raises(HubStorageError) as raised:
        hub = Hub(str(path))
        hub.test_cases.list(hub.datasets.list()[0].id)
    assert raised.value.reason == "corrupt" and "restore it from a backup" in _no_sql(raised.value)


def test_a_bad_schema_version_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    Hub(str(path)).close()
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE hub_meta SET value='abc' WHERE key='schema_version'")
    engine.dispose()
    with pytest.raises(HubStorageError, match="schema_version is 'abc'") as raised:
        Hub(str(path))
    _no_sql(raised.value)


def test_a_row_with_bad_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(str(path))
    good = hub.projects.create("good")
    bad = hub.projects.create("bad")
    with hub._db.write() as conn:
        conn.exec_driver_sql("UPDATE hub_projects SET data='{not json' WHERE id=?", (bad.id,))
    with pytest.raises(HubStorageError) as raised:
        hub.projects.list()
    text = _no_sql(raised.value)
    assert bad.id in text and "hub_projects" in text and "delete it" in text
    assert hub.projects.retrieve(good.id).name == "good"
    hub.close()


def test_a_run_that_could_not_even_be_marked_stopped_is_resumable_by_its_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from giskard_nb.hub.evaluation_store import EvaluationStore

    hub = Hub(str(tmp_path / "hub.db"))
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(project.id, _cases(6), name="d")
    real_save, real_status = EvaluationStore.append, EvaluationStore.finish
    broken = {"on": True}

    def save(self, results, **kw):
        if broken["on"]:
            raise HubStorageError("the disk is full", reason="disk_full")
        return real_save(self, results, **kw)

    def status(self, evaluation_id, status, **kw):
        if broken["on"]:
            raise HubStorageError("the disk is full", reason="disk_full")
        return real_status(self, evaluation_id, status, **kw)

    monkeypatch.setattr(EvaluationStore, "append", save)
    monkeypatch.setattr(EvaluationStore, "finish", status)
    with pytest.raises(HubStorageError, match="the disk is full"):
        hub.evaluations.create_local(lambda m: "x", dataset.id, progress=False)
    (stuck,) = hub.evaluations.list()
    assert stuck.status == "running"  # nothing could be written, not even the stop
    broken["on"] = False
    resumed = hub.evaluations.resume(stuck.id, agent=lambda m: "x", progress=False)
    assert resumed.status == "finished" and sum(resumed.counts.values()) == 6
    hub.close()
