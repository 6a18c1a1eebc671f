"""OTLP JSON traces → core ``Trace`` objects and Hub-ready test cases.

``traces_from_otlp(source)`` groups spans into conversations (by ``session.id`` /
``gen_ai.conversation.id`` when a span carries one, else by trace id). Each root span is one turn,
in start order: its ``Interaction`` has the user's message as ``inputs``, the answer as ``outputs``,
the turn's tool calls (tool-execution spans, plus the calls a model asked for that no tool span
answers) as ``tool_calls``, and ``latency_s`` from the span's times. A file written by ``export_otlp``
reads back exactly: one trace per case, its turns, its tool calls, and the verdicts of its checks in
``trace.annotations["checks"]`` (``annotations["case"]`` has the case's name and status).

``test_cases_from_otlp(source)`` gives the same conversations as plain dicts the Hub's dataset upload
takes (``{"name", "messages", "metadata"}``, OpenAI-format messages: the assistant's ``tool_calls``
and the ``tool`` messages that answer them).
"""

from __future__ import annotations

import json
from typing import Any

from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.tools import ToolCall, parse_arguments
from giskard_nb.otel.conventions import (
    dumps,
    input_text,
    is_llm,
    is_tool,
    output_text,
    requested_calls,
    tool_call_of,
)
from giskard_nb.otel.otlp import Span, load_otlp

__all__ = ["test_cases_from_otlp", "traces_from_otlp"]

_SESSION_KEYS = ("session.id", "gen_ai.conversation.id")


def traces_from_otlp(source: Any) -> list[Trace]:
    """One ``Trace`` per conversation of an OTLP JSON export (a path, JSON text or a dict)."""
    spans = load_otlp(source)
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    children: dict[tuple[str, str], list[Span]] = {}
    roots: list[Span] = []
    for span in spans:
        parent = (span.trace_id, span.parent_id)
        if span.parent_id and parent in by_id:
            children.setdefault(parent, []).append(span)
        else:
            roots.append(span)
    for kids in children.values():
        kids.sort(key=lambda s: s.start)
    conversations: dict[str, list[Span]] = {}
    for root in sorted(roots, key=lambda s: s.start):
        conversations.setdefault(_conversation_key(root, children), []).append(root)
    return [_trace(key, group, children) for key, group in conversations.items()]


def _descendants(span: Span, children: dict[tuple[str, str], list[Span]]) -> list[Span]:
    out, todo, seen = [], [span], set()
    while todo:
        current = todo.pop(0)
        for kid in children.get((current.trace_id, current.span_id), []):
            if id(kid) not in seen:  # a span listed as its own ancestor cannot loop
                seen.add(id(kid))
                out.append(kid)
                todo.append(kid)
    return sorted(out, key=lambda s: s.start)


def _conversation_key(root: Span, children: dict[tuple[str, str], list[Span]]) -> str:
    if root.get("giskard.case.name") is not None:
        return f"case:{root.trace_id}:{root.span_id}"
    for span in (root, *_descendants(root, children)):
        session = span.get(*_SESSION_KEYS)
        if session is not None:
            return f"session:{session}"
    return f"trace:{root.trace_id}"


def _trace(key: str, roots: list[Span], children: dict[tuple[str, str], list[Span]]) -> Trace:
    annotations: dict[str, Any] = {
        "otel": {
            "trace_ids": list(dict.fromkeys(r.trace_id for r in roots)),
            "service": roots[0].service,
        }
    }
    if key.startswith("session:"):
        annotations["otel"]["session_id"] = key.removeprefix("session:")
    if key.startswith("case:"):
        case = roots[0]
        kids = children.get((case.trace_id, case.span_id), [])
        turns = sorted(
            (k for k in kids if k.get("giskard.turn.index") is not None),
            key=lambda s: int(s.get("giskard.turn.index") or 0),
        )
        interactions = [_own_turn(t, children) for t in turns]
        annotations["case"] = {
            "name": case.get("giskard.case.name"),
            "status": case.get("giskard.case.status"),
        }
        annotations["checks"] = [_check(k) for k in kids if k.get("giskard.check.status")]
    else:
        interactions = [_turn(r, children) for r in roots]
    return Trace(interactions=interactions, annotations=annotations)


def _loaded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    data, why = parse_arguments(value)
    return value if why else data


def _own_turn(turn: Span, children: dict[tuple[str, str], list[Span]]) -> Interaction:
    calls = [c for s in _descendants(turn, children) if is_tool(s) for c in _calls(s)]
    metadata = _loaded(turn.get("giskard.turn.metadata"))
    return Interaction(
        inputs=_loaded(turn.get("giskard.turn.inputs")),
        outputs=_loaded(turn.get("giskard.turn.outputs")),
        metadata=metadata if isinstance(metadata, dict) else {},
        tool_calls=calls,
        latency_s=_seconds(turn),
    )


def _calls(span: Span) -> list[ToolCall]:
    call = tool_call_of(span)
    return [] if call is None else [call]


def _check(span: Span) -> dict[str, Any]:
    prefix = "giskard.check.metric."
    return {
        "name": span.get("giskard.check.name"),
        "kind": span.get("giskard.check.kind"),
        "status": span.get("giskard.check.status"),
        "message": span.get("giskard.check.message"),
        "metrics": {
            k[len(prefix) :]: v for k, v in span.attributes.items() if k.startswith(prefix)
        },
    }


def _seconds(span: Span) -> float | None:
    return (span.end - span.start) / 1e9 if span.end >= span.start > 0 else None


def _turn(root: Span, children: dict[tuple[str, str], list[Span]]) -> Interaction:
    spans = [root, *_descendants(root, children)]
    executed = [c for s in spans if is_tool(s) for c in _calls(s)]
    llms = [s for s in spans if is_llm(s)]
    asked = [c for s in llms for c in requested_calls(s)]
    answered_ids = {c.id for c in executed if c.id}
    answered_names = [c.name for c in executed if not c.id]
    missing = []
    for call in asked:  # a call the model asked for that no tool span answered
        if call.id and call.id in answered_ids:
            continue
        if not call.id and call.name in answered_names:
            answered_names.remove(call.name)
            continue
        missing.append(call)
    calls = executed + missing
    inputs = input_text(root) if not is_tool(root) else None
    if inputs is None and llms:
        inputs = input_text(llms[0])
    outputs = output_text(root) if not is_tool(root) else None
    if outputs is None and llms:
        outputs = output_text(llms[-1])
    return Interaction(
        inputs=inputs,
        outputs=outputs,
        tool_calls=calls,
        latency_s=_seconds(root),
        metadata={"otel": {"trace_id": root.trace_id, "span_id": root.span_id, "name": root.name}},
    )


def test_cases_from_otlp(source: Any) -> list[dict[str, Any]]:
    """The conversations of an OTLP JSON export as Hub dataset items: ``{"name", "messages",
    "metadata"}`` with OpenAI-format messages (a final assistant message is the reply to test)."""
    items = []
    for number, trace in enumerate(traces_from_otlp(source), 1):
        case = trace.annotations.get("case") or {}
        otel = trace.annotations.get("otel") or {}
        name = case.get("name") or f"OTLP conversation {number}"
        items.append(
            {
                "name": str(name)[:200],
                "messages": messages_of(trace),
                "metadata": {"source": "otlp", **{k: v for k, v in otel.items() if v}},
            }
        )
    return items


test_cases_from_otlp.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def messages_of(trace: Trace) -> list[dict[str, Any]]:
    """A trace as an OpenAI-format conversation: user, assistant ``tool_calls``, ``tool`` results,
    assistant answer, for each turn."""
    messages: list[dict[str, Any]] = []
    for turn, interaction in enumerate(trace.interactions):
        if interaction.inputs is not None:
            messages.append({"role": "user", "content": _as_text(interaction.inputs)})
        calls = interaction.tool_calls
        if calls:
            ids = [c.id or f"call_{turn}_{k}" for k, c in enumerate(calls)]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": c.name, "arguments": dumps(c.arguments)},
                        }
                        for i, c in zip(ids, calls, strict=True)
                    ],
                }
            )
            for i, c in zip(ids, calls, strict=True):
                content = c.error if c.failed else c.result
                messages.append({"role": "tool", "tool_call_id": i, "content": _as_text(content)})
        if interaction.outputs is not None:
            messages.append({"role": "assistant", "content": _as_text(interaction.outputs)})
    return messages


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
