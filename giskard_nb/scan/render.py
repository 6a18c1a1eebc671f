"""Text and HTML views of a scan: the grade card, per-category counts and coverage, the findings.

An incomplete scan says so next to its grade ("A on 6 of 11 categories — incomplete: …"), and a scan
that judged nothing shows no letter ("—"). Findings say how they were established: ``confirmed`` (they
set the grade) or ``suspected`` (rule-based, listed apart: a judge model or a review decides them). Everything shown from an attack or a reply is escaped
(``html.escape``): agent output is untrusted.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from giskard_nb.palette import GRADE_COLORS, INCOMPLETE_COLOR, NO_GRADE_COLOR
from giskard_nb.scan.grading import Severity

if TYPE_CHECKING:
    from giskard_nb.scan.result import Attempt, ScanReport

__all__ = [
    "COVERAGE_COLORS",
    "EVIDENCE_COLORS",
    "GRADE_COLORS",
    "INCOMPLETE_COLOR",
    "NO_GRADE_COLOR",
    "SEVERITY_COLORS",
    "grade_card_html",
    "grade_meaning",
    "scan_html",
    "scan_text",
]

COVERAGE_COLORS = {"assessed": "#2e7d32", "partial": "#ef6c00", "not_assessed": "#c62828"}
EVIDENCE_COLORS = {"confirmed": "#c62828", "suspected": "#757575"}
#: How the views introduce the suspected findings.
SUSPECTED_NOTE = "suspected (rule-based, not in the grade: a judge model or a review decides)"
SEVERITY_COLORS = {
    Severity.SAFE: "#2e7d32",
    Severity.MINOR: "#9e9d24",
    Severity.MAJOR: "#ef6c00",
    Severity.CRITICAL: "#c62828",
}
_GRADE_TEXT = {
    "A": "no successful attack",
    "B": "minor findings only",
    "C": "at least one major finding",
    "D": "at least one critical finding",
}
e = html.escape


def grade_meaning(grade: str | None) -> str:
    return _GRADE_TEXT.get(grade or "", "nothing was judged")


def _short(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scan_text(report: ScanReport) -> str:
    """A plain-text report: grade (with what it covers), counts and coverage per category, findings."""
    grade = report.grade
    coverage = report.coverage_details
    lines = [
        f"== Scan {report.name!r}: grade {report.grade_line} — {report.status} ==",
        f"{report.counts_line} ({grade_meaning(grade)})",
    ]
    if report.stop_reason:
        lines.append(f"stopped: {report.stop_reason}")
    for c in report.category_summaries():
        owasp = f" [{c.owasp_id}]" if c.owasp_id else ""
        worst = f", worst {c.highest_severity.label}" if c.successes else ""
        cov = coverage.categories.get(c.category)
        status = ""
        if cov is not None and cov.status != "assessed":
            status = f" — {cov.status.replace('_', ' ')} ({cov.reason})"
        lines.append(
            f"  {c.title}{owasp}: {c.successes}/{c.attempts} successful attacks{worst}"
            + (f", {c.errors} errors" if c.errors else "")
            + (f", {c.suspected} suspected" if c.suspected else "")
            + status
        )
    if report.warnings:
        lines.append("warnings:")
        lines.extend(f"  {w}" for w in report.warnings)
    if report.skipped_probes:
        lines.append("skipped probes:")
        lines.extend(f"  {pid}: {why}" for pid, why in report.skipped_probes.items())
    for title, chosen in (("findings", report.findings), (SUSPECTED_NOTE, report.suspected)):
        chosen = sorted(chosen, key=lambda a: -int(a.severity))
        if chosen:
            lines.append(f"{title}:")
        for a in chosen[:50]:
            lines.append(
                f"  [{a.severity.label.upper():8}] {_tier(a):9} {a.probe_id} ({a.attack.variant}): "
                f"{_short(a.reason, 140)}"
            )
    usage = report.usage
    if usage.llm_calls:
        lines.append(
            f"model usage: {usage.llm_calls} calls, {usage.total_tokens} tokens, ${usage.cost_usd:.4f}"
        )
    return "\n".join(lines)


def _tier(a: Attempt) -> str:
    """``confirmed`` or ``suspected``; ``reviewed`` for a suspicion a reviewer confirmed."""
    tier = a.evidence or "confirmed"
    return "reviewed" if tier == "suspected" and not a.suspected else tier


def _badge(text: str, color: str) -> str:
    return (
        f'<span style="background:{color};color:#fff;border-radius:3px;padding:0 6px;'
        f'font-size:0.85em;font-family:monospace">{e(text)}</span>'
    )


def _finding_row(a: Attempt) -> str:
    sev = Severity(a.severity)
    turns = [m.get("content", "") for m in a.input_messages if m.get("role") == "user"]
    return (
        f"<tr><td>{_badge(sev.label, SEVERITY_COLORS[sev])}</td>"
        f"<td>{_badge(_tier(a), EVIDENCE_COLORS.get(a.evidence or 'confirmed', '#757575'))}</td>"
        f"<td>{e(a.category)}</td>"
        f"<td>{e(a.probe_name or a.probe_id)}<br><small>{e(a.attack.variant)}</small></td>"
        f"<td><pre style='white-space:pre-wrap;margin:0;max-width:28em'>{e(_short(turns[-1] if turns else '', 300))}</pre></td>"
        f"<td><pre style='white-space:pre-wrap;margin:0;max-width:28em'>{e(_short(a.output, 300))}</pre></td>"
        f"<td>{e(_short(a.reason, 200))}</td><td>{e(str(a.review_status))}</td></tr>"
    )


def grade_card_html(report: ScanReport) -> str:
    """The grade square and the line beside it (with the "incomplete" badge and note when it applies)."""
    grade = report.grade
    coverage = report.coverage_details
    color = GRADE_COLORS.get(grade or "", NO_GRADE_COLOR)
    note = ""
    if coverage.incomplete:
        note = (
            f"<br>{_badge('incomplete', INCOMPLETE_COLOR)} "
            f"<small class='giskard-coverage-note'>{e(report.grade_line)}</small>"
        )
    return (
        f"<div style='display:flex;align-items:center;gap:12px;margin-bottom:6px'>"
        f"<div style='background:{color};color:#fff;font-size:2.2em;font-weight:bold;width:1.6em;"
        f"height:1.6em;line-height:1.6em;text-align:center;border-radius:6px'>{e(grade or '—')}</div>"
        f"<div><b>Scan {e(report.name)}</b> — {e(report.status)}<br>"
        f"<small>{e(grade_meaning(grade))}: {e(report.counts_line)}</small>{note}</div></div>"
    )


def _suspected_cell(n: int) -> str:
    return f" <small title='{e(SUSPECTED_NOTE)}'>(+{n} suspected)</small>" if n else ""


def _coverage_cell(status: str | None, reason: str) -> str:
    if status is None:
        return "—"
    return f"<span title='{e(reason)}'>{_badge(status.replace('_', ' '), COVERAGE_COLORS[status])}</span>"


def _findings_html(summary: str, attempts: list[Attempt]) -> str:
    if not attempts:
        return ""
    chosen = sorted(attempts, key=lambda a: -int(a.severity))
    return (
        f"<details><summary>{e(summary)}</summary><table><tr><th>severity</th><th>evidence</th>"
        "<th>category</th><th>probe</th><th>attack</th><th>reply</th><th>reason</th><th>review</th></tr>"
        + "".join(_finding_row(a) for a in chosen[:100])
        + "</table>"
        + (f"<p>… and {len(chosen) - 100} more</p>" if len(chosen) > 100 else "")
        + "</details>"
    )


def scan_html(report: ScanReport) -> str:
    """The grade card: grade, status, coverage, a table of categories (attempts, successes, worst,
    coverage) and findings."""
    head = "<div style='font-family:sans-serif'>" + grade_card_html(report)
    if report.stop_reason:
        head += f"<p><small>{e(report.stop_reason)}</small></p>"
    if report.warnings:
        head += "".join(f"<p><small>⚠ {e(w)}</small></p>" for w in report.warnings)
    rows = []
    for c in report.category_summaries():
        sev = (
            _badge(c.highest_severity.label, SEVERITY_COLORS[c.highest_severity])
            if c.successes
            else ""
        )
        rows.append(
            f"<tr><td>{e(c.title)}</td><td>{e(c.owasp_id or '—')}</td><td>{c.probes}</td>"
            f"<td>{c.attempts}</td><td>{c.successes}{_suspected_cell(c.suspected)}</td><td>{c.errors}</td><td>{sev}</td>"
            f"<td>{_coverage_cell(c.coverage, c.coverage_reason)}</td></tr>"
        )
    table = (
        "<table><tr><th>category</th><th>OWASP</th><th>probes</th><th>attempts</th><th>successful</th>"
        "<th>errors</th><th>worst</th><th>coverage</th></tr>" + "".join(rows) + "</table>"
    )
    detail = _findings_html(f"{len(report.findings)} findings", report.findings)
    detail += _findings_html(f"{len(report.suspected)} {SUSPECTED_NOTE}", report.suspected)
    skipped = ""
    if report.skipped_probes:
        items = "".join(
            f"<li>{e(pid)}: {e(why)}</li>" for pid, why in report.skipped_probes.items()
        )
        n = len(report.skipped_probes)
        skipped = (
            f"<details><summary>{n} probe{'' if n == 1 else 's'} skipped</summary>"
            f"<ul>{items}</ul></details>"
        )
    return head + table + detail + skipped + "</div>"
