"""Structured replies: tell the model the JSON schema, read its reply strictly, ask once for a repair.

The rule (one reader for every structured reply: LLM checks, the scan judge, the failure classifier,
dataset generators, the user simulator): **the reply is one JSON object and nothing else**, matching the
schema. ``parse_reply(text, output_type)`` accepts exactly

- the object alone, with whitespace around it, or
- the object alone inside one code fence (```` ```json ```` or a bare ```` ``` ````).

The fence is the only tolerance kept: it wraps the whole reply, so it adds no second place where a verdict
could hide, and models add it often. Everything else is **unreadable** and raises ``ReplyParseError`` with
the reason (which the generator sends back in its one repair request, after which the caller reports an
ERROR with the raw reply):

- text before or after the object — even a single object in prose is refused: an agent's reply quoted by
  the judge, an echoed example or a draft can sit in that prose, and the reader cannot tell which is meant;
- several objects (even if they agree), a top-level list, a string, a number, ``null``;
- anything that is not strict JSON: Python dicts, single quotes, trailing commas, comments, ``NaN`` and
  ``Infinity`` (or a number too large for a float), ``key: value`` lines, YAML, tables, HTML;
- a key given twice in one object (``json.loads`` would silently keep the last one);
- an object that has none of the schema's fields (a verdict wrapped in another key);
- values of the wrong type: the schema is validated in pydantic **strict** mode, so ``"true"``, ``"yes"``
  or ``1`` for a boolean and ``"0.9"`` for a number are refused, never coerced; missing required fields
  and values outside their declared range (``Field(ge=0, le=1)``) too.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = [
    "ReplyParseError",
    "clean_text",
    "json_schema",
    "parse_reply",
    "repair_message",
    "response_format",
    "schema_instructions",
    "with_instructions",
]

_FENCE = re.compile(r"\A```[ \t]*(?:json)?[ \t]*\n(.*)\n[ \t]*```\Z", re.DOTALL | re.IGNORECASE)
_MAX_SHOWN = 80


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
    """Read ``text`` as an instance of ``output_type`` under the strict rule of the module docstring."""
    if text is None or not text.strip():
        raise ReplyParseError("the reply was empty")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    value = _sole_object(body)
    names = _field_names(output_type)
    if names and not names & value.keys():
        raise ReplyParseError(
            f"the JSON object has none of the fields {', '.join(sorted(names))} (keys: "
            f"{', '.join(sorted(value)) or 'none'}): put the fields at the top level, not inside "
            "another key"
        )
    try:
        return output_type.model_validate_json(body, strict=True)
    except ValidationError as exc:
        raise ReplyParseError(_describe(exc)) from None


def _sole_object(body: str) -> dict[str, Any]:
    """The one JSON object that ``body`` is, or ``ReplyParseError`` saying what else it is."""
    if not body.startswith("{"):
        if body.startswith("["):
            raise ReplyParseError(
                "the reply is a JSON list: reply with one JSON object, not a list"
            )
        kind = _json_kind(body)
        if kind:
            raise ReplyParseError(f"the reply is a JSON {kind}, not a JSON object")
        raise ReplyParseError(
            "the reply must be the JSON object alone (optionally in one ```json fence), with no "
            f"text around it; it starts with {_shown(body)}"
        )
    decoder = json.JSONDecoder(
        object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant, parse_float=_finite
    )
    try:
        value, end = decoder.raw_decode(body)
    except ReplyParseError:
        raise
    except RecursionError:
        raise ReplyParseError("the reply is nested too deeply to be a verdict") from None
    except ValueError as exc:
        raise ReplyParseError(f"the reply is not valid JSON ({exc})") from None
    rest = body[end:].strip()
    if rest:
        raise ReplyParseError(
            "the reply must be one JSON object and nothing else, but more follows it (another "
            f"object or text): {_shown(rest)}"
        )
    return value


def _json_kind(body: str) -> str | None:
    """``"string"``, ``"number"``, ... when ``body`` is a JSON value other than an object, else None."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if value is None:
        return "null"
    return {bool: "boolean", str: "string", int: "number", float: "number"}.get(type(value))


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ReplyParseError(f"the key {key!r} appears twice in one JSON object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ReplyParseError(f"{name} is not a JSON value: give a finite number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ReplyParseError(f"the number {text[:_MAX_SHOWN]} is too large")
    return value


def _field_names(output_type: type[BaseModel]) -> set[str]:
    names = set()
    for name, info in output_type.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
    return names


def _shown(text: str) -> str:
    return repr(text[:_MAX_SHOWN] + ("..." if len(text) > _MAX_SHOWN else ""))


def _describe(error: ValidationError) -> str:
    parts = []
    for err in error.errors(include_url=False)[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{where}: {err['msg']}")
    return "the JSON does not match the schema (types are not converted): " + "; ".join(parts)


@functools.lru_cache(maxsize=256)
def response_format(output_type: type[BaseModel]) -> Any:
    """litellm's strict ``json_schema`` response_format for a model, converted once per class."""
    try:
        from giskard_nb.llm._litellm import litellm_utils

        return litellm_utils().type_to_response_format_param(output_type) or output_type
    except Exception:  # let litellm convert it on each call instead
        return output_type


def with_instructions(msgs: list[dict[str, Any]], instructions: str) -> list[dict[str, Any]]:
    """The messages with the schema instructions appended to (or given as) the system prompt."""
    if msgs[0]["role"] == "system" and isinstance(msgs[0]["content"], str):
        return [{**msgs[0], "content": f"{msgs[0]['content']}\n\n{instructions}"}, *msgs[1:]]
    return [{"role": "system", "content": instructions}, *msgs]


def clean_text(text: str, parsed: BaseModel | None) -> str:
    """The text kept for a reply: the parsed object's canonical JSON, else the stripped text."""
    return parsed.model_dump_json() if parsed is not None else text.strip()
