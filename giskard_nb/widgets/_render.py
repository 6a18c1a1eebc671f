"""HTML renderings the widgets share: left-aligned tables and conversations as chat turns.

Every value shown is escaped (agent output is untrusted text).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from giskard_nb.widgets._common import esc, pre

__all__ = ["CELL_STYLE", "TABLE_STYLE", "conversation_html", "table_html", "trace_messages"]

_ROLE_COLORS = {"user": "#e3f2fd", "assistant": "#f5f5f5", "system": "#fff8e1", "tool": "#ede7f6"}
TABLE_STYLE = "border-collapse:collapse;width:100%;text-align:left"
CELL_STYLE = "text-align:left;vertical-align:top;padding:2px 6px;border-bottom:1px solid #eee"


def table_html(
    header: list[str], rows: list[list[str]], *, css_class: str = "", empty: str = "nothing here"
) -> str:
    """A left-aligned HTML table (JupyterLab right-aligns table cells by default). ``header`` is
    plain text (escaped here); ``rows`` hold HTML cells the caller has already escaped."""
    head = "".join(f"<th style='{CELL_STYLE}'>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='{CELL_STYLE}'>{c}</td>" for c in row) + "</tr>"
        for row in rows
    )
    if not rows:
        body = f"<tr><td colspan={len(header)} style='{CELL_STYLE}'><i>{html.escape(empty)}</i></td></tr>"
    return f"<table class='{css_class}' style='{TABLE_STYLE}'><tr>{head}</tr>{body}</table>"


def _field(message: Any, name: str, default: Any = None) -> Any:
    if isinstance(message, Mapping):
        return message.get(name, default)
    return getattr(message, name, default)


def _is_message(value: Any) -> bool:
    return _field(value, "role") is not None and (
        isinstance(value, Mapping) or hasattr(value, "content")
    )


def _tool_call_html(call: Any) -> str:
    fn = _field(call, "function") or call
    name = _field(fn, "name") or "tool"
    args = _field(fn, "arguments", _field(call, "args"))
    shown = "" if args in (None, "", {}) else esc(args, 1000)
    return f"<div style='font-size:0.85em'>🔧 <code>{esc(name, 200)}</code>(<code>{shown}</code>)</div>"


def conversation_html(messages: Any, *, limit: int = 4000) -> str:
    """Chat turns (role, escaped content, tool calls when present) of a message list: dicts or
    objects with ``role``/``content`` (and optionally ``tool_calls``). Anything else (a plain string,
    a dict that is not a message) is shown as one escaped user turn."""
    if isinstance(messages, str | bytes) or not isinstance(messages, list | tuple):
        messages = [{"role": "user", "content": messages}]
    turns = []
    for m in messages:
        if not _is_message(m):
            m = {"role": "user", "content": m}
        role = str(_field(m, "role") or "user")
        content = _field(m, "content")
        calls = _field(m, "tool_calls") or []
        body = "" if content in (None, "") and calls else pre(content, limit)
        color = _ROLE_COLORS.get(role, "#f5f5f5")
        turns.append(
            f"<div class='giskard-turn giskard-turn-{esc(role, 20)}' style='background:{color};"
            f"border-radius:6px;padding:4px 8px;margin:3px 0;text-align:left'>"
            f"<small><b>{esc(role, 40)}</b></small>{body}"
            + "".join(_tool_call_html(c) for c in calls if c)
            + "</div>"
        )
    body = "".join(turns) or "<i>no messages</i>"
    return f"<div class='giskard-conversation'>{body}</div>"


def trace_messages(interactions: Any) -> list[dict[str, Any]]:
    """A core trace's interactions as one message list: an input that is itself a message list (a
    Hub test case's conversation) is spread into its turns, without repeating the turns already
    shown; the output is the assistant's turn, with the tool calls of its metadata."""
    out: list[dict[str, Any]] = []
    for it in interactions:
        inputs = it.inputs
        if isinstance(inputs, list | tuple) and inputs and all(_is_message(m) for m in inputs):
            turns = [
                {"role": _field(m, "role"), "content": _field(m, "content"),
                 "tool_calls": _field(m, "tool_calls") or []}
                for m in inputs
            ]  # fmt: skip
            if turns[: len(out)] == out:
                turns = turns[len(out) :]
            out.extend(turns)
        else:
            out.append({"role": "user", "content": inputs, "tool_calls": []})
        outputs, metadata = it.outputs, it.metadata or {}
        calls = list(metadata.get("tool_calls") or []) if isinstance(metadata, Mapping) else []
        if _is_message(outputs):
            calls = list(_field(outputs, "tool_calls") or []) + calls
            outputs = _field(outputs, "content")
        out.append({"role": "assistant", "content": outputs, "tool_calls": calls})
    return out
