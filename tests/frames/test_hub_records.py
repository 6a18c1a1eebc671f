"""``giskard_nb.frames.hub_records`` frames any objects with the Hub records' attributes (no Hub needed)."""

from datetime import UTC, datetime
from types import SimpleNamespace as NS

from giskard_nb.charts import plot_topics
from giskard_nb.frames.hub_records import audit_frame, documents_frame, tasks_frame


def test_tasks_frame_types_its_columns_from_plain_objects() -> None:
    naive = datetime(2024, 1, 2, 3)
    task = NS(id="t1", project_id="p", title="fix", description="", status="open", priority="high",
              assignees=["ana", "bo"], evaluation_id=None, evaluation_result_id=None,
              test_case_id=None, scan_attempt_id=None, created_by="me", created_at=naive,
              updated_at=None)  # fmt: skip
    df = tasks_frame([task])
    assert list(df.columns[:7]) == ["task_id", "project_id", "title", "description", "status",
                                    "priority", "assignees"]  # fmt: skip
    assert list(df["status"].cat.categories) == ["open", "in_progress", "resolved"]
    assert df.loc[0, "assignees"] == "ana, bo"
    assert str(df["created_at"].dt.tz) == "UTC" and df.loc[0, "created_at"].hour == 3
    assert df["updated_at"].isna().all()


def test_json_cells_keep_text_readable() -> None:
    entry = NS(created_at=datetime(2024, 1, 2, tzinfo=UTC), actor="a", action="update",
               entity_type="agent", entity_id="i", project_id=None, triggered_by=None,
               changes={"name": {"before": "é", "after": "<b>"}})  # fmt: skip
    assert audit_frame([entry]).loc[0, "changes"] == ('{"name": {"before": "é", "after": "<b>"}}')
    doc = NS(id="d", position=0, topic_id=None, content="x", source_index=0, chunk_index=0,
             start=0, end=1, section=None, metadata={})  # fmt: skip
    row = documents_frame([doc], {}).iloc[0]
    assert row["metadata"] == "{}" and row["topic_name"] is None


def test_plot_topics_escapes_names_and_orders_by_size() -> None:
    topics = [
        NS(name="<script>", position=0, document_count=5, keywords=["a"], named_by="model"),
        NS(name="small", position=1, document_count=1, keywords=[], named_by="keywords"),
    ]
    bar = plot_topics("kb", topics).data[0]
    assert list(bar.x) == [1, 5] and "<script>" not in "".join(bar.y)
    assert plot_topics("kb", []).layout.title.text.startswith("Topics of kb")
