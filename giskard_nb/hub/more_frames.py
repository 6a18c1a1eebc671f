"""DataFrames of knowledge bases, topics, documents, project scenarios, scheduled evaluations, tasks and
playground chats, and the topics chart (pandas and plotly are imported inside the functions).

Timestamps are UTC ``datetime64`` columns; lists and dicts are JSON text; categorical columns
(``status``, ``priority``, ``frequency``) are pandas Categoricals with every allowed value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.hub.frames import utc_column

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "chats_frame",
    "documents_frame",
    "knowledge_bases_frame",
    "scenarios_frame",
    "schedules_frame",
    "tasks_frame",
    "topics_figure",
    "topics_frame",
]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _frame(records: list[dict[str, Any]], columns: list[str], times: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    df = pd.DataFrame(records, columns=columns)
    for col in times:
        df[col] = utc_column(df[col]).array
    return df


def _categorical(df: pd.DataFrame, column: str, values: Sequence[str]) -> None:
    import pandas as pd

    df[column] = pd.Categorical(df[column], categories=list(values))


def knowledge_bases_frame(kbs: Sequence[Any]) -> pd.DataFrame:
    columns = [
        "knowledge_base_id", "project_id", "name", "description", "source", "n_source_documents",
        "n_documents", "n_topics", "skipped", "embedding_model", "topics_named_by", "created_at",
    ]  # fmt: skip
    records = [{"knowledge_base_id": k.id, **{c: getattr(k, c) for c in columns[1:]}} for k in kbs]
    return _frame(records, columns, ["created_at"])


def topics_frame(topics: Sequence[Any]) -> pd.DataFrame:
    columns = ["topic_id", "knowledge_base_id", "position", "name", "document_count", "keywords",
               "named_by"]  # fmt: skip
    records = [
        {
            "topic_id": t.id,
            "knowledge_base_id": t.knowledge_base_id,
            "position": t.position,
            "name": t.name,
            "document_count": t.document_count,
            "keywords": ", ".join(t.keywords),
            "named_by": t.named_by,
        }
        for t in topics
    ]
    return _frame(records, columns, [])


def documents_frame(documents: Sequence[Any], topic_names: Mapping[str, str]) -> pd.DataFrame:
    columns = ["document_id", "position", "topic_id", "topic_name", "content", "source_index",
               "chunk_index", "start", "end", "section", "metadata"]  # fmt: skip
    records = [
        {
            "document_id": d.id,
            "position": d.position,
            "topic_id": d.topic_id,
            "topic_name": topic_names.get(d.topic_id or ""),
            "content": d.content,
            "source_index": d.source_index,
            "chunk_index": d.chunk_index,
            "start": d.start,
            "end": d.end,
            "section": d.section,
            "metadata": _json(d.metadata),
        }
        for d in documents
    ]
    return _frame(records, columns, [])


def scenarios_frame(scenarios: Sequence[Any]) -> pd.DataFrame:
    columns = ["scenario_id", "project_id", "name", "description", "rules", "n_rules", "created_at"]
    records = [
        {
            "scenario_id": s.id,
            "project_id": s.project_id,
            "name": s.name,
            "description": s.description,
            "rules": _json(s.rules),
            "n_rules": len(s.rules),
            "created_at": s.created_at,
        }
        for s in scenarios
    ]
    return _frame(records, columns, ["created_at"])


def schedules_frame(schedules: Sequence[Any], now: Any) -> pd.DataFrame:
    columns = ["scheduled_evaluation_id", "project_id", "name", "agent_id", "dataset_id",
               "frequency", "schedule", "paused", "last_execution_at", "last_status",
               "last_evaluation_id", "next_run_at", "n_evaluations", "created_at"]  # fmt: skip
    records = []
    for s in schedules:
        status = s.last_execution_status
        records.append(
            {
                "scheduled_evaluation_id": s.id,
                "project_id": s.project_id,
                "name": s.name,
                "agent_id": s.agent_id,
                "dataset_id": s.dataset_id,
                "frequency": s.frequency,
                "schedule": s.schedule.describe(),
                "paused": s.paused,
                "last_execution_at": s.last_execution_at,
                "last_status": status.status if status else None,
                "last_evaluation_id": status.evaluation_id if status else None,
                "next_run_at": s.next_run_at(now),
                "n_evaluations": len(s.evaluation_ids),
                "created_at": s.created_at,
            }
        )
    df = _frame(records, columns, ["last_execution_at", "next_run_at", "created_at"])
    _categorical(df, "frequency", ("daily", "weekly", "monthly"))
    return df


def tasks_frame(tasks: Sequence[Any]) -> pd.DataFrame:
    columns = ["task_id", "project_id", "title", "description", "status", "priority", "assignees",
               "evaluation_id", "evaluation_result_id", "test_case_id", "scan_attempt_id",
               "created_by", "created_at", "updated_at"]  # fmt: skip
    records = [
        {
            "task_id": t.id,
            **{c: getattr(t, c) for c in columns[1:] if c != "assignees"},
            "assignees": ", ".join(t.assignees),
        }
        for t in tasks
    ]
    df = _frame(records, columns, ["created_at", "updated_at"])
    _categorical(df, "status", ("open", "in_progress", "resolved"))
    _categorical(df, "priority", ("low", "medium", "high"))
    return df


def chats_frame(chats: Sequence[Any]) -> pd.DataFrame:
    columns = ["chat_id", "project_id", "agent_id", "title", "user", "n_messages",
               "first_user_message", "last_reply", "messages", "created_at", "updated_at"]  # fmt: skip
    records = []
    for c in chats:
        users = [m.content for m in c.messages if m.role == "user"]
        replies = [m.content for m in c.messages if m.role == "assistant"]
        records.append(
            {
                "chat_id": c.id,
                "project_id": c.project_id,
                "agent_id": c.agent_id,
                "title": c.title,
                "user": c.user,
                "n_messages": len(c.messages),
                "first_user_message": users[0] if users else None,
                "last_reply": replies[-1] if replies else None,
                "messages": _json([m.model_dump() for m in c.messages]),
                "created_at": c.created_at,
                "updated_at": c.updated_at,
            }
        )
    return _frame(records, columns, ["created_at", "updated_at"])


def topics_figure(kb_name: str, topics: Sequence[Any]) -> Any:
    """Horizontal bars: documents per topic (largest on top), keywords on hover. Every label is
    escaped (topic names come from documents or a model)."""
    import plotly.graph_objects as go

    from giskard_nb.charts._style import empty_figure, label, layout

    title = f"Topics of {kb_name}"
    if not topics:
        return empty_figure(title, "This knowledge base has no topic.")
    ordered = sorted(topics, key=lambda t: (t.document_count, t.name))
    names = [label(t.name) for t in ordered]
    if len(set(names)) < len(names):  # two names cut to the same label: keep the bars apart
        names = [f"{n} ({t.position})" for n, t in zip(names, ordered, strict=True)]
    figure = go.Figure(
        go.Bar(
            x=[t.document_count for t in ordered],
            y=names,
            orientation="h",
            customdata=[
                [label(", ".join(t.keywords[:6]) or "-", 120), t.named_by] for t in ordered
            ],
            hovertemplate=(
                "<b>%{y}</b><br>%{x} document(s)<br>keywords: %{customdata[0]}"
                "<br>named by: %{customdata[1]}<extra></extra>"
            ),
            marker_color="#4c78a8",
        )
    )
    return layout(
        figure,
        title,
        xaxis_title="documents (chunks)",
        height=max(260, 40 * len(ordered) + 120),
        showlegend=False,
    )
