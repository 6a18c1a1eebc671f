"""DataFrames of the Hub's records: the audit log, two evaluations compared, knowledge bases, topics, documents, project scenarios,
scheduled evaluations, tasks and playground chats (pandas is imported inside the functions).

Each function takes the records (any objects with the Hub records' attributes: this module imports
nothing of the Hub). Timestamps are UTC ``datetime64`` columns; lists and dicts are JSON text; the
categorical columns (``status``, ``priority``, ``frequency``) are pandas Categoricals with every
allowed value. The Hub's evaluation results are framed by ``giskard_nb.frames.hub_results``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.frames._common import json_cell, status_values, utc_timestamps

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "audit_frame",
    "chats_frame",
    "comparison_frame",
    "documents_frame",
    "knowledge_bases_frame",
    "scenarios_frame",
    "schedules_frame",
    "tasks_frame",
    "topics_frame",
]


def _frame(records: list[dict[str, Any]], columns: list[str], times: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    df = pd.DataFrame(records, columns=columns)
    for col in times:
        df[col] = utc_timestamps(df[col]).array
    return df


def _categorical(df: pd.DataFrame, column: str, values: Sequence[str]) -> None:
    import pandas as pd

    df[column] = pd.Categorical(df[column], categories=list(values))


def audit_frame(entries: Sequence[Any]) -> pd.DataFrame:
    """One row per audit entry; ``changes`` as JSON text."""
    columns = ["created_at", "actor", "action", "entity_type", "entity_id", "project_id",
               "triggered_by", "changes"]  # fmt: skip
    records = [
        {**{c: getattr(e, c) for c in columns[:-1]}, "changes": json_cell(e.changes)}
        for e in entries
    ]
    return _frame(records, columns, ["created_at"])


def comparison_frame(cases: Sequence[Any]) -> pd.DataFrame:
    """One row per test case of two evaluations compared: ids, question, ``before`` and ``after``
    (status Categoricals of the case's verdict, missing when the case has no result in that run),
    change, categories, and per side its number of runs and pass fraction (float, NaN when none
    was judged)."""
    import pandas as pd

    columns = ["test_case_id", "question", "before", "after", "change", "category_before",
               "category_after", "before_runs", "after_runs", "before_fraction",
               "after_fraction"]  # fmt: skip
    df = pd.DataFrame([{**c.model_dump(), "change": c.change} for c in cases], columns=columns)
    df["before"] = status_values(c.before for c in cases)
    df["after"] = status_values(c.after for c in cases)
    df = df.astype({"before_runs": "int64", "after_runs": "int64"})
    return df.astype({"before_fraction": "float64", "after_fraction": "float64"})


def knowledge_bases_frame(kbs: Sequence[Any]) -> pd.DataFrame:
    """One row per knowledge base: its counts, models and creation time."""
    columns = [
        "knowledge_base_id", "project_id", "name", "description", "source", "n_source_documents",
        "n_documents", "n_topics", "skipped", "embedding_model", "topics_named_by", "created_at",
    ]  # fmt: skip
    records = [{"knowledge_base_id": k.id, **{c: getattr(k, c) for c in columns[1:]}} for k in kbs]
    return _frame(records, columns, ["created_at"])


def topics_frame(topics: Sequence[Any]) -> pd.DataFrame:
    """One row per topic of a knowledge base; ``keywords`` comma-separated."""
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
    """One row per document (chunk), with its topic's name; ``metadata`` as JSON text."""
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
            "metadata": json_cell(d.metadata),
        }
        for d in documents
    ]
    return _frame(records, columns, [])


def scenarios_frame(scenarios: Sequence[Any]) -> pd.DataFrame:
    """One row per project scenario; ``rules`` as JSON text."""
    columns = ["scenario_id", "project_id", "name", "description", "rules", "n_rules", "created_at"]
    records = [
        {
            "scenario_id": s.id,
            "project_id": s.project_id,
            "name": s.name,
            "description": s.description,
            "rules": json_cell(s.rules),
            "n_rules": len(s.rules),
            "created_at": s.created_at,
        }
        for s in scenarios
    ]
    return _frame(records, columns, ["created_at"])


def schedules_frame(schedules: Sequence[Any], now: Any) -> pd.DataFrame:
    """One row per scheduled evaluation: its timing, last run and next run after ``now``."""
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
    """One row per task; ``assignees`` comma-separated, ``status`` and ``priority`` Categoricals."""
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
    """One row per playground chat: first question, last reply, and every message as JSON text."""
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
                "messages": json_cell([m.model_dump() for m in c.messages]),
                "created_at": c.created_at,
                "updated_at": c.updated_at,
            }
        )
    return _frame(records, columns, ["created_at", "updated_at"])
