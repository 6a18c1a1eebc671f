"""``ScanStore``: what a scan run writes to the Hub, and nothing else — the seam between the run
(``giskard_nb.hub.scan_run``) and the database.

It holds the database, the audit writer (which records the Hub's actor) and the three scan
resources (``hub.scans``, ``hub.scans.probes`` and ``hub.scans.attempts``, which build it), whose row
formats and audited writes it uses through their package-internal ``TableRows`` methods
(``giskard_nb.hub.resources.rows``). A run creates its scan, stores its probes, appends its attempts
in batches with the scan's running tallies (its ledger, ``giskard_nb.hub.scan_run.ScanAttemptRows``,
holds the scan's lease and heartbeat and makes the batches), and finishes it; a review of an attempt
asks it to recount the scan. Attempts get no audit entry each: the end of a run
writes one entry on the scan with what that run changed (status, counts, grade, coverage...).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.hub.audit import diff_fields
from giskard_nb.hub.models.base import build, utcnow
from giskard_nb.hub.models.scan import Scan, ScanAttempt, ScanProbe
from giskard_nb.hub.scan_tallies import ScanTallies

if TYPE_CHECKING:
    from giskard_nb.hub.db import Database
    from giskard_nb.hub.resources.scan_parts import ScanAttemptsResource, ScanProbesResource
    from giskard_nb.hub.resources.scans import ScansResource
    from giskard_nb.scan.plan import ScanPlan

__all__ = ["AuditWriter", "ScanStore"]

#: ``audit(conn, action=, entity_type=, entity_id=, project_id=, changes=, triggered_by=)``.
AuditWriter = Callable[..., None]
_REVEAL = {"reveal_secrets": True}
#: The fields of a ``Scan`` its tallies give (``ScanTallies.scan_fields``).
_TALLY_FIELDS = ("counts", "grade", "coverage", "incomplete", "coverage_note")


class ScanStore:
    """The writes of scan runs (see the module docstring). ``scans`` is ``hub.scans``; its parts
    (``.probes``, ``.attempts``) ``register`` themselves: the store uses the three resources' row
    formats and audited writes through their package-internal ``TableRows`` methods
    (``giskard_nb.hub.resources.rows``), never their private helpers."""

    def __init__(self, db: Database, *, audit: AuditWriter, scans: ScansResource):
        self.db = db
        self.audit = audit
        self._scans = scans
        self._probe_part: ScanProbesResource | None = None
        self._attempt_part: ScanAttemptsResource | None = None

    def register(self, part: ScanProbesResource | ScanAttemptsResource) -> None:
        """Take ``hub.scans.probes`` or ``hub.scans.attempts`` as the resource of its table."""
        from giskard_nb.hub.resources.scan_parts import ScanAttemptsResource, ScanProbesResource

        if isinstance(part, ScanProbesResource):
            self._probe_part = part
        elif isinstance(part, ScanAttemptsResource):
            self._attempt_part = part
        else:
            raise ValueError(f"not a part of a scan: {part!r}")

    @property
    def _probes(self) -> ScanProbesResource:
        if self._probe_part is None:
            raise RuntimeError("hub.scans.probes is not registered with the scan store yet")
        return self._probe_part

    @property
    def _attempts(self) -> ScanAttemptsResource:
        if self._attempt_part is None:
            raise RuntimeError("hub.scans.attempts is not registered with the scan store yet")
        return self._attempt_part

    # -- the scan row --------------------------------------------------------------------------------

    def create_scan(self, scan: Scan) -> Scan:
        """Store a new scan (audited)."""
        return self._scans.create_record(scan)

    def set_status(self, scan_id: str, **changes: Any) -> Scan:
        """Audited update of the scan (status, timing...) with tallies counted from its rows."""
        with self.db.write() as conn:
            current = self._scan(conn, scan_id)
            fields = self._recount(conn, current, changes, usage=False)
            return self._scans.update_record(scan_id, {**changes, **fields}, conn=conn)

    def finish(
        self, scan_id: str, *, since: Scan, tallies: ScanTallies | None, **changes: Any
    ) -> Scan:
        """The end of a run: the scan's final fields (``changes``, and the counts, grade and coverage
        of ``tallies``, or counted from the rows when None), with one audit entry holding everything
        the run changed since ``since`` (the scan as the run found it)."""
        with self.db.write() as conn:
            current = self._scan(conn, scan_id)
            if tallies is None:
                fields = self._recount(conn, current, changes, usage=False)
            else:
                fields = tallies.scan_fields(
                    status=changes.get("status", current.status),
                    planned=changes.get("planned_attacks", current.planned_attacks),
                )
            data = {**current.model_dump(context=_REVEAL), **changes, **fields}
            updated = build(Scan, {**data, "updated_at": utcnow()}, "scan")
            updated = self._scans.sealed_record(updated, previous=current)
            conn.execute(
                sa.update(self._scans.table)
                .where(self._scans.table.c.id == scan_id)
                .values(**self._scans.to_row(updated))
            )
            before = since.model_dump(mode="json", context=_REVEAL)
            after = updated.model_dump(mode="json", context=_REVEAL)
            diff = diff_fields(before, after, updated.model_dump(mode="json"))
            if diff:
                self.audit(
                    conn, action="update", entity_type="scan", entity_id=scan_id,
                    project_id=updated.project_id, changes=diff,
                )  # fmt: skip
            return self._scan(conn, scan_id)

    # -- probes --------------------------------------------------------------------------------------

    def ensure_probes(self, scan: Scan, plan: ScanPlan, catalogue: Sequence[Any]) -> dict[str, str]:
        """A ``ScanProbe`` per planned (or skipped catalogue) probe, created once (audited); probe id
        -> record id. A probe that now runs without the judge it needs is marked ``unjudged`` (a
        resume never clears the mark: the attempts stored before were not judged either)."""
        stored = {p.probe_id: p for p in self.probes(scan.id)}
        existing = {pid: p.id for pid, p in stored.items()}
        entries: list[tuple[Any, str | None]] = [(p, None) for p in plan.probes]
        by_id = {p.id: p for p in catalogue}
        entries += [(by_id.get(pid), why) for pid, why in plan.skipped.items() if pid in by_id]
        with self.db.write() as conn:
            for position, (probe, why) in enumerate(entries):
                if probe is None:
                    continue
                unjudged = probe.id in plan.unjudged
                if probe.id in existing:
                    if unjudged and stored[probe.id].unjudged is False:
                        self._probes.update_record(
                            existing[probe.id], {"unjudged": True}, conn=conn
                        )
                    continue
                record = ScanProbe(
                    scan_id=scan.id, project_id=scan.project_id, probe_id=probe.id,
                    position=position, name=probe.name, description=probe.description,
                    category=probe.category, tags=list(probe.tags), severity=probe.severity,
                    skipped=why, unjudged=unjudged,
                )  # fmt: skip
                self._probes.create_record(record, conn=conn)
                existing[probe.id] = record.id
        return existing

    def probes(self, scan_id: str, conn: sa.Connection | None = None) -> list[ScanProbe]:
        """The scan's probes as stored (without their tallies), in plan order."""
        t = self._probes.table
        query = sa.select(t).where(t.c.scan_id == scan_id).order_by(t.c.position)
        if conn is None:
            with self.db.read() as own:
                return self.probes(scan_id, own)
        return [self._probes.from_row(r) for r in conn.execute(query).mappings()]

    # -- attempts and tallies ------------------------------------------------------------------------

    def stored_attack_ids(self, scan_id: str) -> set[str]:
        """The attacks of the scan that have a stored attempt (what a resume skips)."""
        t = self._attempts.table
        with self.db.read() as conn:
            return set(
                conn.execute(sa.select(t.c.attack_id).where(t.c.scan_id == scan_id)).scalars()
            )

    def tallies(self, scan_id: str, *, usage: bool = True) -> ScanTallies:
        """The scan's tallies counted from its stored attempts (where a resume starts)."""
        with self.db.read() as conn:
            return self._tallies(conn, scan_id, usage=usage)

    def append(
        self, scan_id: str, records: Sequence[ScanAttempt], tallies: ScanTallies
    ) -> list[ScanAttempt]:
        """Store a batch of attempts and the scan's counts, grade and coverage in one transaction
        (no audit entry: the end of the run writes one). ``tallies`` counts the batch; if the scan
        was changed by someone else since they last wrote it (a review during the run), they are
        counted again from the rows first. An attempt of an attack the scan already has (or that
        the batch holds twice) is skipped with a ``RuntimeWarning``, never stored twice. Returns the
        attempts stored."""
        if not records:
            return []
        t = self._scans.table
        try:
            with self.db.write() as conn:
                fresh = self._new_attempts(conn, scan_id, records)
                if fresh:
                    conn.execute(
                        self._attempts.table.insert(), [self._attempts.to_row(r) for r in fresh]
                    )
                stamp = conn.execute(sa.select(t.c.updated_at).where(t.c.id == scan_id)).scalar()
                if tallies.stamp is None or stamp != tallies.stamp:
                    tallies.take(self._tallies(conn, scan_id, usage=True))
                else:
                    tallies.add_all(fresh)
                self._write_tallies(conn, scan_id, tallies)
        except BaseException:
            tallies.stamp = None  # counted again from the rows at the next batch
            raise
        return fresh

    def _new_attempts(
        self, conn: sa.Connection, scan_id: str, records: Sequence[ScanAttempt]
    ) -> list[ScanAttempt]:
        """``records`` without those whose attack already has an attempt in the scan (or earlier in
        ``records``), with a warning naming them."""
        a = self._attempts.table
        ids = {r.attack_id for r in records}
        query = sa.select(a.c.attack_id).where(a.c.scan_id == scan_id, a.c.attack_id.in_(ids))
        seen = set(conn.execute(query).scalars())
        fresh, duplicates = [], []
        for record in records:
            (duplicates if record.attack_id in seen else fresh).append(record)
            seen.add(record.attack_id)
        if duplicates:
            names = ", ".join(sorted({r.attack_id for r in duplicates}))
            warnings.warn(
                f"scan {scan_id}: {len(duplicates)} attempt(s) of an attack the scan already has "
                f"were not stored again ({names}); the first attempt of each attack is kept",
                RuntimeWarning,
                stacklevel=3,
            )
        return fresh

    def recount(self, conn: sa.Connection, scan_id: str) -> None:
        """Count the scan again from its rows and store its counts and grade (after a review)."""
        current = self._scan(conn, scan_id)
        fields = self._recount(conn, current, {}, usage=False)
        updated = current.model_copy(update={**fields, "updated_at": utcnow()})
        table = self._scans.table
        conn.execute(
            sa.update(table).where(table.c.id == scan_id).values(**self._scans.to_row(updated))
        )

    # -- internals -----------------------------------------------------------------------------------

    def _scan(self, conn: sa.Connection, scan_id: str) -> Scan:
        return self._scans.read_row(conn, scan_id)

    def _tallies(self, conn: sa.Connection, scan_id: str, *, usage: bool) -> ScanTallies:
        tallies = ScanTallies.from_rows(conn, scan_id, self.probes(scan_id, conn), usage=usage)
        row = self._scan_row(conn, scan_id)
        data = json.loads(row["data"])
        planned = data.get("planned_attacks", 0)
        rest = {k: v for k, v in data.items() if k not in _TALLY_FIELDS}
        tallies.row = (row["status"], planned, json.dumps(rest, separators=(",", ":"))[:-1])
        tallies.stamp = row["updated_at"]
        return tallies

    def _recount(
        self, conn: sa.Connection, current: Scan, changes: dict[str, Any], *, usage: bool
    ) -> dict[str, Any]:
        tallies = self._tallies(conn, current.id, usage=usage)
        return tallies.scan_fields(
            status=changes.get("status", current.status),
            planned=changes.get("planned_attacks", current.planned_attacks),
        )

    def _scan_row(self, conn: sa.Connection, scan_id: str) -> Any:
        t = self._scans.table
        query = sa.select(t.c.id, t.c.status, t.c.updated_at, t.c.data).where(t.c.id == scan_id)
        return conn.execute(query).mappings().one()

    def _write_tallies(self, conn: sa.Connection, scan_id: str, tallies: ScanTallies) -> None:
        """Put the tallies' fields into the stored scan. The rest of its JSON is kept as it was
        stored when the tallies were counted (``tallies.row``), not decoded and encoded again with
        every batch (a scan's options can be large)."""
        status, planned, rest = tallies.row
        fields = tallies.scan_fields(status=status, planned=planned)
        encoded = json.dumps(fields, separators=(",", ":"), default=str)
        data = rest + ("," if len(rest) > 1 else "") + encoded[1:]
        now = utcnow()
        table = self._scans.table
        conn.execute(
            sa.update(table).where(table.c.id == scan_id).values(data=data, updated_at=now)
        )
        tallies.stamp = now
