"""Results → OTLP JSON spans, to a file or (when asked) an OTLP/HTTP endpoint.

``export_otlp(results, path=None, endpoint=None)`` takes a ``SuiteResult``, a ``ScenarioResult``, or a
list of plain results (``ScenarioResult`` objects, their JSON dicts, or records holding one in
``scenario_result`` such as the Hub's evaluation results) and builds one OTLP trace per case:

    case span (giskard.case.name, giskard.case.status)
    ├── turn span per interaction (giskard.turn.index, input.value, output.value)
    │   └── tool span per call (gen_ai.operation.name=execute_tool, gen_ai.tool.name,
    │       gen_ai.tool.call.id/.arguments/.result; an error status for a failed call)
    └── check span per check (giskard.check.name/kind/status/message, giskard.check.metric.*)

It returns the OTLP JSON document; ``path`` writes it (atomically); ``endpoint`` posts it to an
OTLP/HTTP collector as protobuf (needs ``pip install 'giskard-nb[otel]'``), with the ``headers``
given. The endpoint is only ever the argument: nothing in the results can choose where they go.
Key-shaped tokens and secret-named argument values are masked. ``traces_from_otlp`` reads the file
back with the same turns, tool calls and verdicts.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from giskard_nb.core.files import write_text_atomic
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.errors import ConfigError, GiskardNBError, GiskardValidationError
from giskard_nb.otel.otlp import attribute
from giskard_nb.secrets import credential_masker, mask_credentials, mask_url, mask_values

__all__ = ["export_otlp", "results_to_otlp", "send_otlp"]

INSTALL_HINT = "pip install 'giskard-nb[otel]'"
_MAX_TEXT = 100_000


def export_otlp(
    results: Any,
    path: str | os.PathLike[str] | None = None,
    endpoint: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    service_name: str = "giskard-nb",
    timeout: float = 10.0,
) -> dict[str, Any]:
    """The OTLP JSON document of ``results`` (see the module docstring); written to ``path`` and/or
    posted to ``endpoint`` (an ``http(s)://…/v1/traces`` URL) when given."""
    document = results_to_otlp(results, service_name=service_name)
    if path is not None:
        write_text_atomic(Path(path), json.dumps(document, ensure_ascii=False) + "\n")
    if endpoint is not None:
        send_otlp(document, endpoint, headers=headers, timeout=timeout)
    return document


def results_to_otlp(results: Any, *, service_name: str = "giskard-nb") -> dict[str, Any]:
    """The OTLP JSON export request (``{"resourceSpans": [...]}``) for ``results``."""
    spans: list[dict[str, Any]] = []
    clock = [time.time_ns()]
    mask = credential_masker()  # the environment's secrets, read once for the whole export
    for name, result in _cases(results):
        spans += _case_spans(name, result, clock, mask)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute("service.name", service_name)]},
                "scopeSpans": [{"scope": {"name": "giskard_nb.otel"}, "spans": spans}],
            }
        ]
    }


def _cases(results: Any) -> list[tuple[str, ScenarioResult]]:
    items = getattr(results, "results", None) if not isinstance(results, list | tuple) else results
    if items is None or isinstance(results, ScenarioResult):
        items = [results]
    cases = []
    for i, item in enumerate(items):
        name = None
        if not isinstance(item, ScenarioResult | Mapping) and hasattr(item, "scenario_result"):
            name = getattr(item, "name", None) or getattr(item, "test_case_id", None)
            item = item.scenario_result
        elif isinstance(item, Mapping) and "scenario_result" in item:
            name = item.get("name") or item.get("test_case_id")
            item = item["scenario_result"]
        try:
            result = (
                item if isinstance(item, ScenarioResult) else ScenarioResult.model_validate(item)
            )
        except ValueError as exc:
            raise GiskardValidationError(
                f"result #{i} is not a scenario result ({type(item).__name__}): give a SuiteResult, "
                f"ScenarioResult objects or their JSON dicts ({str(exc)[:200]})"
            ) from None
        cases.append((str(name or result.scenario_name), result))
    return cases


def _ids() -> str:
    return secrets.token_hex(8)


def _text(value: Any, mask: Callable[[str], str]) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return mask(text[:_MAX_TEXT])


def _json(value: Any, mask: Callable[[str], str]) -> str:
    return _text(json.dumps(mask_values(value), ensure_ascii=False, default=str), mask)


def _span(
    trace: str,
    parent: str,
    name: str,
    start: int,
    end: int,
    attrs: dict[str, Any],
    error: str | None = None,
) -> dict[str, Any]:
    span = {
        "traceId": trace,
        "spanId": _ids(),
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(max(end, start)),
        "attributes": [attribute(k, v) for k, v in attrs.items() if v is not None],
        "status": {"code": 2, "message": error[:_MAX_TEXT]} if error is not None else {"code": 1},
    }
    return span


def _number(value: Any) -> float:
    """A finite non-negative number from a stored value (0 for anything else)."""
    try:
        number = float(value or 0)
    except (TypeError, ValueError):
        return 0.0
    return number if 0 <= number < 1e12 else 0.0


def _ns(seconds: float | None) -> int:
    return int(max(seconds or 0.0, 0.0) * 1e9)


def _case_spans(
    name: str, result: ScenarioResult, clock: list[int], mask: Callable[[str], str]
) -> list[dict[str, Any]]:

    def text(value: Any) -> str:
        return _text(value, mask)

    def as_json(value: Any) -> str:
        return _json(value, mask)

    trace, start = secrets.token_hex(16), clock[0]
    case_id = _ids()
    spans, at = [], start
    for index, interaction in enumerate(result.final_trace.interactions):
        turn_start = at
        turn_end = turn_start + _ns(interaction.latency_s)
        turn = _span(
            trace,
            case_id,
            f"turn {index}",
            turn_start,
            turn_end,
            {
                "giskard.turn.index": index,
                "giskard.turn.inputs": as_json(interaction.inputs),
                "giskard.turn.outputs": as_json(interaction.outputs),
                "giskard.turn.metadata": as_json(interaction.metadata)
                if interaction.metadata
                else None,
                "input.value": text(interaction.inputs),
                "output.value": text(interaction.outputs),
            },
        )
        spans.append(turn)
        call_at = turn_start
        for call in interaction.tool_calls:
            call_end = call_at + _ns(call.duration_s)
            spans.append(
                _span(
                    trace,
                    turn["spanId"],
                    f"execute_tool {call.name}",
                    call_at,
                    call_end,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": call.name,
                        "gen_ai.tool.call.id": call.id,
                        "gen_ai.tool.call.arguments": as_json(call.arguments),
                        "gen_ai.tool.call.result": None
                        if call.result is None
                        else as_json(call.result),
                        "giskard.tool.status": call.status,
                        "giskard.tool.error": None if call.error is None else text(call.error),
                        "giskard.tool.server": call.server,
                    },
                    text(call.error) if call.failed else None,
                )
            )
            call_at = call_end
        at = max(turn_end, call_at)
        turn["endTimeUnixNano"] = str(at)
    for step_index, step in enumerate(result.steps):
        for check in step.results:
            details = check.details or {}
            took = _ns(_number(details.get("duration_ms")) / 1000)
            attrs = {
                "giskard.check.name": str(details.get("check_name") or details.get("check_kind")),
                "giskard.check.kind": details.get("check_kind"),
                "giskard.check.status": str(check.status),
                "giskard.check.message": None if check.message is None else text(check.message),
                "giskard.check.step": step_index,
                "giskard.check.turn": step.last_interaction_index,
                **{f"giskard.check.metric.{m.name}": float(m.value) for m in check.metrics},
            }
            failed = str(check.status) in ("fail", "error")
            spans.append(
                _span(
                    trace,
                    case_id,
                    f"check {attrs['giskard.check.name']}",
                    at,
                    at + took,
                    attrs,
                    text(check.message or str(check.status)) if failed else None,
                )
            )
            at += took
    end = max(at, start + _ns(result.duration_ms / 1000))
    status = str(result.status)
    case = _span(
        trace,
        "",
        f"case {name}",
        start,
        end,
        {
            "giskard.case.name": name,
            "giskard.case.status": status,
            "gen_ai.operation.name": "invoke_agent",
        },
        status if status in ("fail", "error") else None,
    )
    case["spanId"] = case_id
    clock[0] = end + 1
    return [case, *spans]


def send_otlp(
    document: Mapping[str, Any],
    endpoint: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> None:
    """Post an OTLP JSON document to an OTLP/HTTP ``endpoint`` as protobuf (the encoding every
    collector accepts). Needs the ``otel`` extra."""
    if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")):
        raise GiskardValidationError(
            "the OTLP endpoint is an http(s) URL such as http://localhost:4318/v1/traces"
        )
    try:
        from google.protobuf.json_format import ParseDict
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise ConfigError(
            f"sending spans to an OTLP endpoint needs the OpenTelemetry packages: {INSTALL_HINT} "
            "(or write a file with export_otlp(results, path=...))"
        ) from None
    import httpx

    message = ParseDict(_protobuf_ids(document), ExportTraceServiceRequest())
    head = {"Content-Type": "application/x-protobuf", **dict(headers or {})}
    try:
        response = httpx.post(
            endpoint, content=message.SerializeToString(), headers=head, timeout=timeout
        )
    except httpx.HTTPError as exc:
        raise GiskardNBError(
            f"could not send the spans to {mask_url(endpoint)}: {type(exc).__name__}"
        ) from None
    if response.status_code >= 300:
        raise GiskardNBError(
            f"the OTLP endpoint {mask_url(endpoint)} refused the spans: HTTP "
            f"{response.status_code} {mask_credentials(response.text[:300])}"
        )


def _protobuf_ids(document: Mapping[str, Any]) -> dict[str, Any]:
    """OTLP JSON uses hex ids; the protobuf JSON mapping wants base64 bytes."""
    out = json.loads(json.dumps(document))
    for resource in out.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return out
