"""A Hub database written by the release before the redesign (table layout 2, record schema 1, whose
evaluation results copied status, checks, reply, usage... beside their ScenarioResult) opens with this
version: its results are rewritten once in the new shape, read the same as before, can be relabelled
and resumed, and new evaluations run into it. (The scan side is tested in its own file.)"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import sqlalchemy as sa

from giskard_nb.core.check import HINT_KEY
from giskard_nb.demo import support_agent
from giskard_nb.hub import DEFAULT_FAILURE_CATEGORIES, Hub, classify_by_rules, schema
from giskard_nb.hub.migrate import TABLE_LAYOUT
from giskard_nb.hub.models.base import SCHEMA_VERSION

RELEASE = Path(__file__).parent / "data" / "hub_layout2_release_93f59d6.sqlite"


def _stored_copies() -> dict[str, dict[str, Any]]:
    """What the release stored for each result (its own copies), read from the untouched file."""
    with sqlite3.connect(f"file:{RELEASE}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT id, status, data FROM hub_evaluation_results").fetchall()
    return {rid: {**json.loads(data), "status": status} for rid, status, data in rows}


@pytest.fixture
def old(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(RELEASE, path)
    return path


def _meta(hub: Hub) -> dict[str, str]:
    with hub._db.read() as conn:
        return dict(conn.execute(sa.select(schema.meta.c.key, schema.meta.c.value)).all())


def test_the_release_database_is_rewritten_once_in_the_new_shape(old: Path) -> None:
    hub = Hub(old)
    assert _meta(hub) == {"schema_version": str(SCHEMA_VERSION), "table_layout": str(TABLE_LAYOUT)}
    with hub._db.read() as conn:
        rows = conn.execute(sa.select(schema.results)).mappings().all()
    assert len(rows) == 12
    assert {r["schema_version"] for r in rows} == {SCHEMA_VERSION}
    assert all(r["n_checks"] is not None and r["messages"] is not None for r in rows)
    for row in rows:  # the copies are gone from the record: they are read from the ScenarioResult
        assert not {"status", "checks", "agent_output", "usage", "tags"} & set(
            json.loads(row["data"])
        )
    hub.close()
    reopened = Hub(old)  # a second opening has nothing left to do
    assert _meta(reopened)["schema_version"] == str(SCHEMA_VERSION)
    reopened.close()


def test_every_result_reads_as_the_release_stored_it(old: Path) -> None:
    copies = _stored_copies()
    hub = Hub(old)
    (evaluation,) = hub.evaluations.list()
    assert evaluation.status == "finished" and evaluation.counts["pass"] == 7
    results = evaluation.results()
    assert len(results) == 12
    for result in results:
        copy = copies[result.id]
        assert result.status == copy["status"]
        # the release's check views had no ``details`` (added since); no hint was recorded then
        assert [c.model_dump(exclude={"details"}) for c in result.checks] == copy["checks"]
        assert all(HINT_KEY not in c.details for c in result.checks)
        assert result.agent_output.model_dump() == copy["agent_output"]
        assert [m.model_dump() for m in result.messages] == copy["messages"]
        assert result.tags == copy["tags"] and result.error == copy["error"]
        assert result.duration_ms == copy["duration_ms"]
        assert result.usage.model_dump() == copy["usage"]
        category = result.failure_category
        assert (category.model_dump() if category else None) == copy["failure_category"]
        assert result.failure_category_source == copy["failure_category_source"]
        assert result.failure_category_reason == copy["failure_category_reason"]
        if result.failure_category_source == "rule":  # legacy rows (no hints) classify as before
            reply = result.agent_output.response.content if result.agent_output else None
            again = classify_by_rules(
                DEFAULT_FAILURE_CATEGORIES, result.checks, reply, result.messages
            )
            assert again.category == category and again.reason == copy["failure_category_reason"]
        assert hub.evaluations.results.retrieve(result.id) == result
    raw = {r["id"]: r for r in hub.evaluations.results.iter_raw(evaluation.id)}
    for rid, copy in copies.items():
        checks = [{k: v for k, v in c.items() if k != "details"} for c in raw[rid]["checks"]]
        assert {k: raw[rid][k] for k in copy if k != "checks"} | {"checks": checks} == copy
    hub.close()


def test_frames_summary_and_comparison_of_the_release_results(old: Path) -> None:
    copies = _stored_copies()
    hub = Hub(old)
    (evaluation,) = hub.evaluations.list()
    frame = evaluation.to_dataframe()
    assert len(frame) == 12 and list(frame["status"].cat.categories) == [
        "pass",
        "fail",
        "error",
        "skip",
    ]
    by_id = frame.set_index("result_id")
    for rid, copy in copies.items():
        row = by_id.loc[rid]
        assert (
            row["n_checks"] == len(copy["checks"])
            and row["agent_output"] == (copy["agent_output"]["response"]["content"])
        )
        assert json.loads(row["messages"]) == copy["messages"]
        category = copy["failure_category"]
        assert (None if pd.isna(row["failure_category"]) else row["failure_category"]) == (
            category["identifier"] if category else None
        )
    pd.testing.assert_frame_equal(
        frame.sort_values("result_id").reset_index(drop=True),
        evaluation.results().to_dataframe().sort_values("result_id").reset_index(drop=True),
    )
    checks = evaluation.to_dataframe("checks")
    assert len(checks) == sum(len(c["checks"]) for c in copies.values())
    summary = evaluation.summary()
    assert (summary.total, summary.passed, summary.failed) == (12, 7, 5)
    assert {c.identifier: c.count for c in summary.by_category} == evaluation.failure_categories
    assert hub.evaluations.compare(evaluation.id, evaluation.id).counts() == {"unchanged": 12}
    hub.close()


def test_relabel_resume_and_a_new_evaluation_in_the_release_database(old: Path) -> None:
    hub = Hub(old)
    (evaluation,) = hub.evaluations.list()
    failed = evaluation.results(status="fail")[0]
    relabelled = hub.evaluations.results.relabel(failed.id, "hallucination")
    assert relabelled.failure_category.identifier == "hallucination"
    assert relabelled.checks == failed.checks and relabelled.status == "fail"
    assert hub.evaluations.retrieve(evaluation.id).failure_categories.get("hallucination")
    resumed = hub.evaluations.resume(evaluation.id, agent=support_agent, progress=False)
    assert resumed.status == "finished" and len(resumed.results()) == 12  # nothing was missing
    seen: list[Any] = []
    again = hub.evaluations.create_local(
        support_agent, evaluation.dataset_id, progress=False, on_result=seen.append
    )
    assert again.status == "finished" and sum(again.counts.values()) == 12
    assert sorted(r.id for r in seen) == sorted(r.id for r in again.results())
    comparison = hub.evaluations.compare(evaluation.id, again.id)
    assert sum(comparison.counts().values()) == 12
    assert len(again.to_dataframe()) == 12 and again.summary().total == 12
    hub.close()


def test_a_result_an_older_version_writes_after_the_upgrade_is_read_too(old: Path) -> None:
    """A process of the previous release that opened the file before the upgrade may still write
    results of schema 1 (no index columns): they read like the others."""
    release = sqlite3.connect(f"file:{RELEASE}?mode=ro", uri=True)
    row = release.execute("SELECT * FROM hub_evaluation_results LIMIT 1").fetchone()
    names = [d[0] for d in release.execute("SELECT * FROM hub_evaluation_results").description]
    release.close()
    hub = Hub(old)
    (evaluation,) = hub.evaluations.list()
    hub.evaluations.results.delete(dict(zip(names, row, strict=True))["id"])
    with sqlite3.connect(old) as conn:  # as the previous release writes it
        conn.execute(
            f"INSERT INTO hub_evaluation_results ({', '.join(names)}) "
            f"VALUES ({', '.join('?' * len(names))})",
            row,
        )
    late = hub.evaluations.results.retrieve(row[0])
    assert late.schema_version == 1 and late.checks and late.status in ("pass", "fail")
    frame = evaluation.to_dataframe()
    assert len(frame) == 12 and frame.set_index("result_id").loc[row[0], "n_checks"] == len(
        late.checks
    )
    assert len(list(hub.evaluations.results.iter_raw(evaluation.id))) == 12
    assert evaluation.summary().total == 12
    hub.close()
