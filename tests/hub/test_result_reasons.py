"""A Hub result's reason (``EvaluationResult.reason``): stored in its index column, in the results
frame and its CSV export, in ``iter_raw`` and ``model_dump``; ``error`` filled for a check that errored;
a row written before the column existed is read through its model."""

from __future__ import annotations

import sqlalchemy as sa

from giskard_nb.core.testcase import NO_CHECKS
from giskard_nb.frames import write_frame
from giskard_nb.hub import Hub, schema
from giskard_nb.hub.models.evaluation_result import EvaluationResult
from giskard_nb.llm.settings import NO_MODEL_MESSAGE

ITEMS = [
    {
        "messages": "refunds?",
        "checks": [{"identifier": "string_match", "params": {"keyword": "ok"}}],
    },
    {"messages": "judge?", "checks": [{"identifier": "correctness", "params": {"reference": "x"}}]},
    {"messages": "nothing?"},
    {"messages": "fine?", "checks": [{"identifier": "string_match", "params": {"keyword": "="}}]},
]


def _evaluation(hub: Hub):
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(project.id, ITEMS, name="d")
    return hub.evaluations.create_local(lambda m: "=cmd\nno", dataset.id, progress=False)


def test_the_reason_of_each_result_everywhere(mem_hub: Hub, tmp_path) -> None:
    evaluation = _evaluation(mem_hub)
    results = evaluation.results()
    assert [r.status for r in results] == ["fail", "error", "skip", "pass"]
    failing, erroring, skipped, passing = results
    assert failing.reason == "string_match: The text does not contain the keyword 'ok'."
    assert erroring.reason == f"correctness: {NO_MODEL_MESSAGE}"  # not "error": the real message
    assert erroring.error == erroring.reason and failing.error is None
    assert skipped.reason == NO_CHECKS and passing.reason is None

    frame = evaluation.to_dataframe()
    assert frame["reason"].tolist()[:3] == [failing.reason, erroring.reason, NO_CHECKS]
    assert frame["error"].tolist()[1] == erroring.reason
    assert frame.equals(results.to_dataframe())  # from the index columns and from the models

    raw = list(mem_hub.evaluations.results.iter_raw(evaluation.id))
    assert [r["reason"] for r in raw] == [r.reason for r in results]
    dump = erroring.model_dump()
    assert dump["reason"] == erroring.reason
    assert EvaluationResult.model_validate(dump).reason == erroring.reason  # derived, not stored

    csv = write_frame(frame, tmp_path / "results.csv").read_text(encoding="utf-8")
    assert csv.count("no judge model is configured") == 2  # its error and reason cells
    assert "'=cmd" in csv  # the agent's formula-looking reply is escaped as before


def _forget_reasons(hub: Hub, evaluation_id: str) -> None:
    """The rows as an older version wrote them: no reason, no error for a check that errored."""
    t = schema.results
    with hub._db.write() as conn:
        conn.execute(
            sa.update(t).where(t.c.evaluation_id == evaluation_id).values(reason=None, error=None)
        )


def test_a_row_without_a_stored_reason_is_read_through_its_model(mem_hub: Hub) -> None:
    evaluation = _evaluation(mem_hub)
    _forget_reasons(mem_hub, evaluation.id)  # rows an older version writes meanwhile
    frame = evaluation.to_dataframe()
    assert frame["reason"].tolist()[0] == (
        "string_match: The text does not contain the keyword 'ok'."
    )
    assert frame["reason"].tolist()[2] == NO_CHECKS
    assert frame["error"].tolist()[1].startswith("correctness: no judge model")
    raw = list(mem_hub.evaluations.results.iter_raw(evaluation.id))
    assert raw[1]["reason"] == raw[1]["error"] == frame["error"].tolist()[1]


def test_opening_an_older_file_stores_the_reasons_once(tmp_path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(str(path))
    evaluation = _evaluation(hub)
    expected = [r.reason for r in evaluation.results()]
    _forget_reasons(hub, evaluation.id)
    with hub._db.write() as conn:  # the file as table layout 4 left it
        conn.execute(
            sa.update(schema.meta).where(schema.meta.c.key == "table_layout").values(value="4")
        )
    hub.close()
    hub = Hub(str(path))
    try:
        with hub._db.read() as conn:
            t = schema.results
            stored = conn.execute(sa.select(t.c.reason, t.c.error).order_by(t.c.created_at, t.c.id))
            rows = stored.all()
        assert [r.reason for r in rows] == expected
        assert rows[1].error == expected[1]
    finally:
        hub.close()
