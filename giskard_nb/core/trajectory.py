"""A case's trajectory as plain data and as escaped HTML: the tool calls turn by turn, and for each
trajectory check the diff of the calls against the expected ones.

- ``trajectory_turns(calls)``: the calls (``ToolCall`` objects or their stored dicts) grouped by
  turn, each call a ``CallView`` of plain text (arguments as JSON, result and error cut at
  ``MAX_SHOWN``).
- ``trajectory_diffs(checks)``: the ``DiffView`` of every check whose details hold a diff against
  the expected calls (the keys ``matched``, ``missing`` and ``extra``, lists of calls, that the
  trajectory checks write). A check is given as a core ``CheckResult``, a Hub ``CheckOutcome`` or
  their dicts.
- ``is_tool_check(kind, details)``: whether a check judges tool calls (a tool kind, or a diff in its
  details): the tool-check outcomes the DataFrames show next to each call.
- ``trajectory_html(calls, checks)``: both as HTML, for ``Trace._repr_html_``, the ResultsViewer and
  the HubBrowser. Every value is escaped: calls, arguments and results are agent and tool output,
  hostile text. The self-contained report renders the same data through its own (autoescaping)
  templates.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.core.tools import ToolCall

__all__ = [
    "DIFF_KEYS",
    "MAX_SHOWN",
    "CallView",
    "DiffView",
    "call_label",
    "is_tool_check",
    "shown_text",
    "tool_check_outcomes",
    "trajectory_diffs",
    "trajectory_html",
    "trajectory_turns",
]

#: The longest argument, result or error text shown (the rest is cut with an ellipsis).
MAX_SHOWN = 2000
#: The most calls shown for one case (an agent stuck in a loop may make thousands).
MAX_CALLS_SHOWN = 200
#: The keys of a trajectory check's details that hold its diff against the expected calls.
DIFF_KEYS = ("matched", "missing", "extra")
_TOOL_KIND_WORDS = ("tool", "trajectory", "action_claims", "side_effect")
_STATUS_COLORS = {"ok": "#2e7d32", "error": "#c62828", "unknown": "#757575"}
_DIFF_COLORS = {"matched": "#2e7d32", "missing": "#c62828", "extra": "#ef6c00"}


@dataclass(frozen=True)
class CallView:
    """One call as plain text: its position in the case (``index``, 0-based), ``name``,
    ``arguments`` (JSON), ``status`` (ok / error / unknown), ``result`` and ``error`` (cut),
    ``duration_s`` and ``server``."""

    index: int
    turn: int
    name: str
    arguments: str
    status: str
    result: str = ""
    error: str = ""
    duration_s: float | None = None
    server: str = ""


@dataclass(frozen=True)
class DiffView:
    """One trajectory check's diff: its name and status, and the calls matched, missing (expected,
    not made) and extra (made, not expected), each as a one-line label."""

    check: str
    status: str
    matched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)


def shown_text(value: Any, limit: int = MAX_SHOWN) -> str:
    """A value as bounded text: strings as they are, data as JSON (``""`` for ``None``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _calls(calls: Any) -> list[ToolCall]:
    if not calls:
        return []
    items = list(calls)
    if all(isinstance(c, ToolCall) for c in items):
        return items
    return tool_calls_from(items)


def trajectory_turns(calls: Any) -> list[tuple[int, list[CallView]]]:
    """``[(turn, [CallView, ...]), ...]`` in order (a call without a turn counts as turn 0); at most
    ``MAX_CALLS_SHOWN`` calls."""
    turns: dict[int, list[CallView]] = {}
    for i, call in enumerate(_calls(calls)[:MAX_CALLS_SHOWN]):
        turn = call.turn or 0
        turns.setdefault(turn, []).append(
            CallView(
                index=i,
                turn=turn,
                name=call.name,
                arguments=shown_text(call.arguments),
                status=call.status,
                result=shown_text(call.result),
                error=shown_text(call.error),
                duration_s=call.duration_s,
                server=call.server or "",
            )
        )
    return sorted(turns.items())


def call_label(call: Any, limit: int = 300) -> str:
    """A call as one line, ``name({"arg": 1})``; a value that is not a call as its text."""
    found = tool_calls_from([call]) if isinstance(call, Mapping | ToolCall) else []
    if found:
        return shown_text(str(found[0]), limit)
    return shown_text(call, limit)


def _check_parts(check: Any) -> tuple[str, str, str | None, Mapping[str, Any]]:
    """``(name, status, kind, details)`` of a core CheckResult, a Hub CheckOutcome or their dicts."""
    get = check.get if isinstance(check, Mapping) else lambda k, d=None: getattr(check, k, d)
    details = get("details") or {}
    details = details if isinstance(details, Mapping) else {}
    status = get("status")
    status = getattr(status, "value", status)
    name = get("check_name") or get("name") or details.get("check_name") or "check"
    kind = get("kind") or details.get("check_kind")
    return str(name), str(status or ""), None if kind is None else str(kind), details


def is_tool_check(kind: str | None, details: Mapping[str, Any] | None = None) -> bool:
    """Whether a check judges tool calls: its kind names tools or trajectories (``tool_called``,
    ``trajectory_judge``...), or its details hold a diff against expected calls."""
    low = (kind or "").lower()
    if any(word in low for word in _TOOL_KIND_WORDS):
        return True
    return bool(details) and any(isinstance(details.get(k), list) for k in DIFF_KEYS)


def tool_check_outcomes(checks: Iterable[Any]) -> dict[str, str]:
    """``{check name: status}`` of the tool checks among ``checks`` (see ``is_tool_check``)."""
    out: dict[str, str] = {}
    for check in checks:
        name, status, kind, details = _check_parts(check)
        if is_tool_check(kind, details):
            out[name] = status
    return out


def trajectory_diffs(checks: Iterable[Any]) -> list[DiffView]:
    """The diff of every check whose details hold ``matched`` / ``missing`` / ``extra``."""
    diffs = []
    for check in checks:
        name, status, _, details = _check_parts(check)
        if not any(isinstance(details.get(k), list) for k in DIFF_KEYS):
            continue
        lists = {
            k: [call_label(c) for c in details.get(k) or [] if c is not None][:MAX_CALLS_SHOWN]
            for k in DIFF_KEYS
        }
        diffs.append(DiffView(check=name, status=status, **lists))
    return diffs


# -- HTML ------------------------------------------------------------------------------------------

e = html.escape
_CELL = "text-align:left;vertical-align:top;padding:2px 6px;border-bottom:1px solid #eee"
_PRE = "white-space:pre-wrap;margin:0;font-size:0.85em;max-height:12em;overflow:auto"


def _pre(text: str) -> str:
    return f"<pre style='{_PRE}'>{e(text)}</pre>" if text else ""


def _status(status: str) -> str:
    color = _STATUS_COLORS.get(status, "#555")
    return (
        f"<span class='giskard-tool-status' style='color:{color};font-weight:bold'>"
        f"{e(status)}</span>"
    )


def _call_row(call: CallView) -> str:
    outcome = _pre(call.error) if call.error else _pre(call.result)
    took = "" if call.duration_s is None else f"{call.duration_s * 1000:.0f} ms"
    server = f"<br><small>{e(call.server)}</small>" if call.server else ""
    cells = (
        str(call.index + 1),
        f"<code>{e(call.name)}</code>{server}",
        _pre(call.arguments),
        _status(call.status),
        outcome,
        e(took),
    )
    return (
        "<tr class='giskard-tool-call'>"
        + "".join(f"<td style='{_CELL}'>{c}</td>" for c in cells)
        + "</tr>"
    )


def _diff_html(diff: DiffView) -> str:
    parts = [f"<div class='giskard-trajectory-diff'><b>{e(diff.check)}</b> ({e(diff.status)})"]
    for key in DIFF_KEYS:
        labels = getattr(diff, key)
        items = "".join(f"<li><code>{e(label)}</code></li>" for label in labels) or "<li>none</li>"
        color = _DIFF_COLORS[key]
        parts.append(
            f"<div class='giskard-diff-{key}' style='color:{color}'>{key} ({len(labels)})"
            f"<ul style='margin:0'>{items}</ul></div>"
        )
    return "".join(parts) + "</div>"


def trajectory_html(calls: Any, checks: Iterable[Any] = ()) -> str:
    """The trajectory (a table of calls per turn) and the diffs of the trajectory checks, escaped;
    ``""`` when there is neither."""
    turns = trajectory_turns(calls)
    diffs = trajectory_diffs(checks)
    if not turns and not diffs:
        return ""
    head = ("#", "tool", "arguments", "status", "result / error", "time")
    header = "".join(f"<th style='{_CELL}'>{h}</th>" for h in head)
    parts = ["<div class='giskard-trajectory'>"]
    n = sum(len(views) for _, views in turns)
    parts.append(f"<b>Tool calls ({n})</b>")
    for turn, views in turns:
        rows = "".join(_call_row(v) for v in views)
        parts.append(
            f"<div class='giskard-turn-calls'><small>turn {turn + 1}</small>"
            f"<table style='border-collapse:collapse;width:100%'><tr>{header}</tr>{rows}</table></div>"
        )
    if diffs:
        parts.append("<b>Expected vs actual calls</b>")
        parts.extend(_diff_html(d) for d in diffs)
    return "".join(parts) + "</div>"
