"""Opening the Hub, persistence across reopenings, schema versions, transactions and concurrent writers."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from giskard_nb.errors import ConfigError, GiskardValidationError, HubError
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.db import resolve_url
from giskard_nb.hub.models.base import SCHEMA_VERSION


def test_default_url_is_home_hub_db(_isolated_home: Path) -> None:
    hub = Hub()
    assert hub.url == f"sqlite:///{_isolated_home / 'hub.db'}"
    hub.projects.create("p")
    assert (_isolated_home / "hub.db").is_file()
    hub.close()


def test_env_url_overrides_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GISKARD_NB_HUB_URL", str(tmp_path / "team.db"))
    assert Hub().url == f"sqlite:///{tmp_path / 'team.db'}"
    assert Hub(":memory:").url == "sqlite://"  # an argument wins over the environment


def test_url_forms(tmp_path: Path) -> None:
    assert resolve_url(":memory:") == "sqlite://"
    assert resolve_url(tmp_path / "a" / "h.db") == f"sqlite:///{tmp_path / 'a' / 'h.db'}"
    assert (tmp_path / "a").is_dir()
    assert resolve_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert resolve_url("postgres://h/db") == "postgresql+psycopg://h/db"
    with pytest.raises(ConfigError, match="empty"):
        resolve_url("  ")


def test_repr_masks_database_password() -> None:
    with pytest.raises(HubError) as info:
        Hub("postgresql://alice:hunter2@127.0.0.1:1/nope")
    assert "hunter2" not in str(info.value)
    assert "alice:***@127.0.0.1:1" in str(info.value)


def test_unknown_driver_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not installed|invalid"):
        Hub("nosuchdb://x/y")


def test_records_persist_across_reopenings(hub_url: str, backend: str) -> None:
    if backend == "sqlite-memory":
        pytest.skip("an in-memory database does not outlive its Hub")
    first = Hub(hub_url, actor="a")
    project = first.projects.create("kept", description="across reopenings")
    dataset = first.datasets.create(project.id, name="d")
    case = first.test_cases.create(dataset.id, messages=[{"role": "user", "content": "hi"}])
    first.close()

    second = Hub(hub_url, actor="b")
    assert second.projects.retrieve(project.id) == project
    again = second.test_cases.retrieve(case.id)
    assert again.messages == case.messages and again.created_at == case.created_at
    assert again.created_at.tzinfo is not None
    assert [e.action for e in second.audit.history(project.id)] == ["create"]
    second.close()


def test_every_record_carries_the_schema_version(hub: Hub) -> None:
    project = hub.projects.create("p")
    with hub._db.read() as conn:
        row = conn.execute(sa.select(schema.projects)).mappings().one()
        audit = conn.execute(sa.select(schema.audit_log)).mappings().one()
        meta = conn.execute(
            sa.select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
        ).scalar()
    assert row["schema_version"] == SCHEMA_VERSION == audit["schema_version"]
    assert int(meta) == SCHEMA_VERSION
    assert json.loads(row["data"])["description"] == ""
    assert project.schema_version == SCHEMA_VERSION


def test_a_newer_record_is_refused_with_a_clear_error(hub: Hub) -> None:
    project = hub.projects.create("p")
    with hub._db.write() as conn:
        conn.execute(sa.update(schema.projects).values(schema_version=SCHEMA_VERSION + 1))
    with pytest.raises(HubError, match="newer giskard-nb"):
        hub.projects.retrieve(project.id)


def test_stored_json_with_a_lone_surrogate_escape_or_broken_is_read_or_named(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [{"messages": "hello"}], name="d")
    case = mem_hub.test_cases.list(dataset.id)[0]
    t = schema.test_cases
    with mem_hub._db.read() as conn:
        data = json.loads(conn.execute(sa.select(t.c.data).where(t.c.id == case.id)).scalar())
    data["messages"][0]["content"] = "hi \ud800 there"  # JSON readers differ on its escape
    data["name"] = "n\u00e9"
    with mem_hub._db.write() as conn:
        conn.execute(sa.update(t).where(t.c.id == case.id).values(data=json.dumps(data)))
    again = mem_hub.test_cases.retrieve(case.id)
    assert again.messages[0].content == "hi \ufffd there" and again.name == "n\u00e9"
    with mem_hub._db.write() as conn:
        conn.execute(sa.update(t).where(t.c.id == case.id).values(data='{"messages": [{"rol'))
    with pytest.raises(HubError, match=f"stored row '{case.id}' of hub_test_cases cannot be read"):
        mem_hub.test_cases.retrieve(case.id)


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    Hub(path).close()
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(sa.update(schema.meta).values(value=str(SCHEMA_VERSION + 5)))
    engine.dispose()
    with pytest.raises(HubError, match="upgrade giskard-nb"):
        Hub(path)


def test_a_failed_write_leaves_nothing(hub: Hub) -> None:
    project = hub.projects.create("p")
    with pytest.raises(RuntimeError), hub._db.write() as conn:
        hub.datasets._create(hub.datasets.model(project_id=project.id, name="half"), conn=conn)
        raise RuntimeError("crash in the middle of a transaction")
    assert hub.datasets.list() == []
    assert [e.entity_type for e in hub.audit.search()] == ["project"]


def test_concurrent_writers_threads_and_tasks(hub: Hub) -> None:
    project = hub.projects.create("p")
    dataset = hub.datasets.create(project.id, name="d")

    def write(n: int) -> None:
        for i in range(10):
            hub.test_cases.create(
                dataset.id, messages=[{"role": "user", "content": f"thread {n} case {i}"}]
            )

    async def write_async(n: int) -> None:
        for i in range(10):
            await asyncio.sleep(0)
            hub.test_cases.create(
                dataset.id, messages=[{"role": "user", "content": f"task {n} case {i}"}]
            )

    async def tasks() -> None:
        await asyncio.gather(*(write_async(n) for n in range(4)))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    threads.append(threading.Thread(target=asyncio.run, args=(tasks(),)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cases = hub.test_cases.list(dataset.id)
    assert len(cases) == 80
    assert sorted(c.position for c in cases) == list(range(80))  # no position was handed out twice


def test_validation_errors_are_readable(mem_hub: Hub) -> None:
    with pytest.raises(GiskardValidationError, match="invalid project: name"):
        mem_hub.projects.create("")
