"""Reading test cases from data: a list of dicts, or a ``.json`` / ``.jsonl`` file.

Accepted item shapes (one JSON object per item or line):

- the Hub's item: ``{"messages": [{"role", "content"}, ...], "demo_output": ..., "checks": [{"identifier",
  "params"}], "tags": [...], "metadata": {...}, "status": "active"|"draft", "name": ...}``; the legacy keys
  ``expected_output`` (→ a correctness check), ``rules`` (→ conformity) and ``reference_context``
  (→ groundedness) are translated;
- a plain chat log: ``{"messages": [...]}`` (a final assistant message becomes the ``demo_output``);
- a prompt-flow style chat: ``{"chat_history": [{"inputs": {"question": ...}, "outputs": {"answer": ...}}]}``;
- a QA row: ``{"question": ..., "answer": ...}`` (the answer becomes the ``demo_output``).

Any other top-level key (``source``, ``context``, ``ground_truth``...) is kept in the test case's metadata.
Every item is checked before anything is stored; errors name the line (JSONL) or item (JSON, list) and
the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from giskard_nb.errors import GiskardValidationError

__all__ = ["MAX_REPORTED_ERRORS", "ItemError", "read_items", "to_hub_item"]

MAX_REPORTED_ERRORS = 20
_HUB_KEYS = ("messages", "demo_output", "checks", "tags", "metadata", "status", "name")
_USER_KEYS = ("question", "query", "input", "chat_input", "user", "text", "message")
_ASSISTANT_KEYS = ("answer", "response", "output", "chat_output", "assistant", "text")


class ItemError(Exception):
    """One bad item: where (``line 3`` / ``item 2``), which field, what is wrong."""

    def __init__(self, location: str, field: str | None, message: str):
        self.location, self.field, self.message = location, field, message
        where = f"{location}, field {field!r}" if field else location
        super().__init__(f"{where}: {message}")


def raise_item_errors(errors: list[ItemError], source: str) -> None:
    if not errors:
        return
    shown = "\n".join(f"  - {e}" for e in errors[:MAX_REPORTED_ERRORS])
    more = len(errors) - MAX_REPORTED_ERRORS
    tail = f"\n  ... and {more} more" if more > 0 else ""
    raise GiskardValidationError(
        f"{source} was rejected, nothing was imported ({len(errors)} bad item"
        f"{'s' if len(errors) > 1 else ''}):\n{shown}{tail}"
    )


def read_items(data: Any) -> tuple[list[tuple[str, Any]], str]:
    """``[(location, raw item)]`` and a description of the source. Raises on unreadable input."""
    if isinstance(data, str | os.PathLike):
        path = Path(data).expanduser()
        if not path.is_file():
            raise GiskardValidationError(
                f"no file at {str(path)!r}: give the path of a .json or .jsonl file, or a list of dicts"
            )
        with path.open(encoding="utf-8") as handle:
            return _parse_text(handle.read(), path.suffix.lower(), path.name), f"file {path.name!r}"
    if hasattr(data, "read"):
        text = data.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        name = Path(getattr(data, "name", "") or "data.jsonl")
        return _parse_text(text, name.suffix.lower(), name.name), f"file {name.name!r}"
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, Iterable):
        return [(f"item {i}", item) for i, item in enumerate(data, 1)], "the data"
    raise GiskardValidationError(
        f"upload data must be a list of dicts or the path of a .json/.jsonl file, got {type(data).__name__}"
    )


def _parse_text(text: str, suffix: str, name: str) -> list[tuple[str, Any]]:
    if suffix == ".json" or (suffix != ".jsonl" and text.lstrip().startswith("[")):
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GiskardValidationError(
                f"{name} was rejected, nothing was imported: line {exc.lineno}: not valid JSON "
                f"({exc.msg}, column {exc.colno})"
            ) from None
        if isinstance(payload, dict):
            for key in ("test_cases", "items", "data"):
                if isinstance(payload.get(key), list):
                    payload = payload[key]
                    break
            else:
                payload = [payload]
        if not isinstance(payload, list):
            raise GiskardValidationError(
                f"{name} was rejected: a .json file holds a list of test cases (or one object)"
            )
        return [(f"item {i}", item) for i, item in enumerate(payload, 1)]
    items, errors = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            errors.append(
                ItemError(f"line {number}", None, f"not valid JSON ({exc.msg}, column {exc.colno})")
            )
    raise_item_errors(errors, name)
    return items


def to_hub_item(raw: Any, location: str) -> dict[str, Any]:
    """The Hub item (fields of a test case) for one raw item, or ``ItemError``."""
    if not isinstance(raw, dict):
        raise ItemError(location, None, f"must be a JSON object, got {type(raw).__name__}")
    item: dict[str, Any] = {k: raw[k] for k in _HUB_KEYS if k in raw}
    extra = {k: v for k, v in raw.items() if k not in _HUB_KEYS}
    if "metadata" in item and not isinstance(item["metadata"], dict):
        raise ItemError(location, "metadata", "must be an object")
    metadata = dict(item.get("metadata") or {})
    checks = list(item.get("checks") or [])
    if not isinstance(item.get("checks", []), list):
        raise ItemError(location, "checks", 'must be a list of {"identifier", "params"} objects')
    if "messages" not in item:
        if "chat_history" in extra:
            item["messages"] = _from_chat_history(extra.pop("chat_history"), location)
        elif any(k in extra for k in ("question", "query")):
            key = "question" if "question" in extra else "query"
            item["messages"] = [{"role": "user", "content": _text(extra.pop(key), location, key)}]
            if "answer" in extra and "demo_output" not in item:
                item["demo_output"] = _text(extra.pop("answer"), location, "answer")
        else:
            raise ItemError(
                location,
                "messages",
                "missing: give a 'messages' list of {role, content} objects (or 'chat_history', "
                "or 'question')",
            )
    legacy = {
        "expected_output": ("correctness", "reference"),
        "rules": ("conformity", "rules"),
        "reference_context": ("groundedness", "context"),
    }
    for key, (identifier, param) in legacy.items():
        if key in extra:
            checks.append({"identifier": identifier, "params": {param: extra.pop(key)}})
    for key, value in extra.items():
        metadata.setdefault(key, value)
    item["checks"] = checks
    item["metadata"] = metadata
    return item


def _text(value: Any, location: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ItemError(location, field, "must be a non-empty string")
    return value


def _first(mapping: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(mapping, str):
        return mapping
    if isinstance(mapping, dict):
        for key in keys:
            if isinstance(mapping.get(key), str):
                return mapping[key]
    return None


def _from_chat_history(history: Any, location: str) -> list[dict[str, str]]:
    if not isinstance(history, list) or not history:
        raise ItemError(location, "chat_history", "must be a non-empty list of turns")
    messages = []
    for i, turn in enumerate(history):
        field = f"chat_history[{i}]"
        if not isinstance(turn, dict):
            raise ItemError(location, field, 'must be {"inputs": {...}, "outputs": {...}}')
        question = _first(turn.get("inputs"), _USER_KEYS)
        if question is None:
            raise ItemError(location, f"{field}.inputs", f"needs a text under one of {_USER_KEYS}")
        messages.append({"role": "user", "content": question})
        answer = _first(turn.get("outputs"), _ASSISTANT_KEYS)
        if answer is not None:
            messages.append({"role": "assistant", "content": answer})
    return messages


def dump_jsonl(items: Iterable[dict[str, Any]], handle: IO[str]) -> int:
    count = 0
    for item in items:
        handle.write(json.dumps(item, ensure_ascii=False) + "\n")
        count += 1
    return count
