"""``hub.scans.probes`` and ``hub.scans.attempts``: the probes of a scan (with tallies) and its attempts
(listed, retrieved, reviewed). Reviewing an attempt refreshes its scan's counts and grade."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema_scans
from giskard_nb.hub.models.scan import ScanAttempt, ScanProbe
from giskard_nb.hub.resources.base import Resource
from giskard_nb.scan.grading import ReviewStatus, Severity, counts_toward_grade

__all__ = ["ScanAttemptsResource", "ScanProbesResource", "TallyRow"]


class TallyRow:
    """What grading needs of a stored attempt (read from its columns)."""

    __slots__ = ("error", "review_status", "severity", "successful")

    def __init__(
        self, successful: bool, severity: Severity, review_status: ReviewStatus, error: str | None
    ):
        self.successful = successful
        self.severity = severity
        self.review_status = review_status
        self.error = error

    @property
    def counts(self) -> bool:
        return counts_toward_grade(self)


class ScanProbesResource(Resource[ScanProbe]):
    """The probes of a scan, with their tallies (``hub.scans.probes``)."""

    entity_type = "scan_probe"
    model = ScanProbe
    table = schema_scans.scan_probes
    columns = ("scan_id", "project_id", "probe_id", "position")

    def list(self, scan_id: str) -> list[ScanProbe]:
        """The probes of a scan in plan order: attempts, successes, errors and highest severity each."""
        self._hub.scans.retrieve(scan_id)
        probes = self._list(self.table.c.scan_id == scan_id, order_by=[self.table.c.position])
        return [self._with_tallies(p) for p in probes]

    def retrieve(self, id: str) -> ScanProbe:
        return self._with_tallies(super().retrieve(id))

    def list_attempts(self, probe_id: str) -> list[ScanAttempt]:
        return self._hub.scans.attempts.list(probe_id)

    def _with_tallies(self, probe: ScanProbe) -> ScanProbe:
        t = schema_scans.scan_attempts
        with self._db.read() as conn:
            rows = conn.execute(
                sa.select(t.c.successful, t.c.severity, t.c.review_status, t.c.error).where(
                    t.c.scan_probe_id == probe.id
                )
            ).all()
        attempts = [TallyRow(bool(r[0]), Severity(r[1]), ReviewStatus(r[2]), r[3]) for r in rows]
        found = [a for a in attempts if a.counts]
        return probe.model_copy(
            update={
                "attempts": len(attempts),
                "successes": len(found),
                "errors": sum(1 for a in attempts if a.error is not None),
                "highest_severity": max((a.severity for a in found), default=Severity.SAFE),
            }
        )._bind(self._hub)


class ScanAttemptsResource(Resource[ScanAttempt]):
    """The attempts of scans (``hub.scans.attempts``): list, retrieve, and review them."""

    entity_type = "scan_attempt"
    model = ScanAttempt
    table = schema_scans.scan_attempts
    columns = (
        "scan_id",
        "scan_probe_id",
        "project_id",
        "attack_id",
        "successful",
        "severity",
        "review_status",
        "error",
    )
    audit_fields = ("probe_name", "successful", "severity", "review_status", "error")

    def list(
        self,
        probe_id: str | None = None,
        *,
        scan_id: str | None = None,
        successful: bool | None = None,
        review_status: str | ReviewStatus | None = None,
    ) -> list[ScanAttempt]:
        """The attempts of a scan probe (``probe_id``: a ``ScanProbe`` id) or of a whole scan."""
        if probe_id is None and scan_id is None:
            raise GiskardValidationError(
                "give a scan probe id (hub.scans.probes.list(scan_id)) or scan_id="
            )
        t = self.table
        where = []
        if probe_id is not None:
            self._hub.scans.probes.retrieve(probe_id)
            where.append(t.c.scan_probe_id == probe_id)
        if scan_id is not None:
            where.append(t.c.scan_id == scan_id)
        if successful is not None:
            where.append(t.c.successful == bool(successful))
        if review_status is not None:
            where.append(t.c.review_status == ReviewStatus.parse(review_status).value)
        return self._list(*where)

    def update(
        self,
        attempt_id: str,
        *,
        review_status: str | ReviewStatus | None = None,
        severity: str | int | Severity | None = None,
        successful: bool | None = None,
    ) -> ScanAttempt:
        """Review an attempt (``review_status``, ``severity``, ``successful``); the scan's grade is
        recomputed (an ignored or unsuccessful attempt no longer counts)."""
        changes: dict[str, Any] = {}
        if review_status is not None:
            changes["review_status"] = ReviewStatus.parse(review_status)
        if severity is not None:
            changes["severity"] = Severity.parse(severity)
        if successful is not None:
            changes["successful"] = bool(successful)
        if not changes:
            raise GiskardValidationError(
                "update() needs review_status=, severity= and/or successful="
            )
        with self._db.write() as conn:
            updated = self._update(attempt_id, changes, conn=conn)
            self._hub.scans._store_tallies(conn, updated.scan_id)
        return updated

    def _save(self, conn: sa.Connection, record: ScanAttempt) -> ScanAttempt:
        conn.execute(self.table.insert().values(**self._row(record)))
        self._audit(conn, "create", record, self._audit_view(record), triggered_by=record.scan_id)
        return record._bind(self._hub)

    def stored_attack_ids(self, scan_id: str) -> set[str]:
        with self._db.read() as conn:
            return set(
                conn.execute(
                    sa.select(self.table.c.attack_id).where(self.table.c.scan_id == scan_id)
                ).scalars()
            )
