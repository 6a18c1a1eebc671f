"""Per-probe and per-category summaries of a scan (their tables are built in ``giskard_nb.frames.scans``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from giskard_nb.scan.grading import ReviewStatus

if TYPE_CHECKING:
    from giskard_nb.scan.result import CategorySummary, ProbeSummary, ScanReport

__all__ = ["category_summaries", "probe_summaries"]


def probe_summaries(report: ScanReport) -> list[ProbeSummary]:
    """One summary per probe planned (in plan order), then per probe skipped."""
    from giskard_nb.scan.result import ProbeSummary

    summaries: dict[str, ProbeSummary] = {}
    for p in report.probes:
        summaries[p["id"]] = ProbeSummary(
            probe_id=p["id"], name=p.get("name", p["id"]), category=p.get("category", "")
        )
    for probe_id, why in report.skipped_probes.items():
        s = summaries.setdefault(
            probe_id, ProbeSummary(probe_id=probe_id, name=probe_id, category="")
        )
        s.skipped = why
    for a in report.attempts:
        s = summaries.setdefault(
            a.probe_id, ProbeSummary(probe_id=a.probe_id, name=a.probe_name, category=a.category)
        )
        s.attempts += 1
        if a.error is not None:
            s.errors += 1
        elif a.counts:
            s.successes += 1
            s.highest_severity = max(s.highest_severity, a.severity)
        elif a.suspected:
            s.suspected += 1
        elif a.successful and a.review_status == ReviewStatus.IGNORED:
            s.ignored += 1
    for probe_id, category in report.unjudged.items():
        if probe_id in summaries:
            summaries[probe_id].unjudged = True
            summaries[probe_id].category = summaries[probe_id].category or category
    return list(summaries.values())


def category_summaries(report: ScanReport) -> list[CategorySummary]:
    """One summary per category the scan selected or touched (in catalogue order), with its coverage."""
    from giskard_nb.scan.catalogue import default_catalogue
    from giskard_nb.scan.result import CategorySummary

    catalogue = default_catalogue()
    out: dict[str, CategorySummary] = {}
    for c in catalogue.categories():
        out[c.id] = CategorySummary(category=c.id, title=c.title, owasp_id=c.owasp_id)
    for p in probe_summaries(report):
        if not p.category or p.skipped:
            continue
        s = out.setdefault(p.category, CategorySummary(category=p.category, title=p.category))
        s.probes += 1
        s.attempts += p.attempts
        s.successes += p.successes
        s.errors += p.errors
        s.suspected += p.suspected
        s.highest_severity = max(s.highest_severity, p.highest_severity)
    coverage = report.coverage_details.categories
    for cid, cov in coverage.items():
        s = out.setdefault(cid, CategorySummary(category=cid, title=cid))
        s.coverage, s.coverage_reason = cov.status, cov.reason
    return [s for s in out.values() if s.probes or s.category in coverage]
