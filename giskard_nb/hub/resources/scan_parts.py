"""``hub.scans.probes`` and ``hub.scans.attempts``: the probes of a scan (with tallies) and its attempts
(listed, retrieved, reviewed). Reviewing an attempt refreshes its scan's counts and grade.

A stored attempt is the engine's ``Attempt`` as the engine dumps it (``data``: ``{"attempt": ...}``)
with the ids of its scan, probe and project; the columns used to filter and count (``attack_id``,
``successful``, ``severity``, ``review_status``, ``error``, and ``evidence``: a finding's tier,
``confirmed`` or ``suspected``) are taken from it when it is written.
Attempts stored before (schema version 1: the attempt's fields flat in ``data``, its verdict in the
columns) read the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.errors import GiskardValidationError, HubError
from giskard_nb.hub import schema_scans
from giskard_nb.hub.audit import diff_fields
from giskard_nb.hub.models.base import SCHEMA_VERSION, build, utcnow
from giskard_nb.hub.models.scan import ScanAttempt, ScanProbe
from giskard_nb.hub.resources.rows import TableRows
from giskard_nb.hub.scan_tallies import ScanTallies
from giskard_nb.scan.grading import ReviewStatus, Severity
from giskard_nb.scan.result import Attempt
from giskard_nb.secrets import is_secret_name

if TYPE_CHECKING:
    from giskard_nb.hub.scan_store import ScanStore
    from giskard_nb.hub.store import Store

__all__ = ["ScanAttemptsResource", "ScanProbesResource"]

#: What an attempt's row holds in columns (the rest is the engine's ``Attempt`` in ``data``).
_VERDICT = ("successful", "severity", "review_status", "error")


class _ScanPart:
    """A part of ``hub.scans``: it writes through the scan store, which reads and writes its rows."""

    def __init__(self, store: Store, runs: ScanStore):
        super().__init__(store)
        self._runs = runs
        runs.register(self)


class ScanProbesResource(_ScanPart, TableRows[ScanProbe]):
    """The probes of a scan, with their tallies (``hub.scans.probes``)."""

    entity_type = "scan_probe"
    model = ScanProbe
    table = schema_scans.scan_probes
    columns = ("scan_id", "project_id", "probe_id", "position")

    def list(self, scan_id: str) -> list[ScanProbe]:
        """The probes of a scan in plan order: attempts, successes, errors and highest severity each."""
        self._store.resources.scans.retrieve(scan_id)
        with self._db.read() as conn:
            probes = self._runs.probes(scan_id, conn)
            tallies = ScanTallies.from_rows(conn, scan_id, probes, usage=False)
        return [self._with(p, tallies) for p in probes]

    def retrieve(self, id: str) -> ScanProbe:
        with self._db.read() as conn:
            probe = self._get(conn, id)
            tallies = ScanTallies.from_rows(conn, probe.scan_id, [probe], usage=False, only=id)
        return self._with(probe, tallies)

    def list_attempts(self, probe_id: str) -> list[ScanAttempt]:
        """The attempts of one scan probe (a ``ScanProbe`` id)."""
        return self._store.resources.scans.attempts.list(probe_id)

    def _with(self, probe: ScanProbe, tallies: ScanTallies) -> ScanProbe:
        return self._store.bind(probe.model_copy(update=tallies.probe_fields(probe.id)))


class ScanAttemptsResource(_ScanPart, TableRows[ScanAttempt]):
    """The attempts of scans (``hub.scans.attempts``): list, retrieve, and review them."""

    entity_type = "scan_attempt"
    model = ScanAttempt
    table = schema_scans.scan_attempts
    columns = ("scan_id", "scan_probe_id", "project_id", "attack_id", *_VERDICT, "evidence")
    audit_fields = ("probe_name", "successful", "severity", "review_status", "error", "evidence")

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
            self._store.resources.scans.probes.retrieve(probe_id)
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
        if review_status is None and severity is None and successful is None:
            raise GiskardValidationError(
                "update() needs review_status=, severity= and/or successful="
            )
        with self._db.write() as conn:
            current = self._get(conn, attempt_id)
            reviewed = current.attempt.review(
                review_status=review_status, severity=severity, successful=successful
            )
            diff = diff_fields(_review(current.attempt), _review(reviewed))
            if not diff:
                return current
            updated = current.model_copy(update={"attempt": reviewed, "updated_at": utcnow()})
            t = self.table
            conn.execute(sa.update(t).where(t.c.id == attempt_id).values(**self._row(updated)))
            self._audit(conn, "update", updated, diff)
            self._runs.recount(conn, updated.scan_id)
        return self._store.bind(updated)

    # -- rows ----------------------------------------------------------------------------------------

    def _audit_view(self, record: ScanAttempt) -> dict[str, Any]:
        dump = record.attempt.model_dump(mode="json", include=set(self.audit_fields))
        return {k: dump.get(k) for k in self.audit_fields}

    def _dump(self, record: ScanAttempt) -> dict[str, Any]:
        attempt = record.attempt.model_dump(mode="json", exclude={"id", "created_at"})
        dump = {**record.model_dump(mode="json", exclude={"attempt"}), "attempt": attempt}
        if not any(is_secret_name(k) for k in _keys(attempt)):
            return dump  # nothing to move to the secrets file (the usual case: no walk)
        return self._seal(dump)

    def _from_row(self, row: Any) -> ScanAttempt:
        if row["schema_version"] > SCHEMA_VERSION:
            raise HubError(
                f"scan attempt {row['id']} was written by a newer giskard-nb (schema version "
                f"{row['schema_version']}; this one reads up to {SCHEMA_VERSION}): upgrade giskard-nb"
            )
        data = json.loads(row["data"])
        if "attempt" in data:
            fields = data["attempt"]
        else:  # stored flat, before ScanAttempt wrapped the engine's Attempt (schema version 1)
            fields = {**data, **{k: row[k] for k in _VERDICT}}
        fields.update(id=row["id"], created_at=row["created_at"])
        record = {k: row[k] for k in ("id", "schema_version", "created_at", "updated_at")}
        record.update({k: row[k] for k in ("scan_id", "scan_probe_id", "project_id")})
        record["attempt"] = build(Attempt, fields, "stored scan attempt")
        return self._store.bind(build(ScanAttempt, record, "stored scan attempt"))


def _review(attempt: Attempt) -> dict[str, Any]:
    """What a review changes, as the audit log shows it."""
    return attempt.model_dump(mode="json", include={"review_status", "severity", "successful"})


def _keys(value: Any) -> Iterator[str]:
    """Every key of a JSON-like value, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield from item
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
