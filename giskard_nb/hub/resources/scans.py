"""``hub.scans`` (+ ``.probes``, ``.attempts``): vulnerability scans of agents, stored as they run.

::

    scan = hub.scans.create(project.id, agent=my_agent, categories=["prompt_injection"])
    scan.grade, scan.to_dataframe(), hub.scans.probes.list(scan.id)
    hub.scans.attempts.update(attempt_id, review_status="ignored")    # a false positive: grade recomputed
    dataset = scan.to_dataset(name="scan regressions")                   # findings -> test cases

Runs are ``acreate``/``create`` (an awaitable and its sync twin); every attempt is written the moment
it completes, so ``resume`` finishes an interrupted scan. The engine lives in ``giskard_nb.scan``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from giskard_nb.core.sync import run_sync
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema_scans
from giskard_nb.hub.models.base import require_same_project, utcnow
from giskard_nb.hub.models.dataset import Dataset
from giskard_nb.hub.models.scan import AvailableProbe, Scan
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.resources.owned import OwnedRuns
from giskard_nb.hub.resources.scan_parts import ScanAttemptsResource, ScanProbesResource, TallyRow
from giskard_nb.scan.catalogue import Category, default_catalogue
from giskard_nb.scan.coverage import compute_coverage, honest_grade, legacy_unjudged
from giskard_nb.scan.grading import ReviewStatus, Severity
from giskard_nb.scan.regression import Vulnerability  # noqa: F401 - registers the check kind

__all__ = ["ScansResource"]


class ScansResource(OwnedRuns, Resource[Scan]):
    """Run, read, list and delete scans; the catalogue; regression datasets from findings."""

    entity_type = "scan"
    model = Scan
    table = schema_scans.scans
    columns = ("project_id", "status")
    audit_fields = ("name", "agent_name", "status", "grade", "knowledge_base_id", "stop_reason")

    def __init__(self, hub: Any):
        super().__init__(hub)
        self.probes = ScanProbesResource(hub)
        self.attempts = ScanAttemptsResource(hub)

    # -- running -------------------------------------------------------------------------------------

    async def acreate(
        self,
        project_id: str,
        *,
        agent_id: str | None = None,
        agent: Callable[..., Any] | None = None,
        knowledge_base_id: str | None = None,
        categories: Sequence[str] | None = None,
        probe_ids: Sequence[str] | None = None,
        max_attempts_per_probe: int | None = None,
        budget: Any = None,
        name: str | None = None,
        progress: bool = True,
        **options: Any,
    ) -> Scan:
        """Scan a registered agent (``agent_id``) or a Python function (``agent``) of the project.

        ``categories`` or ``probe_ids`` select the probes (default: all); ``knowledge_base_id`` anchors
        attacks on that knowledge base's documents; ``max_attempts_per_probe`` defaults to 5; ``budget``
        caps the scan (``Budget``, dict, or USD); ``options=ScanOptions(...)`` gives them all at once.
        Other ``ScanOptions`` may be given by name (``max_concurrency``, ``timeout``, ``profile``,
        ``variants_per_attack``, ``use_judge``, ``seed``, ``probes`` …; ``judge=``/``generator=`` models).
        """
        from giskard_nb.hub.scan_run import start_scan

        return await start_scan(
            self._hub,
            project_id,
            agent_id=agent_id,
            agent=agent,
            knowledge_base_id=knowledge_base_id,
            categories=categories,
            probe_ids=probe_ids,
            max_attempts_per_probe=max_attempts_per_probe,
            budget=budget,
            name=name,
            progress=progress,
            options=options,
        )

    def create(self, project_id: str, **kwargs: Any) -> Scan:
        """``acreate`` from synchronous code (also inside a notebook's running loop)."""
        return run_sync(self.acreate(project_id, **kwargs))

    async def aresume(
        self,
        scan_id: str,
        *,
        agent: Callable[..., Any] | None = None,
        progress: bool = True,
        **secrets: Any,
    ) -> Scan:
        """Run the attacks of a scan that have no stored attempt yet (after an interruption). A scan of a
        local agent needs the ``agent`` function again; ``profile=`` restores a system prompt or secrets."""
        from giskard_nb.hub.scan_run import resume_scan

        return await resume_scan(self._hub, scan_id, agent=agent, progress=progress, **secrets)

    def resume(self, scan_id: str, **kwargs: Any) -> Scan:
        return run_sync(self.aresume(scan_id, **kwargs))

    def estimate(self, *, knowledge_base_id: str | None = None, **options: Any) -> Any:
        """Preflight: the ``Estimate`` (agent calls, judge and generator calls, tokens, cost) of a scan."""
        from giskard_nb.scan.plan import estimate_scan

        if knowledge_base_id is not None:
            options["documents"] = self.documents(knowledge_base_id)
        return estimate_scan(**options)

    # -- reading -------------------------------------------------------------------------------------

    def list(self, *, project_id: str | None = None, status: str | None = None) -> list[Scan]:
        """Scans, oldest first, of a project and/or with a status."""
        where = []
        if project_id is not None:
            where.append(self.table.c.project_id == project_id)
        if status is not None:
            where.append(self.table.c.status == status)
        return self._list(*where)

    def list_categories(self) -> list[Category]:
        """The vulnerability categories (id, title, description, OWASP LLM Top 10 2025 id)."""
        return default_catalogue().categories()

    def list_available_probes(self, category: str | None = None) -> list[AvailableProbe]:
        """The probes a scan can run (of one category, or all)."""
        catalogue = default_catalogue()
        if category is not None:
            catalogue.select(categories=[category])
        return [_available(p) for p in catalogue.probes(category)]

    def report(self, scan_id: str) -> Any:
        """The engine's ``ScanReport`` of a stored scan."""
        from giskard_nb.scan.result import ScanReport

        scan = self.retrieve(scan_id)
        probes = self.probes.list(scan_id)
        recorded = all(p.unjudged is not None for p in probes)  # else: inferred (older scans)
        return ScanReport(
            id=scan.id,
            name=scan.name,
            status={
                "finished": "completed",
                "running": "running",
                "stopped": "stopped",
                "interrupted": "cancelled",
                "error": "error",
            }[scan.status],
            stop_reason=scan.stop_reason or scan.error,
            started_at=scan.started_at,
            finished_at=scan.finished_at,
            attempts=[a.to_attempt() for a in self.attempts.list(scan_id=scan_id)],
            probes=[
                {
                    "id": p.probe_id,
                    "name": p.name,
                    "category": p.category,
                    "severity": int(p.severity),
                }
                for p in probes
                if not p.skipped
            ],
            skipped_probes={p.probe_id: p.skipped for p in probes if p.skipped},
            planned_attacks=scan.planned_attacks,
            options=scan.options,
            warnings=list(scan.warnings),
            categories=_categories(p.category for p in probes) if recorded else [],
            unjudged={p.probe_id: p.category for p in probes if p.unjudged} if recorded else {},
        )

    def documents(
        self, knowledge_base_id: str, *, project_id: str | None = None, limit: int = 500
    ) -> list[str]:
        """The texts of a knowledge base's documents (what KB-anchored probes attack)."""
        kb = self._hub.knowledge_bases.retrieve(knowledge_base_id)
        if project_id is not None:
            require_same_project(project_id, ("knowledge base", kb))
        return [
            d.content
            for d in self._hub.knowledge_bases.list_documents(knowledge_base_id, limit=limit)
        ]

    # -- from findings to tests ----------------------------------------------------------------------

    def to_dataset(
        self, scan_id: str, *, name: str | None = None, attempt_ids: Sequence[str] | None = None
    ) -> Dataset:
        """A new dataset with one regression test case per chosen attempt (default: every successful,
        non-ignored one). Each test case replays the attack's conversation; its checks fail while the
        weakness remains and pass once the agent is fixed."""
        from giskard_nb.hub.scan_run import dataset_from_attempts

        scan = self.retrieve(scan_id)
        if attempt_ids is None:
            chosen = [a for a in self.attempts.list(scan_id=scan_id) if a.to_attempt().counts]
            if not chosen:
                raise GiskardValidationError(
                    f"scan {scan.name!r} has no successful, non-ignored attempt: nothing to turn into tests"
                )
        else:
            chosen = [self.attempts.retrieve(i) for i in attempt_ids]
            stray = [a.id for a in chosen if a.scan_id != scan_id]
            if stray:
                raise GiskardValidationError(
                    f"attempts {stray} do not belong to scan {scan.name!r}"
                )
        return dataset_from_attempts(self._hub, scan, chosen, name=name)

    # -- bookkeeping ---------------------------------------------------------------------------------

    def _tallies(
        self, conn: sa.Connection, scan_id: str, changes: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Counts, coverage and grade from the stored attempts and probes (``changes``: the scan
        fields being written with them, for the status and the planned attacks)."""
        t = self.attempts.table
        legacy = None
        probes = [
            self.probes._from_row(r)
            for r in conn.execute(
                sa.select(self.probes.table).where(self.probes.table.c.scan_id == scan_id)
            ).mappings()
        ]
        if any(p.unjudged is None for p in probes):
            legacy = t.c.data
        cols = [t.c.successful, t.c.severity, t.c.review_status, t.c.error, t.c.scan_probe_id]
        rows = conn.execute(
            sa.select(*cols, *([legacy] if legacy is not None else [])).where(
                t.c.scan_id == scan_id
            )
        ).all()
        attempts = [TallyRow(bool(r[0]), Severity(r[1]), ReviewStatus(r[2]), r[3]) for r in rows]
        counts = {
            "attempts": len(attempts),
            "successes": sum(1 for a in attempts if a.counts),
            "errors": sum(1 for a in attempts if a.error is not None),
            "ignored": sum(
                1 for a in attempts if a.successful and a.review_status == ReviewStatus.IGNORED
            ),
        }
        coverage = _coverage(probes, rows, self._get(conn, scan_id), changes or {})
        return {
            "counts": counts,
            "grade": honest_grade(attempts, coverage),
            "coverage": coverage.status,
            "incomplete": coverage.incomplete,
            "coverage_note": coverage.note,
        }

    def _store_tallies(self, conn: sa.Connection, scan_id: str) -> None:
        """Refresh counts and grade without an audit entry (derived data, written as attempts land)."""
        current = self._get(conn, scan_id)
        updated = current.model_copy(
            update={**self._tallies(conn, scan_id), "updated_at": utcnow()}
        )
        conn.execute(
            sa.update(self.table).where(self.table.c.id == scan_id).values(**self._row(updated))
        )

    def _claim(self, scan_id: str) -> None:
        """Mark the scan as run by this process (``hub.ownership``): a ``HubError`` if another live
        run holds it."""
        from giskard_nb.hub.ownership import claim

        with self._db.write() as conn:
            claim(conn, self.table, scan_id, what=f"scan {self._get(conn, scan_id).name!r}")

    def _set(self, scan_id: str, **changes: Any) -> Scan:
        """Audited update of the scan (status, timing...) with fresh tallies."""
        with self._db.write() as conn:
            return self._update(
                scan_id, {**changes, **self._tallies(conn, scan_id, changes)}, conn=conn
            )

    def _delete_children(self, conn: sa.Connection, record: Scan) -> None:
        conn.execute(
            sa.delete(self.attempts.table).where(self.attempts.table.c.scan_id == record.id)
        )
        conn.execute(sa.delete(self.probes.table).where(self.probes.table.c.scan_id == record.id))


def _categories(categories: Any) -> list[str]:
    order = [c.id for c in default_catalogue().categories()]
    wanted = set(categories) - {""}
    return [c for c in order if c in wanted] + sorted(wanted - set(order))


def _coverage(probes: list[Any], rows: list[Any], scan: Scan, changes: dict[str, Any]) -> Any:
    """The coverage of a stored scan from its probes and attempt rows (successful, severity, review,
    error, scan_probe_id[, data for scans stored before coverage was recorded])."""
    by_id = {p.id: p for p in probes}
    judged: set[str] = set()
    if any(p.unjudged is None for p in probes):  # older scan: which probes did a model judge?
        for r in rows:
            usage = json.loads(r[5]).get("usage") or {}
            if usage.get("llm_calls"):
                judged.add(r[4])
    unjudged = {}
    for p in probes:
        flag = p.unjudged
        if flag is None:
            flag = bool(legacy_unjudged(p.probe_id, skipped=p.skipped, judged=p.id in judged))
        if flag:
            unjudged[p.probe_id] = p.category
    status = changes.get("status", scan.status)
    planned = changes.get("planned_attacks", scan.planned_attacks)
    missing = planned - len(rows) if status in ("stopped", "interrupted", "error") else 0
    return compute_coverage(
        categories=_categories(p.category for p in probes),
        unjudged=unjudged,
        attempts=(
            (
                by_id[r[4]].probe_id if r[4] in by_id else r[4],
                _category_of(by_id, r[4]),
                r[3] is not None,
            )
            for r in rows
        ),
        missing_attacks=missing,
    )


def _category_of(by_id: dict[str, Any], scan_probe_id: str) -> str:
    probe = by_id.get(scan_probe_id)
    return probe.category if probe is not None else ""


def _available(p: Any) -> AvailableProbe:
    return AvailableProbe(
        id=p.id,
        name=p.name,
        description=p.description,
        category=p.category,
        tags=list(p.tags),
        severity=p.severity,
        requires=list(p.requires),
    )
