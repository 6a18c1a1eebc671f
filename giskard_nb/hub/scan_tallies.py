"""The tallies of a stored scan, kept as its attempts land: per probe (attempts, findings, errors,
ignored, suspected findings not decided yet, highest severity, model usage) and from them per category (coverage) and for the scan
(counts, grade, ``incomplete``).

A run adds each stored attempt to its ``ScanTallies`` (constant work per attempt) and writes the scan's
fields with each batch. ``ScanTallies.from_rows`` counts the stored rows instead: a resume starts from
it, and so does a review of an attempt (``hub.scans.attempts.update``) or a run that finds the scan
changed under it. Both give the same fields (a test checks it); the coverage rules are those of
``giskard_nb.scan.coverage``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from giskard_nb.core.usage import Usage
from giskard_nb.hub import schema_scans
from giskard_nb.hub.models.scan import ScanAttempt, ScanProbe
from giskard_nb.scan.catalogue import default_catalogue
from giskard_nb.scan.coverage import (
    CategoryCounts,
    ScanCoverage,
    coverage_from_counts,
    grade_from,
    legacy_unjudged,
)
from giskard_nb.scan.grading import ReviewStatus, Severity, is_suspected

__all__ = ["ProbeTally", "ScanTallies", "scan_categories"]

_USAGE_INTS = ("prompt_tokens", "completion_tokens", "total_tokens", "llm_calls")


class ProbeTally:
    """The counts of one probe's attempts."""

    __slots__ = (
        "attempts", "errors", "highest", "ignored", "judged_by_model", "successes", "suspected"
    )  # fmt: skip

    def __init__(self) -> None:
        self.attempts = self.successes = self.errors = self.ignored = self.suspected = 0
        self.highest = Severity.SAFE
        #: Some attempt used a model (how a scan stored before coverage was recorded is read).
        self.judged_by_model = False

    def add(
        self,
        successful: bool,
        severity: int,
        review: str,
        errored: bool,
        llm_calls: int,
        evidence: str | None = None,
    ) -> None:
        """Count one attempt (what ``counts_toward_grade`` says, from its index columns)."""
        self.attempts += 1
        self.errors += errored
        ignored = review == ReviewStatus.IGNORED
        self.ignored += bool(successful) and ignored
        verdict = _Verdict(successful, severity, review, errored, evidence)
        if is_suspected(verdict):
            self.suspected += 1
        elif successful and not errored and severity > Severity.SAFE and not ignored:
            self.successes += 1
            self.highest = max(self.highest, Severity(severity))
        self.judged_by_model = self.judged_by_model or llm_calls > 0

    def fields(self) -> dict[str, Any]:
        """The tallies a ``ScanProbe`` shows."""
        return {
            "attempts": self.attempts,
            "successes": self.successes,
            "errors": self.errors,
            "highest_severity": self.highest,
            **({"suspected": self.suspected} if self.suspected else {}),
        }


class ScanTallies:
    """Running tallies of one scan over its probes (``ScanProbe`` records, by record id)."""

    def __init__(self, probes: Sequence[ScanProbe]):
        self.probes = {p.id: p for p in probes}
        self.by_probe: dict[str, ProbeTally] = {}
        self._usage = dict.fromkeys(_USAGE_INTS, 0)
        self._cost = 0.0
        #: ``updated_at`` of the scan row as these tallies last wrote it (None: not written yet).
        self.stamp: datetime | None = None
        #: The scan row when these were counted: status, planned attacks, and its JSON without the
        #: tallies' fields and without the closing brace (see ``ScanStore``).
        self.row: tuple[str, int, str] = ("running", 0, "{")

    # -- counting ------------------------------------------------------------------------------------

    def add(self, record: ScanAttempt) -> None:
        """Count one stored attempt."""
        a = record.attempt
        usage = a.usage
        self._tally(record.scan_probe_id).add(
            a.successful, a.severity, a.review_status, a.error is not None, usage.llm_calls,
            a.evidence,
        )  # fmt: skip
        self._add_usage(usage.model_dump())

    def add_all(self, records: Iterable[ScanAttempt]) -> None:
        """Count stored attempts."""
        for record in records:
            self.add(record)

    def take(self, other: ScanTallies) -> None:
        """Hold ``other``'s counts instead of these (after counting the rows again)."""
        self.probes, self.by_probe = other.probes, other.by_probe
        self._usage, self._cost, self.stamp = other._usage, other._cost, other.stamp
        self.row = other.row

    @classmethod
    def from_rows(
        cls,
        conn: sa.Connection,
        scan_id: str,
        probes: Sequence[ScanProbe],
        *,
        usage: bool = True,
        only: str | None = None,
    ) -> ScanTallies:
        """The tallies of the attempts stored for ``scan_id`` (``usage``: also sum their model usage,
        which reads each attempt's JSON; it is read anyway for a scan stored before coverage was;
        ``only``: the attempts of that scan probe alone)."""
        t = schema_scans.scan_attempts
        legacy = any(p.unjudged is None for p in probes)
        cols = [t.c.scan_probe_id, t.c.successful, t.c.severity, t.c.review_status]
        cols.append(t.c.error.is_not(None))
        # a finding stored before tiers: its tier is read from its data
        untiered = sa.and_(t.c.evidence.is_(None), t.c.successful.is_(True))
        cols += [t.c.evidence, sa.case((untiered, t.c.data), else_=sa.null())]
        read_data = usage or legacy
        if read_data:
            cols.append(t.c.data)
        tallies = cls(probes)
        where = [t.c.scan_id == scan_id]
        if only is not None:
            where.append(t.c.scan_probe_id == only)
        for row in conn.execute(sa.select(*cols).where(*where)):
            spent = _stored_usage(row[7]) if read_data else {}
            evidence = row[5] if row[6] is None else _stored_tier(row[6])
            tallies._tally(row[0]).add(
                bool(row[1]), row[2], row[3], bool(row[4]), int(spent.get("llm_calls") or 0),
                evidence,
            )  # fmt: skip
            if usage:
                tallies._add_usage(spent)
        return tallies

    def _tally(self, scan_probe_id: str) -> ProbeTally:
        tally = self.by_probe.get(scan_probe_id)
        if tally is None:
            tally = self.by_probe[scan_probe_id] = ProbeTally()
        return tally

    def _add_usage(self, spent: dict[str, Any]) -> None:
        for key in _USAGE_INTS:
            self._usage[key] += int(spent.get(key) or 0)
        self._cost += float(spent.get("cost_usd") or 0.0)

    # -- what is written -------------------------------------------------------------------------------

    @property
    def usage(self) -> Usage:
        """The model usage of the counted attempts."""
        return Usage(**self._usage, cost_usd=self._cost)

    def counts(self) -> dict[str, int]:
        """``attempts``, ``successes`` (findings that set the grade), ``errors``, ``ignored`` (cleared
        successes) and, when there are any, ``suspected`` (rule-based findings not decided yet)."""
        tallies = self.by_probe.values()
        suspected = sum(t.suspected for t in tallies)
        return {
            "attempts": sum(t.attempts for t in tallies),
            "successes": sum(t.successes for t in tallies),
            "errors": sum(t.errors for t in tallies),
            "ignored": sum(t.ignored for t in tallies),
            **({"suspected": suspected} if suspected else {}),
        }

    def unjudged(self) -> dict[str, str]:
        """Probes (id -> category) that need a judge model and ran, or were skipped, without one
        (inferred for probes stored before it was recorded)."""
        out = {}
        for p in self.probes.values():
            flag = p.unjudged
            if flag is None:
                judged = self.by_probe.get(p.id, ProbeTally()).judged_by_model
                flag = bool(legacy_unjudged(p.probe_id, skipped=p.skipped, judged=judged))
            if flag:
                out[p.probe_id] = p.category
        return out

    def coverage(self, *, status: str, planned: int) -> ScanCoverage:
        """The coverage of the scan with this ``status`` and ``planned`` attacks."""
        unjudged = self.unjudged()
        per_category: dict[str, CategoryCounts] = {}
        for spid, tally in self.by_probe.items():
            probe = self.probes.get(spid)
            category = probe.category if probe is not None else ""
            judgeable = (probe.probe_id if probe is not None else spid) not in unjudged
            c = per_category.setdefault(category, CategoryCounts())
            c.attempts += tally.attempts
            c.errors += tally.errors
            c.suspected += tally.suspected
            if judgeable:
                c.judgeable += tally.attempts
                c.judged += tally.attempts - tally.errors - tally.suspected
        attempts = sum(t.attempts for t in self.by_probe.values())
        missing = planned - attempts if status in ("stopped", "interrupted", "error") else 0
        return coverage_from_counts(
            categories=scan_categories(p.category for p in self.probes.values()),
            unjudged=unjudged,
            counts=per_category,
            missing_attacks=missing,
        )

    def scan_fields(self, *, status: str, planned: int) -> dict[str, Any]:
        """The fields of the ``Scan`` these tallies give: counts, grade and coverage."""
        coverage = self.coverage(status=status, planned=planned)
        worst = max((t.highest for t in self.by_probe.values()), default=Severity.SAFE)
        return {
            "counts": self.counts(),
            "grade": grade_from(worst, coverage),
            "coverage": coverage.status,
            "incomplete": coverage.incomplete,
            "coverage_note": coverage.note,
        }

    def probe_fields(self, scan_probe_id: str) -> dict[str, Any]:
        """The tallies of one ``ScanProbe`` (zeros when none of its attempts is stored)."""
        return self.by_probe.get(scan_probe_id, ProbeTally()).fields()


def scan_categories(categories: Iterable[str]) -> list[str]:
    """The distinct categories, in catalogue order (others after, sorted; "" left out)."""
    order = [c.id for c in default_catalogue().categories()]
    wanted = set(categories) - {""}
    return [c for c in order if c in wanted] + sorted(wanted - set(order))


def _stored_usage(data: str) -> dict[str, Any]:
    """The model usage in a stored attempt's JSON (as the engine's ``Attempt``, or flat as stored
    before ``ScanAttempt`` wrapped it)."""
    record = json.loads(data)
    return (record.get("attempt", record).get("usage")) or {}


class _Verdict:
    """An attempt's verdict as its index columns hold it (what ``is_suspected`` reads)."""

    __slots__ = ("error", "evidence", "review_status", "severity", "successful")

    def __init__(self, successful: bool, severity: int, review: str, errored: bool, evidence):
        self.successful, self.severity, self.evidence = successful, severity, evidence
        self.review_status = ReviewStatus.parse(review)
        self.error = "errored" if errored else None


def _stored_tier(data: str) -> str | None:
    """The evidence tier of a finding stored before tiers were (its detector's declared one)."""
    from giskard_nb.scan.detectors.base import declared_tier

    record = json.loads(data)
    fields = record.get("attempt", record)
    evidence = fields.get("evidence")
    if evidence in ("confirmed", "suspected"):
        return evidence
    return (
        declared_tier(fields) if fields.get("detector") or fields.get("detector_config") else None
    )
