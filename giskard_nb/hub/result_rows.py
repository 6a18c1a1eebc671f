"""How an evaluation result is stored, and the plain views read back from its row.

A result's row holds its ids and ``status``/``failure_category`` (filters), the ``ScenarioResult`` as
JSON (encoded once, by pydantic's serializer; without its computed fields), the conversation as JSON, ``data`` (the failure
category and the few Hub fields) and the *index columns* (``schema.result_index_columns``): what the
DataFrame and the summaries read, extracted here when the result is written. Text with a lone
surrogate (which JSON readers refuse) is stored with U+FFFD in its place.

Reading back, ``raw_view`` gives the plain-dict shape of a result (``hub.evaluations.results.iter_raw``)
without building a pydantic model; the results DataFrame reads ``FRAME_COLUMNS`` as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticSerializationError, from_json, to_json, to_jsonable_python

from giskard_nb.core.reply import last_user_content
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.sanitize import valid_unicode_data
from giskard_nb.core.usage import USAGE_METRICS, Usage
from giskard_nb.hub.models.base import SCHEMA_VERSION
from giskard_nb.hub.models.evaluation_result import EvaluationResult, check_view
from giskard_nb.hub.result_columns import RESULT_COLUMNS

__all__ = [
    "FRAME_COLUMNS",
    "check_rows",
    "check_views",
    "encode_json",
    "frame_row",
    "index_values",
    "raw_view",
    "read_model",
    "result_row",
    "stored_calls",
    "trajectory_json",
]

#: The stored columns of one row of the results DataFrame, in the frame's order, as the Hub declares
#: them (``giskard_nb.hub.result_columns``): read as they are, no JSON parsed.
FRAME_COLUMNS = tuple(c.name for c in RESULT_COLUMNS)
_FAILED = frozenset({"fail", "error"})


def encode_json(value: Any) -> str:
    """Compact JSON text (unknown objects as their ``str``; lone surrogates replaced)."""
    try:
        return to_json(value, fallback=str).decode()
    except PydanticSerializationError:  # a lone surrogate: JSON readers refuse it
        plain = to_jsonable_python(value, fallback=str)
        return to_json(valid_unicode_data(plain), fallback=str).decode()


def _scenario_json(result: EvaluationResult) -> str:
    """The ScenarioResult's fields as JSON; its computed fields (statuses, ``Trace.last``) are left
    out: they are recomputed when it is read."""
    scenario = result.scenario_result
    try:
        return scenario.model_dump_json(exclude_computed_fields=True, fallback=str)
    except PydanticSerializationError:  # a lone surrogate in a check's message, a reply...
        dump = scenario.model_dump(mode="json", exclude_computed_fields=True, fallback=str)
        return to_json(valid_unicode_data(dump), fallback=str).decode()


def index_values(result: EvaluationResult, status: CheckStatus | None = None) -> dict[str, Any]:
    """The index columns of ``result`` (see the module docstring), as stored (``status``: its
    ScenarioResult's, when the caller has it already)."""
    scenario = result.scenario_result
    status = scenario.status if status is None else status
    interactions = scenario.final_trace.interactions
    last = interactions[-1] if interactions else None
    checks = [r for step in scenario.steps for r in step.results]
    usage = _usage(checks, result.failure_category_usage)
    question = last_user_content(result.messages)
    reply = None if last is None else last.outputs
    metadata = None if last is None else last.metadata
    category = result.failure_category
    reason = None if status is CheckStatus.PASS else scenario.reason  # a pass has none
    tags = scenario.tags
    return {
        "failure_category_title": None if category is None else category.title,
        "failure_category_source": result.failure_category_source,
        "question": question,
        "agent_output": reply if reply is None or isinstance(reply, str) else str(reply),
        "agent_metadata": encode_json(metadata) if metadata else "{}",
        "error": scenario.error or (reason if status is CheckStatus.ERROR else None),
        "reason": reason,
        "n_checks": len(checks),
        "n_failed_checks": sum(1 for c in checks if c.status in _FAILED),
        "duration_ms": float(scenario.duration_ms),
        **usage,
        "tags": encode_json(tags) if tags else "[]",
        "messages": encode_json(result.messages),  # [{"role", "content"}, ...]
        "tool_calls": trajectory_json(scenario.final_trace),
    }


def trajectory_json(trace: Any) -> str:
    """The tool calls of a trace (``Trace.tool_calls``: ``turn`` set) as compact JSON, without the
    fields left unset (``[]`` when the agent called no tool)."""
    if not any(i.tool_calls for i in trace.interactions):
        return "[]"
    return encode_json([c.model_dump(mode="json", exclude_defaults=True) for c in trace.tool_calls])


def stored_calls(value: str | None) -> list[dict[str, Any]]:
    """The stored trajectory of a result as a list of call dicts (``[]`` for a row written before
    the column existed: NULL)."""
    if not value:
        return []
    calls = from_json(value)
    return calls if isinstance(calls, list) else []


def _usage(checks: list[Any], classifier: Any) -> dict[str, Any]:
    """``EvaluationResult.usage`` as the index columns (summed here: no model built per result)."""
    totals = {k: getattr(classifier, k) for k in USAGE_METRICS}
    spent = [m for check in checks for m in check.metrics if m.name in totals]
    if not spent:  # the common case: rule checks, no classifier call
        return totals
    for metric in spent:
        totals[metric.name] += metric.value
    return {k: float(v) if k == "cost_usd" else int(v) for k, v in totals.items()}


def _data(result: EvaluationResult) -> str:
    if (
        result.failure_category is None
        and result.failure_category_source is None
        and result.failure_category_reason is None
        and result.failure_category_usage.__dict__ == _NO_USAGE.__dict__  # (pydantic's == is slow)
    ):
        return _unlabelled_data(result.reply_role)  # most results: encoded once per reply role
    return encode_json(
        {
            "failure_category": result.failure_category,
            "failure_category_source": result.failure_category_source,
            "failure_category_reason": result.failure_category_reason,
            "failure_category_usage": result.failure_category_usage,
            "reply_role": result.reply_role,
        }
    )


_NO_USAGE = Usage()


@functools.cache
def _unlabelled_data(reply_role: str) -> str:
    """The ``data`` of a result the classifier did not label (no LLM call spent)."""
    return encode_json(
        {
            "failure_category": None,
            "failure_category_source": None,
            "failure_category_reason": None,
            "failure_category_usage": _NO_USAGE,
            "reply_role": reply_role,
        }
    )


def result_row(result: EvaluationResult) -> dict[str, Any]:
    """The table row of ``result`` (every column of ``schema.results``)."""
    category = result.failure_category
    status = result.scenario_result.status
    return {
        "id": result.id,
        "schema_version": SCHEMA_VERSION,
        "created_at": result.created_at,
        "updated_at": result.updated_at,
        "evaluation_id": result.evaluation_id,
        "test_case_id": result.test_case_id,
        "repeat": result.repeat,
        "status": status.value,
        "failure_category": category.identifier if category else None,
        "scenario_result": _scenario_json(result),
        "data": _data(result),
        **index_values(result, status),
    }


def frame_row(
    result: EvaluationResult, columns: tuple[str, ...] = FRAME_COLUMNS, **stored: Any
) -> tuple[Any, ...]:
    """The ``columns`` (the ``FRAME_COLUMNS`` or some of them) of a result in memory: what its
    stored row holds; ``stored`` gives values read from the row instead (``created_at`` as the
    driver gives it)."""
    category = result.failure_category
    row = {
        "evaluation_id": result.evaluation_id,
        "id": result.id,
        "test_case_id": result.test_case_id,
        "repeat": result.repeat,
        "status": result.status,
        "failure_category": category.identifier if category else None,
        "created_at": result.created_at,
        **index_values(result),
        **stored,
    }
    return tuple(row[c] for c in columns)


def check_rows(
    ids: tuple[str, str, str, str], checks: list[dict[str, Any]], created_at: Any
) -> list[tuple[Any, ...]]:
    """The rows of the checks' DataFrame of one result: ``ids`` are its evaluation id, id, test case
    id and status; ``checks`` its ``check_views``."""
    return [
        (
            *ids,
            c["name"],
            c.get("kind"),
            c["status"],
            c.get("message"),
            c.get("score"),
            c.get("threshold"),
            encode_json(c.get("metrics") or {}),
            created_at,
        )
        for c in checks
    ]


def check_views(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``CheckOutcome`` fields of every check result of a stored ScenarioResult (parsed JSON)."""
    views = []
    for step in scenario.get("steps") or ():
        for r in step.get("results") or ():
            metrics = {m["name"]: m["value"] for m in r.get("metrics") or ()}
            views.append(check_view(r["status"], r.get("message"), metrics, r.get("details") or {}))
    return views


def raw_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored result as plain JSON data in the shape of ``EvaluationResult.model_dump(mode="json")``
    (without ``scenario_result`` and ``updated_at``), from a row with every column but
    ``updated_at``."""
    data = from_json(row["data"])
    if row["n_checks"] is None or (row["reason"] is None and row["status"] != "pass"):
        # written by an older version (no index columns, or no reason): read through the model
        return _raw_from_model(row, data)
    scenario = from_json(row["scenario_result"])
    interactions = (scenario.get("final_trace") or {}).get("interactions") or []
    last = interactions[-1] if interactions else None
    output = None
    if last is not None:
        reply = {"role": data.get("reply_role", "assistant"), "content": row["agent_output"]}
        output = {"response": reply, "metadata": last.get("metadata") or {}}
    spent = {k: row[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    return {
        "id": row["id"],
        "evaluation_id": row["evaluation_id"],
        "test_case_id": row["test_case_id"],
        "repeat": row.get("repeat") or 0,
        "status": row["status"],
        "created_at": row["created_at"],
        "messages": from_json(row["messages"]),
        "tags": from_json(row["tags"]),
        "agent_output": output,
        "error": row["error"],
        "reason": row["reason"],
        "checks": check_views(scenario),
        "failure_category": data.get("failure_category"),
        "failure_category_source": data.get("failure_category_source"),
        "failure_category_reason": data.get("failure_category_reason"),
        "duration_ms": row["duration_ms"],
        "usage": {**spent, "cost_usd": row["cost_usd"], "llm_calls": row["llm_calls"]},
        "tool_calls": stored_calls(row.get("tool_calls")),
    }


def _raw_from_model(row: Mapping[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    result = read_model(row, data)
    dump = result.model_dump(mode="json", exclude={"scenario_result", "updated_at"})
    calls = from_json(trajectory_json(result.scenario_result.final_trace))
    return {**dump, "created_at": row["created_at"], "tool_calls": calls}


def read_model(row: Mapping[str, Any], data: dict[str, Any] | None = None) -> EvaluationResult:
    """The ``EvaluationResult`` of a stored row (any schema version this one reads)."""
    fields = dict(from_json(row["data"]) if data is None else data)
    if row.get("messages") is not None:
        fields["messages"] = from_json(row["messages"])
    for key in ("id", "schema_version", "created_at", "evaluation_id"):
        fields[key] = row[key]
    fields["updated_at"] = row.get("updated_at") or row["created_at"]  # iter_raw does not read it
    fields["test_case_id"] = row["test_case_id"]
    fields["repeat"] = row.get("repeat") or 0
    fields["scenario_result"] = from_json(row["scenario_result"])
    return EvaluationResult.model_validate(fields)
