"""Turning uploaded items into test cases: a list of dicts, or a ``.jsonl`` / ``.json`` / ``.csv`` file
(read by ``giskard_nb.hub.upload_files``).

Accepted item shapes (one JSON object per item or line):

- the Hub's item: ``{"messages": [{"role", "content"}, ...], "demo_output": ..., "checks": [{"identifier",
  "params"}], "tags": [...], "metadata": {...}, "status": "active"|"draft", "name": ...,
  "expected_tool_calls": [{"name", "arguments"}, ...]}``; the legacy keys ``rules`` (→ conformity) and
  ``reference_context`` (→ groundedness) are translated;
- messages with tool use in the OpenAI format are kept as given: an assistant message's ``tool_calls``
  (its ``content`` may be ``null``) and the ``tool`` messages answering them (``tool_call_id``);
- a plain chat log: ``{"messages": [...]}`` (a final assistant message becomes the ``demo_output``);
- a prompt-flow style chat: ``{"chat_history": [{"inputs": {"question": ...}, "outputs": {"answer": ...}}]}``;
- a QA row: the input under ``question``/``query``/``input``/``prompt``; a CSV file with these columns
  gives the same rows (other columns go to the metadata, a ``tags`` cell is split on commas, a
  ``messages``/``checks``/``metadata`` cell may hold JSON);
- ``"messages"`` may be a single string: one user message.

In every shape, the check columns (``giskard_nb.hub.upload_columns``) add checks: the expected answer
(``expected_output``/``expected``/``reference``/``answer``: a correctness check with a judge configured,
else its offline stand-in; ``answer`` also becomes the ``demo_output`` of a QA row), ``keyword``/
``must_contain``, ``must_not_contain`` and ``regex``.

Any other top-level key (``source``, ``context``, ``ground_truth``...) is kept in the test case's metadata.
Every item is checked before anything is stored; errors name the line (JSONL) or item (JSON, list) and
the field.
"""

from __future__ import annotations

from typing import Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.upload_columns import ColumnError, column_checks

__all__ = ["MAX_REPORTED_ERRORS", "ItemError", "raise_item_errors", "to_hub_item"]

MAX_REPORTED_ERRORS = 20
_HUB_KEYS = (
    "messages",
    "demo_output",
    "checks",
    "tags",
    "metadata",
    "status",
    "name",
    "expected_tool_calls",
)
_QUESTION_KEYS = ("question", "query", "input", "prompt")
_USER_KEYS = ("question", "query", "input", "chat_input", "user", "text", "message")
_ASSISTANT_KEYS = ("answer", "response", "output", "chat_output", "assistant", "text")


class ItemError(Exception):
    """One bad item: where (``line 3`` / ``item 2``), which field, what is wrong."""

    def __init__(self, location: str, field: str | None, message: str):
        self.location, self.field, self.message = location, field, message
        where = f"{location}, field {field!r}" if field else location
        super().__init__(f"{where}: {message}")


def raise_item_errors(errors: list[ItemError], source: str, total: int | None = None) -> None:
    """Reject the upload: the first ``MAX_REPORTED_ERRORS`` errors, and how many there were
    (``total``, when more were counted than kept)."""
    if not errors:
        return
    total = max(total or 0, len(errors))
    shown = "\n".join(f"  - {e}" for e in errors[:MAX_REPORTED_ERRORS])
    more = total - min(len(errors), MAX_REPORTED_ERRORS)
    tail = f"\n  ... and {more} more" if more > 0 else ""
    raise GiskardValidationError(
        f"{source} was rejected, nothing was imported ({total} bad item"
        f"{'s' if total > 1 else ''}):\n{shown}{tail}"
    )


def to_hub_item(raw: Any, location: str, *, judge: bool = False) -> dict[str, Any]:
    """The Hub item (fields of a test case) for one raw item, or ``ItemError``; ``judge``: whether a
    judge model is configured (the expected answer becomes correctness, else its offline stand-in)."""
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
    try:
        checks.extend(column_checks(extra, judge=judge))
    except ColumnError as exc:
        raise ItemError(location, exc.field, exc.message) from None
    if "messages" not in item:
        if "chat_history" in extra:
            item["messages"] = _from_chat_history(extra.pop("chat_history"), location)
        elif any(k in extra for k in _QUESTION_KEYS):
            key = next(k for k in _QUESTION_KEYS if k in extra)
            item["messages"] = [{"role": "user", "content": _text(extra.pop(key), location, key)}]
            if "answer" in extra and "demo_output" not in item:
                item["demo_output"] = _text(extra.pop("answer"), location, "answer")
        else:
            raise ItemError(
                location,
                "messages",
                "missing: give a 'messages' list of {role, content} objects (or one string), "
                f"'chat_history', or one of the columns {', '.join(map(repr, _QUESTION_KEYS))}",
            )
    legacy = {
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
