"""HTML views of Hub objects for notebooks. Every piece of text is escaped (agent output is untrusted)."""

from __future__ import annotations

from html import escape as e
from typing import Any

from giskard_nb.core.render import badge, safe_html

__all__ = ["comparison_html", "evaluation_html", "result_html", "safe_html", "summary_html"]

_TABLE = 'style="border-collapse:collapse;font-size:0.9em"'
_CELL = 'style="border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top"'


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th {_CELL}>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {_CELL}>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table {_TABLE}><tr>{head}</tr>{body}</table>"


def _short(text: Any, limit: int = 300) -> str:
    value = "" if text is None else str(text)
    return e(value if len(value) <= limit else value[:limit] + "…")


def evaluation_html(evaluation: Any) -> str:
    total = sum(evaluation.counts.values())
    rate = evaluation.rate.text()
    counts = " ".join(f"{badge(k)} {int(v)}" for k, v in evaluation.counts.items() if v)
    categories = ", ".join(
        f"{e(k)}: {int(v)}" for k, v in sorted(evaluation.failure_categories.items())
    )
    return (
        f"<div><b>Evaluation {e(evaluation.name)}</b> — {e(evaluation.status)}, agent "
        f"{e(evaluation.agent_name)}{' (local)' if evaluation.local else ''}<br>"
        + (
            f"{total}/{evaluation.n_test_cases * evaluation.repeats} results "
            f"({evaluation.n_test_cases} test cases × {evaluation.repeats} runs), "
            if evaluation.repeats > 1
            else f"{total}/{evaluation.n_test_cases} results, "
        )
        + f"{e(rate)} {counts}"
        + (f"<br>Failure categories: {categories}" if categories else "")
        + (f"<br><i>{_short(evaluation.error)}</i>" if evaluation.error else "")
        + "</div>"
    )


def result_html(result: Any) -> str:
    rows = [[e(c.name), badge(c.status), _short(c.message)] for c in result.checks]
    conversation = "<br>".join(f"<b>{e(m.role)}</b>: {_short(m.content)}" for m in result.messages)
    reply = result.agent_output.content if result.agent_output else None
    category = result.failure_category
    skipped = result.status == "skip" and not result.checks
    return (
        f"<div>{badge(result.status)} test case {e(result.test_case_id)}"
        + (
            f" — <b>{e(category.title)}</b> ({e(result.failure_category_source or '')})"
            if category
            else ""
        )
        + f"<br>{conversation}<br><b>agent</b>: {_short(reply)}"
        + (f"<br><i>{_short(result.error)}</i>" if result.error else "")
        + ("<br><i>no checks: nothing was judged</i>" if skipped else "")
        + (_table(["check", "status", "message"], rows) if rows else "")
        + "</div>"
    )


def _bounds(interval: Any) -> str:
    return f"{interval.low:.0%}–{interval.high:.0%}" if interval is not None else ""


def summary_html(summary: Any) -> str:
    checks = _table(
        ["check", "pass rate", "95% interval", "passed", "failed", "errors"],
        [
            [
                e(c.name),
                e(c.rate.percent()),
                e(_bounds(c.interval)),
                str(c.passed),
                str(c.failed),
                str(c.errored),
            ]
            for c in summary.by_check
        ],
    )
    categories = _table(
        ["failure category", "count", "share", "95% interval"],
        [
            [e(c.title), str(c.count), e(f"{c.share:.0%}"), e(_bounds(c.share_interval))]
            for c in summary.by_category
        ],
    )
    skipped = _table(
        ["skipped test case", "reason"],
        [[_short(c.label, 120), e(c.reason)] for c in summary.skipped_cases[:200]],
    )
    interval = summary.interval
    repeats = ""
    if summary.runs_per_case > 1:
        k, n = summary.runs_per_case, len(summary.cases)
        flaky = _table(
            ["flaky test case", "passed", "runs"],
            [[_short(c.label, 120), str(c.passed), str(c.runs)] for c in summary.flaky_cases[:20]],
        )
        repeats = (
            f"<br>Repeats: {k} per case; pass^{k} {summary.n_pass_all}/{n} cases, "
            f"pass@{k} {summary.n_pass_any}/{n}, {summary.n_flaky} flaky"
            + (flaky if summary.n_flaky else "")
        )
    return (
        f"<div><b>{e(summary.name)}</b>: {summary.total} results ({summary.passed} passed, "
        f"{summary.failed} failed, {summary.errored} errored, {summary.skipped} skipped), "
        f"{e(summary.rate.text(interval=interval))}{repeats}"
        f"{checks}{categories if summary.by_category else ''}"
        f"{skipped if summary.skipped_cases else ''}</div>"
    )


def comparison_html(comparison: Any) -> str:
    before, after = comparison.rates()
    rows = [
        [
            _short(c.question or c.test_case_id, 120),
            badge(c.before or "skip"),
            badge(c.after or "skip"),
            e(c.change),
        ]
        for c in comparison.changed
    ]
    return (
        f"<div><b>{e(comparison.before_name)}</b> → <b>{e(comparison.after_name)}</b>: pass rate "
        f"{e(before.percent())} ({e(before.note())}) → {e(after.percent())} ({e(after.note())}), "
        f"{len(comparison.regressions)} regressions, "
        f"{len(comparison.fixes)} fixes"
        + (_table(["test case", "before", "after", "change"], rows) if rows else "")
        + "</div>"
    )
