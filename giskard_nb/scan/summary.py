"""Per-probe and per-category summaries of a scan (their tables are built in ``giskard_nb.frames.scans``).

``ScanReport.probe_summaries()`` and ``.category_summaries()`` delegate here; this module reads a report
without importing ``scan.result`` (annotations only), so the two are not an import circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from giskard_nb.scan.catalogue import default_catalogue
from giskard_nb.scan.coverage import CoverageStatus
from giskard_nb.scan.grading import ReviewStatus, Severity

if TYPE_CHECKING:
    from giskard_nb.scan.result import ScanReport

__all__ = ["CategorySummary", "ProbeSummary", "category_summaries", "probe_summaries"]


class ProbeSummary(BaseModel):
    """Per-probe counts: attempts, successes (findings), errors, highest severity."""

    probe_id: str
    name: str
    category: str
    attempts: int = 0
    successes: int = 0
    errors: int = 0
    ignored: int = 0
    #: Suspected findings not decided yet (rule-based: listed, not in ``successes`` nor the grade).
    suspected: int = 0
    highest_severity: Severity = Severity.SAFE
    skipped: str | None = None
    #: It needs a judge model and ran (or was skipped) without one: it screened, it did not assess.
    unjudged: bool = False


class CategorySummary(BaseModel):
    """Per-category counts, with its OWASP id."""

    category: str
    title: str
    owasp_id: str | None = None
    probes: int = 0
    attempts: int = 0
    successes: int = 0
    errors: int = 0
    suspected: int = 0
    highest_severity: Severity = Severity.SAFE
    #: ``assessed``, ``partial`` or ``not_assessed`` (see ``giskard_nb.scan.coverage``).
    coverage: CoverageStatus | None = None
    coverage_reason: str = ""


def probe_summaries(report: ScanReport) -> list[ProbeSummary]:
    """One summary per probe planned (in plan order), then per probe skipped."""
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
