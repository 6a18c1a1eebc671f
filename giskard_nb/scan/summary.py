"""Per-probe and per-category summaries of a scan, and its tables (pandas, imported lazily)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from giskard_nb.scan.grading import ReviewStatus, Severity

if TYPE_CHECKING:
    from giskard_nb.scan.result import Attempt, CategorySummary, ProbeSummary, ScanReport

__all__ = ["attempts_dataframe", "category_summaries", "probe_summaries", "summaries_dataframe"]

ATTEMPT_COLUMNS = [
    "attempt_id", "probe_id", "probe_name", "category", "variant", "source", "status", "successful",
    "severity", "review_status", "counts", "reason", "detector", "input", "output", "turns", "error",
    "agent_calls", "llm_calls", "total_tokens", "cost_usd", "duration_ms", "created_at", "attack_id",
]  # fmt: skip


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
        s.highest_severity = max(s.highest_severity, p.highest_severity)
    coverage = report.coverage_details.categories
    for cid, cov in coverage.items():
        s = out.setdefault(cid, CategorySummary(category=cid, title=cid))
        s.coverage, s.coverage_reason = cov.status, cov.reason
    return [s for s in out.values() if s.probes or s.category in coverage]


def _row(a: Attempt) -> dict[str, Any]:
    turns = [m.get("content", "") for m in a.input_messages if m.get("role") == "user"]
    return {
        "attempt_id": a.id,
        "probe_id": a.probe_id,
        "probe_name": a.probe_name,
        "category": a.category,
        "variant": a.attack.variant,
        "source": a.attack.source,
        "status": a.status,
        "successful": a.successful,
        "severity": Severity(a.severity).label,
        "review_status": str(a.review_status),
        "counts": a.counts,
        "reason": a.reason,
        "detector": a.detector,
        "input": turns[-1] if turns else "",
        "output": a.output,
        "turns": len(turns),
        "error": a.error,
        "agent_calls": a.agent_calls,
        "llm_calls": a.usage.llm_calls,
        "total_tokens": a.usage.total_tokens,
        "cost_usd": a.usage.cost_usd,
        "duration_ms": a.duration_ms,
        "created_at": a.created_at,
        "attack_id": a.attack.id,
    }


def attempts_dataframe(attempts: Iterable[Attempt]):
    """A DataFrame with one row per attempt (columns ``ATTEMPT_COLUMNS``, severity as ordered labels)."""
    import pandas as pd

    df = pd.DataFrame([_row(a) for a in attempts], columns=ATTEMPT_COLUMNS)
    df["severity"] = pd.Categorical(
        df["severity"], categories=[s.label for s in Severity], ordered=True
    )
    return df


def summaries_dataframe(summaries: list[Any]):
    """A DataFrame of probe or category summaries (severity as a label)."""
    import pandas as pd

    rows = []
    for s in summaries:
        row = s.model_dump()
        row["highest_severity"] = Severity(row["highest_severity"]).label
        rows.append(row)
    return pd.DataFrame(rows)
