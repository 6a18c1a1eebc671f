"""The plain data of a scan page (grade card, per-category grades and coverage, findings with their
evidence) and of a comparison page (per-case regressions and fixes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from giskard_nb.scan.grading import grade_of
from giskard_nb.scan.redact import redact_leaks
from giskard_nb.scan.render import SUSPECTED_NOTE, grade_meaning

__all__ = [
    "CategoryRow",
    "ComparisonView",
    "FindingView",
    "ScanView",
    "comparison_view",
    "finding_matches",
    "scan_view",
]


@dataclass(frozen=True)
class CategoryRow:
    id: str
    title: str
    owasp: str
    grade: str  # the letter its confirmed findings set, "—" when not assessed
    coverage: str  # assessed | partial | not_assessed | "" (not recorded)
    coverage_reason: str
    probes: int
    attempts: int
    successes: int
    suspected: int
    errors: int


@dataclass(frozen=True)
class FindingView:
    """One successful (confirmed) or suspected attack: what was sent, what came back, why it counts."""

    id: str
    evidence: str  # confirmed | suspected | reviewed
    severity: str
    severity_rank: int
    category: str
    probe: str
    variant: str
    turns: list[str]
    output: str
    excerpt: str
    reason: str
    detector: str
    review: str

    def text(self) -> str:
        parts = [self.probe, self.category, self.output, self.reason, self.excerpt, *self.turns]
        return "\n".join(parts).lower()


@dataclass(frozen=True)
class ScanView:
    id: str
    name: str
    status: str
    grade: str | None
    grade_line: str
    meaning: str
    counts_line: str
    incomplete: bool
    details: list[tuple[str, str]]
    categories: list[CategoryRow]
    findings: list[FindingView]
    warnings: list[str]
    skipped_probes: list[tuple[str, str]]
    suspected_note: str = SUSPECTED_NOTE

    @property
    def finding_bars(self) -> list[tuple[str, int]]:
        """(category, confirmed findings) of the categories that have some."""
        return [(c.title, c.successes) for c in self.categories if c.successes]


def finding_matches(
    finding: FindingView, *, evidence: str = "", category: str = "", query: str = ""
) -> bool:
    return (
        (not evidence or finding.evidence == evidence)
        and (not category or finding.category == category)
        and (not query or query.lower() in finding.text())
    )


def _finding(attempt: Any) -> FindingView:
    tier = attempt.evidence or "confirmed"
    if tier == "suspected" and not attempt.suspected:
        tier = "reviewed"
    return FindingView(
        id=attempt.id,
        evidence=tier,
        severity=attempt.severity.label,
        severity_rank=int(attempt.severity),
        category=attempt.category,
        probe=attempt.probe_name or attempt.probe_id,
        variant=attempt.attack.variant,
        turns=[
            str(m.get("content", "")) for m in attempt.input_messages if m.get("role") == "user"
        ],
        # masked at the source (scan.redact); again here for attempts stored before that
        output=redact_leaks(attempt.output),
        excerpt=redact_leaks(attempt.excerpt or ""),
        reason=redact_leaks(attempt.reason),
        detector=attempt.detector or "",
        review=str(attempt.review_status),
    )


def scan_view(report: Any, *, details: list[tuple[str, str]] | None = None) -> ScanView:
    """The view of an engine ``ScanReport`` (a stored scan's: ``hub.scans.report(id)``)."""
    coverage = report.coverage_details.categories
    rows = []
    for c in report.category_summaries():
        status = c.coverage or ""
        rows.append(
            CategoryRow(
                id=c.category,
                title=c.title,
                owasp=c.owasp_id or "",
                grade="—" if status == "not_assessed" else grade_of(c.highest_severity),
                coverage=status,
                coverage_reason=coverage[c.category].reason if c.category in coverage else "",
                probes=c.probes,
                attempts=c.attempts,
                successes=c.successes,
                suspected=c.suspected,
                errors=c.errors,
            )
        )
    findings = [_finding(a) for a in [*report.findings, *report.suspected]]
    findings.sort(key=lambda f: (f.evidence == "suspected", -f.severity_rank))
    return ScanView(
        id=report.id,
        name=report.name,
        status=report.status,
        grade=report.grade,
        grade_line=report.grade_line,
        meaning=grade_meaning(report.grade),
        counts_line=report.counts_line,
        incomplete=report.incomplete,
        details=details or [],
        categories=rows,
        findings=findings,
        warnings=list(report.warnings),
        skipped_probes=sorted(report.skipped_probes.items()),
    )


def stored_scan_view(hub: Any, scan: Any) -> ScanView:
    """The view of a stored scan."""
    details = [
        ("status", scan.status),
        ("agent", scan.agent_name + (" (local)" if scan.local else "")),
        ("created", scan.created_at.strftime("%Y-%m-%d %H:%M UTC")),
    ]
    if scan.error:
        details.append(("error", scan.error))
    return scan_view(hub.scans.report(scan.id), details=details)


@dataclass(frozen=True)
class ComparisonView:
    before_id: str
    after_id: str
    before_name: str
    after_name: str
    before_rate: str
    after_rate: str
    counts: dict[str, int]
    regressions: list[Any]
    fixes: list[Any]
    other: list[Any]  # every other change (errors, skips, new, missing)
    unchanged: int


def comparison_view(comparison: Any) -> ComparisonView:
    """The view of an ``EvaluationComparison`` (``hub.evaluations.compare(before, after)``)."""
    before, after = comparison.rates()
    other = [
        c for c in comparison.changed if c.change not in ("pass→fail", "fail→pass", "unchanged")
    ]
    return ComparisonView(
        before_id=comparison.before_id,
        after_id=comparison.after_id,
        before_name=comparison.before_name,
        after_name=comparison.after_name,
        before_rate=before.text(),
        after_rate=after.text(),
        counts=comparison.counts(),
        regressions=comparison.regressions,
        fixes=comparison.fixes,
        other=other,
        unchanged=len(comparison.cases) - len(comparison.changed),
    )
