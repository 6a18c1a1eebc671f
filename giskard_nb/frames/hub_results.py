"""DataFrames of Hub evaluation results, built from plain column data (pandas is imported inside).

``results_frame(records)`` — one row per result:
  evaluation_id, result_id, test_case_id, status (Categorical pass/fail/error/skip), failure_category,
  failure_category_title, failure_category_source, question (the last user message), agent_output,
  agent_metadata (JSON), error (why it errored: the agent's error, else the first erroring check),
  reason (why it did not pass, ``giskard_nb.core.reasons.case_reason``; empty when it passed),
  n_checks, n_failed_checks, duration_ms (float), prompt_tokens, completion_tokens, total_tokens,
  llm_calls, cost_usd (float), tags (JSON), messages (JSON), created_at (UTC).
``checks_frame(records)`` — one row per check result:
  evaluation_id, result_id, test_case_id, result_status, check_name, check_kind, status, message,
  score and threshold (float, NaN when the check reports none), metrics (JSON), created_at (UTC).

The rows are plain sequences of values in column order (the Hub reads them straight from its index
columns, ``giskard_nb.hub.result_rows``): this module knows nothing of the Hub's storage. Rows are
turned into columns at C speed (``zip``), the frame's strings are the rows' own (no copies), and the
garbage collector is paused meanwhile (``giskard_nb.core.collector.paused``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.collector import paused
from giskard_nb.frames._common import STATUSES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CHECK_COLUMNS", "RESULT_COLUMNS", "checks_frame", "results_frame"]

RESULT_COLUMNS = (
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
    "reason",
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
)
CHECK_COLUMNS = (
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
)
_INTEGERS = (
    "n_checks",
    "n_failed_checks",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "llm_calls",
)
_FLOATS = ("duration_ms", "cost_usd", "score", "threshold")


def results_frame(
    rows: Iterable[Sequence[Any]], *, same: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """One row per result; each of ``rows`` holds the values of ``RESULT_COLUMNS``, in that order,
    but for the columns given in ``same`` (one value for every row, such as the evaluation id)."""
    return _frame(
        rows, RESULT_COLUMNS, status_columns=("status",), integers=_INTEGERS, same=same or {}
    )


def checks_frame(rows: Iterable[Sequence[Any]]) -> pd.DataFrame:
    """One row per check result; each of ``rows`` holds the values of ``CHECK_COLUMNS``."""
    return _frame(
        rows, CHECK_COLUMNS, status_columns=("status", "result_status"), integers=(), same={}
    )


def _frame(
    rows: Iterable[Sequence[Any]],
    names: tuple[str, ...],
    *,
    status_columns: tuple[str, ...],
    integers: tuple[str, ...],
    same: Mapping[str, Any],
) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    with paused():
        gathered = list(rows)
        stored = [name for name in names if name not in same]
        columns = list(zip(*gathered, strict=True)) if gathered else [() for _ in stored]
        by_name = dict(zip(stored, columns, strict=True))
        by_name.update({name: [value] * len(gathered) for name, value in same.items()})
        del gathered, columns
        data: dict[str, Any] = {}
        for name in names:
            values = by_name.pop(name)
            if name in status_columns:
                data[name] = _statuses(values)
            elif name in integers:
                data[name] = np.array(values, dtype="int64")
            elif name in _FLOATS:
                data[name] = np.array([np.nan if v is None else v for v in values], dtype=float)
            elif name == "created_at":  # datetimes, or ISO text (naive: UTC)
                data[name] = pd.to_datetime(
                    pd.Series(values, dtype=object), utc=True, format="ISO8601"
                ).array
            elif (
                values
            ):  # text: pandas infers its dtype from the values (as for any frame of records)
                data[name] = list(values)
            else:  # no rows: a text column all the same, not float
                data[name] = np.array([], dtype=object)
            del values
        return pd.DataFrame(data, columns=list(names))


def _statuses(values: Sequence[Any]) -> pd.Categorical:
    import pandas as pd

    codes = {s: i for i, s in enumerate(STATUSES)}
    return pd.Categorical.from_codes([codes[v] for v in values], categories=list(STATUSES))
