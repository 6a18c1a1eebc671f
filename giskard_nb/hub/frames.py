"""DataFrames of Hub results (pandas is imported inside the functions).

``results_frame(rows, level="results")`` — one row per result:
  evaluation_id, result_id, test_case_id, status (Categorical pass/fail/error/skip), failure_category,
  failure_category_title, failure_category_source, question (the last user message), agent_output,
  agent_metadata (JSON), error, n_checks, n_failed_checks, duration_ms (float), prompt_tokens,
  completion_tokens, total_tokens, llm_calls, cost_usd (float), tags (JSON), messages (JSON),
  created_at (UTC).
``results_frame(rows, level="checks")`` — one row per check result:
  evaluation_id, result_id, test_case_id, result_status, check_name, check_kind, status, message,
  score and threshold (float, NaN when the check reports none), metrics (JSON), created_at (UTC).
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json

from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STATUSES", "audit_frame", "gc_paused", "results_frame", "status_column", "utc_column"]

STATUSES = ("pass", "fail", "error", "skip")

_RESULT_COLUMNS = [
    "evaluation_id",
    "result_id",
    "test_case_id",
    "status",
    "failure_category",
    "failure_category_title",
    "failure_category_source",
    "question",
    "agent_output",
    "agent_metadata",
    "error",
    "n_checks",
    "n_failed_checks",
    "duration_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "llm_calls",
    "cost_usd",
    "tags",
    "messages",
    "created_at",
]
_CHECK_COLUMNS = [
    "evaluation_id",
    "result_id",
    "test_case_id",
    "result_status",
    "check_name",
    "check_kind",
    "status",
    "message",
    "score",
    "threshold",
    "metrics",
    "created_at",
]


def _json(value: Any) -> str:
    return to_json(value, fallback=str).decode()


def status_column(values: Sequence[Any]) -> pd.Categorical:
    import pandas as pd

    return pd.Categorical(list(values), categories=list(STATUSES))


def utc_column(values: Sequence[Any]) -> pd.Series:
    import pandas as pd

    return pd.to_datetime(pd.Series(list(values), dtype=object), utc=True, format="ISO8601")


@contextmanager
def gc_paused():
    """Building 10^5 small dicts triggers many full garbage collections, each scanning the whole heap
    (slow when the session holds many objects): pause the collector while the frame is built."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def results_frame(rows: list[dict[str, Any]], level: str = "results") -> pd.DataFrame:
    """See the module docstring. ``rows``: stored results as JSON data (``model_dump(mode="json")``)."""
    if level not in ("results", "checks"):
        raise GiskardValidationError(f"level must be 'results' or 'checks', got {level!r}")
    with gc_paused():
        return _results_frame(rows, level)


def _results_frame(rows: list[dict[str, Any]], level: str) -> pd.DataFrame:
    import pandas as pd

    if level == "checks":
        records = [
            {
                "evaluation_id": row["evaluation_id"],
                "result_id": row["id"],
                "test_case_id": row["test_case_id"],
                "result_status": row["status"],
                "check_name": check["name"],
                "check_kind": check.get("kind"),
                "status": check["status"],
                "message": check.get("message"),
                "score": float("nan") if check.get("score") is None else float(check["score"]),
                "threshold": float("nan")
                if check.get("threshold") is None
                else float(check["threshold"]),
                "metrics": _json(check.get("metrics") or {}),
                "created_at": row["created_at"],
            }
            for row in rows
            for check in row.get("checks") or []
        ]
        df = pd.DataFrame(records, columns=_CHECK_COLUMNS)
        df["result_status"] = status_column(df["result_status"])
    else:
        df = pd.DataFrame([_result_record(row) for row in rows], columns=_RESULT_COLUMNS)
        for col in ("duration_ms", "cost_usd"):
            df[col] = df[col].astype(float)
        for col in ("n_checks", "n_failed_checks", "prompt_tokens", "completion_tokens"):
            df[col] = df[col].astype("int64")
        for col in ("total_tokens", "llm_calls"):
            df[col] = df[col].astype("int64")
    df["status"] = status_column(df["status"])
    df["created_at"] = utc_column(df["created_at"]).array
    return df


def _result_record(row: dict[str, Any]) -> dict[str, Any]:
    messages = row.get("messages") or []
    output = row.get("agent_output") or {}
    category = row.get("failure_category") or {}
    usage = row.get("usage") or {}
    checks = row.get("checks") or []
    question = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), None)
    return {
        "evaluation_id": row["evaluation_id"],
        "result_id": row["id"],
        "test_case_id": row["test_case_id"],
        "status": row["status"],
        "failure_category": category.get("identifier"),
        "failure_category_title": category.get("title"),
        "failure_category_source": row.get("failure_category_source"),
        "question": question,
        "agent_output": (output.get("response") or {}).get("content"),
        "agent_metadata": _json(output.get("metadata") or {}),
        "error": row.get("error"),
        "n_checks": len(checks),
        "n_failed_checks": sum(1 for c in checks if c["status"] in ("fail", "error")),
        "duration_ms": float(row.get("duration_ms") or 0.0),
        "prompt_tokens": int(usage.get("prompt_tokens", 0)),
        "completion_tokens": int(usage.get("completion_tokens", 0)),
        "total_tokens": int(usage.get("total_tokens", 0)),
        "llm_calls": int(usage.get("llm_calls", 0)),
        "cost_usd": float(usage.get("cost_usd", 0.0)),
        "tags": _json(row.get("tags") or []),
        "messages": _json(messages),
        "created_at": row["created_at"],
    }


def audit_frame(entries: Sequence[Any]) -> pd.DataFrame:
    """One row per audit entry; ``changes`` as JSON text."""
    import pandas as pd

    columns = [
        "created_at",
        "actor",
        "action",
        "entity_type",
        "entity_id",
        "project_id",
        "triggered_by",
        "changes",
    ]
    records = [
        {**{c: getattr(e, c) for c in columns[:-1]}, "changes": _json(e.changes)} for e in entries
    ]
    df = pd.DataFrame(records, columns=columns)
    df["created_at"] = utc_column(df["created_at"]).array
    return df
