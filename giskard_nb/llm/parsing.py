"""Structured replies: tell the model the JSON schema, read near-JSON tolerantly, ask once for a repair.

``parse_reply(text, output_type)`` accepts, in order: plain JSON; JSON inside a code fence; the first JSON
object found in prose; a Python-style dict (``True``/``None``, single quotes); JSON with trailing commas;
and, for flat schemas, ``key: value`` lines (``passed: true``). A single wrapping key
(``{"result": {...}}``) is unwrapped. The value is then validated by the pydantic model (lax: ``"true"`` is a
bool). It raises ``ReplyParseError`` with the reason, which the generator sends back in one repair request.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = [
    "ReplyParseError",
    "json_schema",
    "parse_reply",
    "repair_message",
    "schema_instructions",
]

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_KEY_VALUE = re.compile(
    r"^\s*[-*]?\s*[\"']?([A-Za-z_][A-Za-z0-9_ ]*)[\"']?\s*[:=]\s*(.*?)\s*,?\s*$"
)


class ReplyParseError(ValueError):
    """The reply could not be read as the requested model; the message says why."""


@functools.lru_cache(maxsize=256)
def json_schema(output_type: type[BaseModel]) -> str:
    """The JSON schema of a model, as canonical JSON text (computed once per class)."""
    return json.dumps(output_type.model_json_schema(), ensure_ascii=False, sort_keys=True)


@functools.lru_cache(maxsize=256)
def schema_instructions(output_type: type[BaseModel]) -> str:
    """The instruction appended to the system prompt when a structured reply is requested."""
    schema = json_schema(output_type)
    return (
        "Reply with a single JSON object and nothing else (no prose, no code fence). "
        f"It must validate against this JSON schema:\n{schema}"
    )


def repair_message(error: str, output_type: type[BaseModel]) -> str:
    """The user message of the single repair request."""
    fields = ", ".join(output_type.model_fields)
    return (
        f"Your previous reply could not be read: {error}\n"
        f"Reply again with only the JSON object (fields: {fields}), valid against the schema given "
        "above, and nothing else."
    )


def parse_reply(text: str | None, output_type: type[BaseModel]) -> BaseModel:
    """Read ``text`` as an instance of ``output_type`` (see the module docstring for what is tolerated)."""
    if text is None or not text.strip():
        raise ReplyParseError("the reply was empty")
    candidates = list(_candidates(text))
    if not candidates:
        lines = _key_value_lines(text, output_type)
        if lines is None:
            raise ReplyParseError(f"no JSON object found in the reply: {text.strip()[:200]!r}")
        candidates = [lines]
    last_error: Exception | None = None
    for value in candidates:
        for candidate in (value, _unwrap(value)):
            if candidate is None:
                continue
            try:
                return output_type.model_validate(candidate)
            except ValidationError as exc:
                last_error = exc
    assert last_error is not None
    raise ReplyParseError(_describe(last_error))


def _candidates(text: str) -> list[Any]:
    """Every JSON-ish object the reply contains, best guesses first."""
    found: list[Any] = []
    stripped = text.strip()
    sources = [stripped] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for source in sources:
        value = _loads(source)
        if isinstance(value, dict):
            found.append(value)
    covered = -1
    for start in (m.start() for m in re.finditer(r"\{", text)):
        if start < covered:  # inside an object already taken
            continue
        end = _matching_brace(text, start)
        if end is None:
            continue
        value = _loads(text[start : end + 1])
        if isinstance(value, dict):
            covered = end
            if value not in found:
                found.append(value)
        if len(found) >= 8:
            break
    return found


def _loads(source: str) -> Any:
    for attempt in (source, _TRAILING_COMMA.sub(r"\1", source)):
        try:
            return json.loads(attempt)
        except ValueError:
            pass
    if source.startswith("{"):
        try:
            return ast.literal_eval(_TRAILING_COMMA.sub(r"\1", source))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return None


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the brace closing the one at ``start`` (string-aware), or None."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _unwrap(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        if isinstance(inner, dict):
            return inner
    return None


def _key_value_lines(text: str, output_type: type[BaseModel]) -> dict[str, Any] | None:
    """``passed: true`` / ``reason: ...`` lines, when they name every required field of a flat model."""
    fields = {name.lower(): name for name in output_type.model_fields}
    values: dict[str, Any] = {}
    for line in text.splitlines():
        m = _KEY_VALUE.match(line)
        if m and m.group(1).strip().lower() in fields:
            raw = m.group(2).strip().strip("\"'")
            values[fields[m.group(1).strip().lower()]] = raw
    required = [n for n, f in output_type.model_fields.items() if f.is_required()]
    if not values or any(n not in values for n in required):
        return None
    return values


def _describe(error: ValidationError) -> str:
    parts = []
    for err in error.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{where}: {err['msg']}")
    return "the JSON does not match the schema: " + "; ".join(parts)
