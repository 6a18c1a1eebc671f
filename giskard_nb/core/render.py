"""Text reports and HTML views of results. Every value shown is escaped: agent output is untrusted text."""

from __future__ import annotations

import html
import json
import os
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from giskard_nb.core.result import CheckResult
from giskard_nb.core.trajectory import trajectory_html
from giskard_nb.palette import STATUS_COLORS

if TYPE_CHECKING:
    from giskard_nb.core.interaction import Trace
    from giskard_nb.core.scenario_result import ScenarioResult
    from giskard_nb.core.suite_result import SuiteResult

_SYMBOL = {"pass": ".", "fail": "F", "error": "E", "skip": "s"}
_MAX_TEXT = 2000
MAX_REPORTED_FAILURES_ENV = "GISKARD_CHECKS_MAX_REPORTED_FAILURES"


def max_reported_failures() -> int | None:
    """How many failing scenarios a suite report lists (``GISKARD_CHECKS_MAX_REPORTED_FAILURES``);
    None (all of them) when the variable is unset, not an integer, or negative."""
    raw = os.environ.get(MAX_REPORTED_FAILURES_ENV, "").strip()
    return int(raw) if raw.lstrip("+").isdigit() else None


def short(value: Any, limit: int = _MAX_TEXT) -> str:
    """A readable, bounded string form of any value."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- plain text ------------------------------------------------------------------------------------------


def _check_line(r: CheckResult) -> str:
    msg = f": {r.message}" if r.message else ""
    return f"    [{r.status.value.upper():5}] {r.check_name or 'check'}{msg}"


def scenario_report(result: ScenarioResult) -> str:
    lines = [f"== {result.scenario_name} — {result.status.value.upper()} =="]
    for i, step in enumerate(result.steps, 1):
        lines.append(f"  step {i}: {step.status.value.upper()}")
        if not step.results and step.error is None:
            lines.append(f"    ({step.skip_reason})")
        if step.error:
            lines.append(f"    error: {step.error.summary()}")
        lines.extend(_check_line(r) for r in step.results)
    lines.append("  trace:")
    for i, it in enumerate(result.final_trace.interactions, 1):
        lines.append(f"    {i}. inputs:  {short(it.inputs, 300)}")
        lines.append(f"       outputs: {short(it.outputs, 300)}")
    runs = (
        f" | runs: {result.runs_executed}/{result.multiple_runs}"
        if result.multiple_runs > 1
        else ""
    )
    lines.append(f"  {len(result.steps)} steps in {result.duration_ms:.0f} ms{runs}")
    return "\n".join(lines)


def suite_report(result: SuiteResult, group_by: str | None = None) -> str:
    lines = [
        f"== {result.name}: suite results ==",
        "".join(_SYMBOL[r.status.value] for r in result.results),
    ]
    if result.failures:
        lines.append("-- failures --")
        cap = max_reported_failures()
        shown = result.failures if cap is None else result.failures[:cap]
        for r in shown:
            lines.append(f"  {r.scenario_name} ({r.status.value.upper()})")
            lines.extend(f"    {line}" for line in r.format_failures())
        if len(shown) < len(result.failures):
            lines.append(f"  ... and {len(result.failures) - len(shown)} more")
    if group_by:
        lines.append(f"-- by {group_by} --")
        for name, g in result.group_by(group_by).groups.items():
            lines.append(
                f"  {name or '(untagged)'}: {g.passed} passed, {g.rate.text(interval=g.interval)}"
            )
    lines.append(
        f"{len(result.results)} scenarios: {result.passed_count} passed, {result.failed_count} failed, "
        f"{result.errored_count} errored, {result.skipped_count} skipped | "
        f"{result.rate.text(1, result.pass_rate_interval())} | {result.duration_ms:.0f} ms"
        f"{result.repeats_note()}"
    )
    usage = result.usage
    if usage.llm_calls:
        lines.append(
            f"LLM: {usage.llm_calls} calls, {usage.total_tokens} tokens, ${usage.cost_usd:.4f}"
        )
    return "\n".join(lines)


# -- HTML ------------------------------------------------------------------------------------------------

e = html.escape


def safe_html(render: Callable[[Any], str], obj: Any) -> str:
    """Render, and if rendering fails show the error instead of raising (display never breaks a cell)."""
    try:
        return render(obj)
    except Exception as exc:  # pragma: no cover - defensive
        tb = "".join(traceback.format_exception(exc))
        return f"<pre>could not render {e(type(obj).__name__)}:\n{e(tb)}</pre>"


def badge(status: str) -> str:
    color = STATUS_COLORS.get(status, "#555")
    return (
        f'<span style="background:{color};color:#fff;border-radius:3px;padding:0 6px;'
        f'font-size:0.85em;font-family:monospace">{e(status.upper())}</span>'
    )


def check_result_html(r: CheckResult) -> str:
    return f"<div>{badge(r.status.value)} <b>{e(r.check_name or 'check')}</b> {e(r.message or '')}</div>"


def _interactions_html(trace: Trace) -> str:
    rows = []
    for i, it in enumerate(trace.interactions, 1):
        rows.append(
            f"<tr><td>{i}</td><td><pre style='white-space:pre-wrap;margin:0'>{e(short(it.inputs))}</pre></td>"
            f"<td><pre style='white-space:pre-wrap;margin:0'>{e(short(it.outputs))}</pre></td></tr>"
        )
    body = "".join(rows) or "<tr><td colspan=3><i>empty trace</i></td></tr>"
    return f"<table><tr><th>#</th><th>inputs</th><th>outputs</th></tr>{body}</table>"


def trace_html(trace: Trace) -> str:
    """The interactions of a trace and, when the agent called tools, its trajectory."""
    return _interactions_html(trace) + trajectory_html(trace.tool_calls)


def scenario_html(result: ScenarioResult) -> str:
    parts = [
        f"<div><h4 style='margin:4px 0'>{badge(result.status.value)} {e(result.scenario_name)}</h4>"
    ]
    for i, step in enumerate(result.steps, 1):
        parts.append(f"<div style='margin-left:1em'>step {i} {badge(step.status.value)}")
        if not step.results and step.error is None:
            parts.append(f" <i>{e(step.skip_reason or '')}</i>")
        if step.error:
            parts.append(f" <code>{e(step.error.summary())}</code>")
        parts.extend(
            f"<div style='margin-left:1em'>{check_result_html(r)}</div>" for r in step.results
        )
        parts.append("</div>")
    parts.append(
        f"<details><summary>trace ({len(result.final_trace.interactions)} interactions)</summary>"
        f"{_interactions_html(result.final_trace)}</details>"
    )
    parts.append(trajectory_html(result.final_trace.tool_calls, result.check_results))
    parts.append(f"<small>{result.duration_ms:.0f} ms</small></div>")
    return "".join(parts)


def suite_html(result: SuiteResult) -> str:
    head = (
        f"<div><h4 style='margin:4px 0'>{e(result.name)}: {len(result.results)} scenarios — "
        f"{e(result.rate.text(1, result.pass_rate_interval()))}{e(result.repeats_note())}</h4>"
        f"<p>{badge('pass')} {result.passed_count} {badge('fail')} {result.failed_count} "
        f"{badge('error')} {result.errored_count} {badge('skip')} {result.skipped_count}</p>"
    )
    rows = []
    for r in result.results[:200]:
        first = next(iter(r.format_failures()), "")
        rows.append(
            f"<tr><td>{badge(r.status.value)}</td><td>{e(r.scenario_name)}</td>"
            f"<td>{e(short(first, 300))}</td><td>{r.duration_ms:.0f} ms</td></tr>"
        )
    more = f"<p>… and {len(result.results) - 200} more</p>" if len(result.results) > 200 else ""
    return (
        head
        + "<table><tr><th>status</th><th>scenario</th><th>first failure</th><th>time</th></tr>"
        + "".join(rows)
        + f"</table>{more}</div>"
    )
