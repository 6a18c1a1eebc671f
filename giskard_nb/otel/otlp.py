"""Reading OTLP JSON (the OpenTelemetry protocol's JSON encoding) into plain spans, bounded.

``load_otlp(path_or_dict)`` reads a file (``.json``, or ``.jsonl`` with one export request per line, as
the Collector's file exporter writes) or an already-parsed dict, and returns ``Span`` objects with
their attributes as plain Python values. The input is untrusted: the file size, the number of spans
and the nesting depth are capped, and a malformed document is a ``GiskardValidationError`` that says
what was wrong, never a raw ``KeyError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from giskard_nb.core.sanitize import to_safe_data
from giskard_nb.errors import GiskardValidationError

__all__ = ["MAX_BYTES", "MAX_SPANS", "Span", "any_value", "attribute", "load_otlp"]

#: The largest OTLP file read, the most spans kept and the deepest attribute value read.
MAX_BYTES = 100_000_000
MAX_SPANS = 100_000
MAX_DEPTH = 32


@dataclass
class Span:
    """One span: ids, ``name``, times in nanoseconds, ``attributes`` (plain values), the status
    (``status_code`` 0 unset, 1 ok, 2 error, and its message) and the service name of its resource."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any] = field(default_factory=dict)
    status_code: int = 0
    status_message: str = ""
    service: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)

    def get(self, *keys: str) -> Any:
        """The first of ``keys`` present in the attributes (``None`` when none is)."""
        for key in keys:
            if key in self.attributes:
                return self.attributes[key]
        return None


def load_otlp(source: Any) -> list[Span]:
    """Every span of an OTLP JSON export (a path, a JSON string, or a dict/list of requests)."""
    requests = _requests(source)
    for request in requests:
        if not isinstance(request, Mapping):
            raise GiskardValidationError(
                "an OTLP JSON export is an object with 'resourceSpans' (got "
                f"{type(request).__name__}): export traces with the OTLP JSON encoding"
            )
    spans: list[Span] = []
    for request in requests:
        for resource_spans in _list(request, "resourceSpans", "resource_spans"):
            resource = resource_spans.get("resource") or {}
            service = str(attributes(resource).get("service.name") or "")
            for scope_spans in _list(resource_spans, "scopeSpans", "scope_spans"):
                for raw in _list(scope_spans, "spans"):
                    spans.append(_span(raw, service))
                    if len(spans) > MAX_SPANS:
                        raise GiskardValidationError(
                            f"the OTLP export holds more than {MAX_SPANS} spans: export fewer "
                            "traces at a time"
                        )
    return spans


def _requests(source: Any) -> list[Any]:
    if isinstance(source, Mapping):
        return [source]
    if isinstance(source, list):
        return source
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return _parse(source, "the OTLP JSON text")
    if isinstance(source, str | os.PathLike):
        path = Path(source).expanduser()
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise GiskardValidationError(
                    f"{path.name} is {size:,} bytes, over the {MAX_BYTES:,}-byte limit for an OTLP "
                    "file: split the export"
                )
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise GiskardValidationError(
                f"cannot read the OTLP file {str(path)!r}: {exc.strerror or exc}"
            ) from None
        return _parse(text, path.name)
    raise GiskardValidationError(
        f"traces_from_otlp takes a path, OTLP JSON text or a dict, got {type(source).__name__}"
    )


def _parse(text: str, where: str) -> list[Any]:
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except RecursionError:
        raise GiskardValidationError(f"{where} is nested too deeply to be OTLP JSON") from None
    except ValueError:
        pass
    requests = []
    for number, line in enumerate(text.splitlines(), 1):  # JSON lines: one request per line
        if line.strip():
            try:
                requests.append(json.loads(line))
            except (ValueError, RecursionError) as exc:
                raise GiskardValidationError(
                    f"{where} line {number} is not JSON ({type(exc).__name__}): give an OTLP JSON "
                    "export (one object, or one object per line)"
                ) from None
    return requests


def _list(data: Any, *keys: str) -> list[Mapping[str, Any]]:
    if not isinstance(data, Mapping):
        return []
    for key in keys:
        value = data.get(key)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, Mapping)]
    return []


def _span(raw: Mapping[str, Any], service: str) -> Span:
    status = raw.get("status") if isinstance(raw.get("status"), Mapping) else {}
    code = status.get("code", 0)
    code = {"STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}.get(code, code) if code else 0
    return Span(
        trace_id=_id(raw.get("traceId", raw.get("trace_id"))),
        span_id=_id(raw.get("spanId", raw.get("span_id"))),
        parent_id=_id(raw.get("parentSpanId", raw.get("parent_span_id"))),
        name=str(raw.get("name") or "")[:500],
        start=_nanos(raw.get("startTimeUnixNano", raw.get("start_time_unix_nano"))),
        end=_nanos(raw.get("endTimeUnixNano", raw.get("end_time_unix_nano"))),
        attributes=attributes(raw),
        status_code=code if isinstance(code, int) else 0,
        status_message=str(status.get("message") or "")[:10_000],
        service=service,
        events=[
            {"name": str(e.get("name") or ""), "attributes": attributes(e)}
            for e in _list(raw, "events")[:100]
        ],
    )


def _id(value: Any) -> str:
    return str(value or "")[:64]


def _nanos(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def attributes(item: Any) -> dict[str, Any]:
    """The ``attributes`` of a span, event or resource as ``{key: plain value}``."""
    out: dict[str, Any] = {}
    for kv in _list(item, "attributes")[:10_000]:
        key = kv.get("key")
        if isinstance(key, str):
            out[key[:500]] = any_value(kv.get("value"), 0)
    return to_safe_data(out) if out else out


def attribute(key: str, value: Any) -> dict[str, Any]:
    """One OTLP JSON attribute (``{"key", "value": AnyValue}``) for a plain value."""
    return {"key": key, "value": _encode(value)}


def any_value(value: Any, depth: int = 0) -> Any:
    """A plain value for an OTLP ``AnyValue`` (``{"stringValue": ...}``, arrays, key-value lists)."""
    if not isinstance(value, Mapping) or depth > MAX_DEPTH:
        return None
    if "stringValue" in value or "string_value" in value:
        return str(value.get("stringValue", value.get("string_value")))
    if "boolValue" in value or "bool_value" in value:
        return bool(value.get("boolValue", value.get("bool_value")))
    if "intValue" in value or "int_value" in value:
        raw = value.get("intValue", value.get("int_value"))
        try:
            return int(str(raw)[:30])
        except ValueError:
            return None
    if "doubleValue" in value or "double_value" in value:
        try:
            return float(value.get("doubleValue", value.get("double_value")))
        except (TypeError, ValueError):
            return None
    if "arrayValue" in value or "array_value" in value:
        inner = value.get("arrayValue", value.get("array_value"))
        return [any_value(v, depth + 1) for v in _list(inner, "values")[:10_000]]
    if "kvlistValue" in value or "kvlist_value" in value:
        inner = value.get("kvlistValue", value.get("kvlist_value"))
        return {
            str(kv.get("key")): any_value(kv.get("value"), depth + 1)
            for kv in _list(inner, "values")[:10_000]
        }
    if "bytesValue" in value or "bytes_value" in value:
        return str(value.get("bytesValue", value.get("bytes_value")))
    return None


def _encode(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_encode(v) for v in value]}}
    if value is None:
        return {"stringValue": ""}
    return {"stringValue": str(value)}
