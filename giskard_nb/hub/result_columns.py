"""The Hub's declaration of the stored columns of an evaluation result that its DataFrame reads.

One entry per column, in the DataFrame's order (``giskard_nb.frames.hub_results`` reads this table
and names the ``id`` column ``result_id``). ``kind`` is how the column is stored and read: ``text``,
``integer``, ``float``, ``status`` (pass/fail/error/skip) or ``datetime`` (UTC). ``index`` marks
the *index columns*: extracted when a result is written (``hub.result_rows.index_values``) and
nullable, so that an older database gains them empty (``giskard_nb.hub.migrate``); the others are
the row's own columns (``giskard_nb.hub.schema.results``).

To store a new field of a result and show it in the DataFrame: add its entry here (the table gains
the column, the frame reads it with its kind's dtype), its value in ``index_values``, raise
``hub.migrate.TABLE_LAYOUT`` (so that an older file gains the column, empty) and name it in
docs/hub.md ("Results as DataFrames").
"""

from __future__ import annotations

from typing import Literal, NamedTuple

__all__ = ["RESULT_COLUMNS", "ResultColumn"]

Kind = Literal["text", "integer", "float", "status", "datetime"]


class ResultColumn(NamedTuple):
    """A stored column of an evaluation result: its name in the table, its kind, and whether it is
    an index column (see the module docstring)."""

    name: str
    kind: Kind
    index: bool = True


RESULT_COLUMNS: tuple[ResultColumn, ...] = (
    ResultColumn("evaluation_id", "text", index=False),
    ResultColumn("id", "text", index=False),
    ResultColumn("test_case_id", "text", index=False),
    ResultColumn("repeat", "integer", index=False),  # 0..k-1 with repeats=k (layout 8)
    ResultColumn("status", "status", index=False),
    ResultColumn("failure_category", "text", index=False),  # its identifier
    ResultColumn("failure_category_title", "text"),
    ResultColumn("failure_category_source", "text"),  # llm, rule or user
    ResultColumn("question", "text"),  # the last user message
    ResultColumn("agent_output", "text"),
    ResultColumn("agent_metadata", "text"),  # JSON
    ResultColumn("error", "text"),  # the agent's error, else the first erroring check's
    ResultColumn("reason", "text"),  # core.reasons.case_reason; empty when it passed
    ResultColumn("n_checks", "integer"),
    ResultColumn("n_failed_checks", "integer"),
    ResultColumn("duration_ms", "float"),
    ResultColumn("prompt_tokens", "integer"),
    ResultColumn("completion_tokens", "integer"),
    ResultColumn("total_tokens", "integer"),
    ResultColumn("llm_calls", "integer"),
    ResultColumn("cost_usd", "float"),
    ResultColumn("tags", "text"),  # JSON
    ResultColumn("messages", "text"),  # JSON: [{"role", "content"}, ...]
    ResultColumn("tool_calls", "text"),  # JSON: the trajectory, [{"name", "arguments", "turn"...}]
    ResultColumn("created_at", "datetime", index=False),
)
