"""Human labels on the check verdicts of stored results (``hub.evaluations.results.label``): several
labelers, a labeler's second label replaces the first, audited, notes masked, listed and deleted; a
file of table layout 6 opens with an empty labels table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.migrate import TABLE_LAYOUT


def test_labels_of_several_labelers_are_listed_replaced_audited_and_deleted(
    hub: Hub, setup
) -> None:
    _, dataset = setup(hub)
    evaluation = hub.evaluations.create_local(lambda m: "Monday", dataset.id, progress=False)
    first, second, _ = evaluation.results()
    results = hub.evaluations.results
    ana = results.label(first.id, check="string_match", passed=True, labeler="ana")
    bob = results.label(
        first.id,
        check="string_match",
        passed=False,
        labeler="bob",
        note="leaks key sk-abcdefghijklmnopqrstuvwxyz0123456789",
    )
    results.label(second.id, check="string_match", passed=False)  # the Hub's actor by default
    assert "sk-abc" not in (bob.note or "") and "***" in (bob.note or "")
    again = results.label(first.id, check="string_match", passed=False, labeler="ana")
    assert again.id == ana.id and again.passed is False  # replaced, not added

    listed = results.labels(evaluation.id)
    assert len(listed) == 3 and {x.labeler for x in listed} == {"ana", "bob", hub.actor}
    assert [x.labeler for x in results.labels(result_id=first.id)] == ["ana", "bob"]
    assert results.labels(evaluation.id, check="other") == []
    frame = listed.to_dataframe()
    assert list(frame.columns)[:3] == ["id", "evaluation_id", "result_id"]
    assert frame["passed"].tolist().count(False) == 3
    actions = [(e.action, e.entity_type) for e in hub.audit.history(ana.id)]
    assert sorted(actions) == [("create", "result_label"), ("update", "result_label")]
    assert all("sk-abc" not in str(e.changes) for e in hub.audit.history(bob.id))

    results.delete_label(bob.id)
    assert [x.labeler for x in results.labels(result_id=first.id)] == ["ana"]
    assert hub.audit.history(bob.id)[-1].action == "delete"
    with pytest.raises(NotFoundError):
        results.delete_label(bob.id)
    hub.evaluations.delete(evaluation.id)  # the labels go with their evaluation
    assert results.labels() == []


def test_bad_labels_are_refused_clearly(mem_hub: Hub, setup) -> None:
    _, dataset = setup()
    evaluation = mem_hub.evaluations.create_local(lambda m: "x", dataset.id, progress=False)
    result = evaluation.results()[0]
    label = mem_hub.evaluations.results.label
    with pytest.raises(GiskardValidationError, match="no check named 'groundedness'.*string_match"):
        label(result.id, check="groundedness", passed=True)
    with pytest.raises(GiskardValidationError, match="passed must be True or False"):
        label(result.id, check="string_match", passed="yes")  # type: ignore[arg-type]
    with pytest.raises(GiskardValidationError, match="labeler: 1-200"):
        label(result.id, check="string_match", passed=True, labeler="")
    with pytest.raises(NotFoundError):
        label("no-such-result", check="string_match", passed=True)


def test_a_file_of_table_layout_6_opens_with_no_labels(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(str(path))
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(project.id, [{"question": "hi"}], name="d")
    hub.evaluations.create_local(lambda m: "hello", dataset.id, progress=False)
    hub.close()
    with sqlite3.connect(path) as conn:  # the file as table layout 6 left it: no labels table
        conn.execute("DROP TABLE hub_result_labels")
        conn.execute("UPDATE hub_meta SET value = '6' WHERE key = 'table_layout'")
    hub = Hub(str(path))
    try:
        with hub._db.read() as conn:
            layout = conn.execute(
                sa.select(schema.meta.c.value).where(schema.meta.c.key == "table_layout")
            ).scalar()
            assert conn.execute(sa.select(sa.func.count()).select_from(schema.result_labels))
        assert int(layout) == TABLE_LAYOUT == 8
        assert hub.evaluations.results.labels() == []
    finally:
        hub.close()
