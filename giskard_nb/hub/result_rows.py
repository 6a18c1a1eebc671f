"""How an evaluation result is stored, and the plain views read back from its row.

A result's row holds its ids and ``status``/``failure_category`` (filters), the ``ScenarioResult`` as
JSON (encoded once, by pydantic's serializer), the conversation as JSON, ``data`` (the failure
category and the few Hub fields) and the *index columns* (``schema.result_index_columns``): what the
DataFrame and the summaries read, extracted here when the result is written. Text with a lone
surrogate (which JSON readers refuse) is stored with U+FFFD in its place.

Reading back, ``raw_view`` gives the plain-dict shape of a result (``hub.evaluations.results.iter_raw``)
and ``frame_record`` one row of the results DataFrame, both without building pydantic models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticSerializationError, from_json, to_json

from giskard_nb.core.sanitize import valid_unicode_data
from giskard_nb.hub.models.base import SCHEMA_VERSION
from giskard_nb.hub.models.evaluation_result import EvaluationResult, check_view

__all__ = [
    "FRAME_FIELDS",
    "check_views",
    "encode_json",
    "frame_record",
    "index_values",
    "raw_view",
    "result_row",
]

#: The fields of one row of the results DataFrame taken from the index columns, in frame order.
FRAME_FIELDS = (
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
)
_FAILED = frozenset({"fail", "error"})
_TRACE_LAST = {"final_trace": {"last"}}  # repeats the last interaction: left out of storage


def encode_json(value: Any) -> str:
    """Compact JSON text (unknown objects as their ``str``; lone surrogates replaced)."""
    try:
        return to_json(value, fallback=str).decode()
    except PydanticSerializationError:  # a lone surrogate: JSON readers refuse it
        return to_json(valid_unicode_data(value), fallback=str).decode()


def _scenario_json(result: EvaluationResult) -> str:
    scenario = result.scenario_result
    try:
        return scenario.model_dump_json(exclude=_TRACE_LAST, fallback=str)
    except PydanticSerializationError:  # a lone surrogate in a check's message, a reply...
        dump = scenario.model_dump(mode="json", exclude=_TRACE_LAST, fallback=str)
        return to_json(valid_unicode_data(dump), fallback=str).decode()


def index_values(result: EvaluationResult) -> dict[str, Any]:
    """The index columns of ``result`` (see the module docstring), as stored."""
    scenario = result.scenario_result
    last = scenario.final_trace.last
    checks = scenario.check_results
    usage = result.usage
    question = next((m.content for m in reversed(result.messages) if m.role == "user"), None)
    reply = None if last is None else last.outputs
    return {
        "question": question,
        "agent_output": reply if reply is None or isinstance(reply, str) else str(reply),
        "agent_metadata": encode_json(last.metadata if last is not None else {}),
        "error": scenario.error,
        "n_checks": len(checks),
        "n_failed_checks": sum(1 for c in checks if c.status.value in _FAILED),
        "duration_ms": float(scenario.duration_ms),
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "llm_calls": usage.llm_calls,
        "cost_usd": float(usage.cost_usd),
        "tags": encode_json(list(scenario.tags)),
        "messages": encode_json([{"role": m.role, "content": m.content} for m in result.messages]),
    }


def _data(result: EvaluationResult) -> str:
    category = result.failure_category
    return encode_json(
        {
            "failure_category": None if category is None else category.model_dump(),
            "failure_category_source": result.failure_category_source,
            "failure_category_reason": result.failure_category_reason,
            "failure_category_usage": result.failure_category_usage.model_dump(),
            "reply_role": result.reply_role,
        }
    )


def result_row(result: EvaluationResult) -> dict[str, Any]:
    """The table row of ``result`` (every column of ``schema.results``)."""
    category = result.failure_category
    return {
        "id": result.id,
        "schema_version": SCHEMA_VERSION,
        "created_at": result.created_at,
        "updated_at": result.updated_at,
        "evaluation_id": result.evaluation_id,
        "test_case_id": result.test_case_id,
        "status": result.scenario_result.status.value,
        "failure_category": category.identifier if category else None,
        "scenario_result": _scenario_json(result),
        "data": _data(result),
        **index_values(result),
    }


def frame_record(row: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the results DataFrame from a stored row with its index columns and its parsed
    ``data`` (see ``giskard_nb.frames.hub_results``)."""
    category = data.get("failure_category") or {}
    return {
        "evaluation_id": row["evaluation_id"],
        "result_id": row["id"],
        "test_case_id": row["test_case_id"],
        "status": row["status"],
        "failure_category": category.get("identifier"),
        "failure_category_title": category.get("title"),
        "failure_category_source": data.get("failure_category_source"),
        **{k: row[k] for k in FRAME_FIELDS},
        "created_at": row["created_at"],
    }


def model_frame_record(result: EvaluationResult) -> dict[str, Any]:
    """``frame_record`` of a result in memory (the same values as read back from its row)."""
    category = result.failure_category
    data = {
        "failure_category": None if category is None else category.model_dump(),
        "failure_category_source": result.failure_category_source,
    }
    row = {
        "evaluation_id": result.evaluation_id,
        "id": result.id,
        "test_case_id": result.test_case_id,
        "status": result.status,
        "created_at": result.created_at,
        **index_values(result),
    }
    return frame_record(row, data)


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
    (without ``scenario_result`` and ``updated_at``), from a row with every column."""
    data = from_json(row["data"])
    if row["n_checks"] is None:  # written by an older version: read through the model
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
        "status": row["status"],
        "created_at": row["created_at"],
        "messages": from_json(row["messages"]),
        "tags": from_json(row["tags"]),
        "agent_output": output,
        "error": row["error"],
        "checks": check_views(scenario),
        "failure_category": data.get("failure_category"),
        "failure_category_source": data.get("failure_category_source"),
        "failure_category_reason": data.get("failure_category_reason"),
        "duration_ms": row["duration_ms"],
        "usage": {**spent, "cost_usd": row["cost_usd"], "llm_calls": row["llm_calls"]},
    }


def _raw_from_model(row: Mapping[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    result = read_model(row, data)
    dump = result.model_dump(mode="json", exclude={"scenario_result", "updated_at"})
    return {**dump, "created_at": row["created_at"]}


def read_model(row: Mapping[str, Any], data: dict[str, Any] | None = None) -> EvaluationResult:
    """The ``EvaluationResult`` of a stored row (any schema version this one reads)."""
    fields = dict(from_json(row["data"]) if data is None else data)
    if row.get("messages") is not None:
        fields["messages"] = from_json(row["messages"])
    for key in ("id", "schema_version", "created_at", "updated_at", "evaluation_id"):
        fields[key] = row[key]
    fields["test_case_id"] = row["test_case_id"]
    fields["scenario_result"] = from_json(row["scenario_result"])
    return EvaluationResult.model_validate(fields)
