"""``hub.scans`` (+ ``.probes``, ``.attempts``): vulnerability scans of agents, stored as they run.

::

    scan = hub.scans.create(project.id, agent=my_agent, categories=["prompt_injection"])
    scan.grade, scan.to_dataframe(), hub.scans.probes.list(scan.id)
    hub.scans.attempts.update(attempt_id, review_status="ignored")    # a false positive: grade recomputed
    dataset = scan.to_dataset(name="scan regressions")                   # findings -> test cases

Runs are ``acreate``/``create`` (an awaitable and its sync twin); every attempt is written as it
completes (in batches, with the scan's running tallies) and passed to ``on_attempt``, so ``resume``
finishes an interrupted scan. The engine lives in ``giskard_nb.scan``; a run writes through the
``ScanStore`` this resource builds (``giskard_nb.hub.scan_store``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema_scans
from giskard_nb.hub.models.base import require_same_project
from giskard_nb.hub.models.dataset import Dataset
from giskard_nb.hub.models.scan import AvailableProbe, Scan
from giskard_nb.hub.resources.owned import OwnedRuns
from giskard_nb.hub.resources.rows import TableRows
from giskard_nb.hub.resources.scan_parts import ScanAttemptsResource, ScanProbesResource
from giskard_nb.hub.scan_store import ScanStore
from giskard_nb.hub.scan_tallies import scan_categories
from giskard_nb.hub.store import Store
from giskard_nb.scan.catalogue import Category, default_catalogue

if TYPE_CHECKING:
    from giskard_nb.hub.scan_run import OnAttempt

__all__ = ["ScansResource"]


class ScansResource(OwnedRuns, TableRows[Scan]):
    """Run, read, list and delete scans; the catalogue; regression datasets from findings."""

    entity_type = "scan"
    model = Scan
    table = schema_scans.scans
    columns = ("project_id", "status")
    audit_fields = ("name", "agent_name", "status", "grade", "knowledge_base_id", "stop_reason")

    def __init__(self, store: Store):
        super().__init__(store)
        self._runs = ScanStore(self._db, audit=self._store.audit, scans=self)
        self.probes = ScanProbesResource(store, self._runs)
        self.attempts = ScanAttemptsResource(store, self._runs)

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
        on_attempt: OnAttempt | None = None,
        executor: Any = None,
        agent_factory: Callable[[], Any] | None = None,
        **options: Any,
    ) -> Scan:
        """Scan a registered agent (``agent_id``) or a Python function (``agent``) of the project.

        ``categories`` or ``probe_ids`` select the probes (default: all); ``knowledge_base_id`` anchors
        attacks on that knowledge base's documents; ``max_attempts_per_probe`` defaults to 5; ``budget``
        caps the scan (``Budget``, dict, or USD); ``options=ScanOptions(...)`` gives them all at once.
        Other ``ScanOptions`` may be given by name (``max_concurrency``, ``timeout``, ``profile``,
        ``variants_per_attack``, ``use_judge``, ``seed``, ``probes`` …; ``judge=``/``generator=`` models).

        ``on_attempt(stored)`` (a function or a coroutine function) is called with each
        ``ScanAttempt`` once it is stored, for live progress. An exception it raises does not stop the
        scan and loses no attempt: it is reported with a ``RuntimeWarning``.

        ``executor=RayExecutor(...)`` with ``agent_factory=`` (instead of ``agent``): the attacks are
        played on the executor's workers, each against the agent ``agent_factory()`` built there once
        (``run_scan(..., executor=)``); every attempt is stored as it arrives, as for a local scan.
        """
        from giskard_nb.hub.scan_run import ScanStart, start_scan

        self._store.resources.projects.retrieve(project_id)
        _check_remote(executor, agent_factory)
        if (agent_id is None) + (agent is None) + (agent_factory is None) != 2:
            raise GiskardValidationError(
                "give agent_id= (a registered agent), agent= (a Python function) or agent_factory= "
                "with executor= (the agent built on each worker), exactly one"
            )
        record = None
        if agent_id is not None:
            record = self._store.resources.agents.retrieve(agent_id)
            require_same_project(project_id, ("agent", record))
        elif agent_factory is None and not callable(agent):
            raise GiskardValidationError(
                f"agent= must be a function taking the list of chat messages, got {type(agent).__name__}"
            )
        _check_callback(on_attempt)
        documents = None
        if knowledge_base_id is not None:
            documents = self.documents(knowledge_base_id, project_id=project_id)
        start = ScanStart(
            project_id, agent=agent, record=record, knowledge_base_id=knowledge_base_id,
            documents=documents, executor=executor, agent_factory=agent_factory,
        )  # fmt: skip
        given = {
            "categories": list(categories) if categories is not None else None,
            "probe_ids": list(probe_ids) if probe_ids is not None else None,
            "max_attempts_per_probe": max_attempts_per_probe,
            "budget": budget,
        }
        return await start_scan(
            self._runs, start, given=given, name=name, progress=progress,
            on_attempt=on_attempt, options=options,
        )  # fmt: skip

    create = sync_twin(acreate)

    async def aresume(
        self,
        scan_id: str,
        *,
        agent: Callable[..., Any] | None = None,
        progress: bool = True,
        on_attempt: OnAttempt | None = None,
        executor: Any = None,
        agent_factory: Callable[[], Any] | None = None,
        **secrets: Any,
    ) -> Scan:
        """Run the attacks of a scan that have no stored attempt yet (after an interruption). A scan of a
        local agent needs the ``agent`` function again; ``profile=`` restores a system prompt or secrets,
        ``tools=`` the scan's ``MockTools`` (neither is stored); ``on_attempt`` as in ``acreate``;
        ``executor=`` with ``agent_factory=`` plays the rest on the executor's workers."""
        from giskard_nb.hub.scan_run import resume_scan

        scan = self.retrieve(scan_id)
        _check_remote(executor, agent_factory)
        if agent_factory is not None and agent is not None:
            raise GiskardValidationError(
                "give agent= (played here) or agent_factory= with executor=, not both"
            )
        # a resume that cannot start changes nothing
        record = None if agent_factory is not None else self._require_agent(scan, agent)
        _check_callback(on_attempt)
        documents = None
        if scan.knowledge_base_id is not None:
            documents = self.documents(scan.knowledge_base_id)
        return await resume_scan(
            self._runs, scan, agent=agent, record=record, documents=documents,
            progress=progress, on_attempt=on_attempt, extra=secrets,
            remote=(executor, agent_factory) if executor is not None else None,
        )  # fmt: skip

    resume = sync_twin(aresume)

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
        probes = self._runs.probes(scan_id)
        recorded = all(p.unjudged is not None for p in probes)  # else: inferred (older scans)
        run = scan.run_fields()  # the Hub's scan derives them from the engine's report
        run["stop_reason"] = scan.stop_reason or scan.error
        run["skipped_probes"] = {p.probe_id: p.skipped for p in probes if p.skipped}
        return ScanReport(
            **run,
            id=scan.id,
            status={
                "finished": "completed",
                "running": "running",
                "stopped": "stopped",
                "interrupted": "cancelled",
                "error": "error",
            }[scan.status],
            attempts=[a.attempt for a in self.attempts.list(scan_id=scan_id)],
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
            categories=scan_categories(p.category for p in probes) if recorded else [],
            unjudged={p.probe_id: p.category for p in probes if p.unjudged} if recorded else {},
        )

    def documents(
        self, knowledge_base_id: str, *, project_id: str | None = None, limit: int = 500
    ) -> list[str]:
        """The texts of a knowledge base's documents (what KB-anchored probes attack)."""
        kb = self._store.resources.knowledge_bases.retrieve(knowledge_base_id)
        if project_id is not None:
            require_same_project(project_id, ("knowledge base", kb))
        return [
            d.content
            for d in self._store.resources.knowledge_bases.list_documents(
                knowledge_base_id, limit=limit
            )
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
            chosen = [a for a in self.attempts.list(scan_id=scan_id) if a.counts]
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
        return dataset_from_attempts(
            self._store.resources.datasets,
            self._store.resources.test_cases,
            scan,
            chosen,
            name=name,
        )

    # -- bookkeeping ---------------------------------------------------------------------------------

    def _require_agent(self, scan: Scan, agent: Callable[..., Any] | None) -> Any:
        """The registered agent a resume calls (None for a given ``agent``); raises, before anything
        is stored, when ``resume`` has no agent it can call."""
        if agent is not None:
            if not callable(agent):
                raise GiskardValidationError(
                    f"agent= must be a function taking the list of chat messages, got "
                    f"{type(agent).__name__}; scan {scan.name!r} was left as it was"
                )
            return None
        if scan.local:
            raise GiskardValidationError(
                f"scan {scan.name!r} ran a local agent ({scan.agent_name!r}): pass it again with "
                "agent=<the function>"
            )
        if scan.agent_id is None:
            raise GiskardValidationError(
                f"scan {scan.name!r} has no agent: pass agent=<the function>"
            )
        return self._store.resources.agents.retrieve(scan.agent_id)  # NotFoundError when it is gone

    def _delete_children(self, conn: sa.Connection, record: Scan) -> None:
        conn.execute(
            sa.delete(self.attempts.table).where(self.attempts.table.c.scan_id == record.id)
        )
        conn.execute(sa.delete(self.probes.table).where(self.probes.table.c.scan_id == record.id))


def _check_remote(executor: Any, agent_factory: Any) -> None:
    """``executor=`` and ``agent_factory=`` go together (the agent is built on each worker)."""
    if executor is None and agent_factory is None:
        return
    from giskard_nb.scan.remote import check_remote_scan

    check_remote_scan(None, executor, agent_factory)


def _check_callback(on_attempt: Any) -> None:
    if on_attempt is not None and not callable(on_attempt):
        raise GiskardValidationError(
            f"on_attempt= must be a function (or coroutine function) taking the stored ScanAttempt, "
            f"got {type(on_attempt).__name__}"
        )


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
