"""Running a scan in the Hub: the engine (``giskard_nb.scan.run_scan``) with every attempt stored as it
completes, the scan's status and grade kept current, and resumption of an interrupted scan.

The plan is made once (``plan_scan``, which validates the selection before anything is stored); its
probes are stored, then the engine runs that very plan. The run holds its scan and stores its
attempts through its ledger (``ScanAttemptRows``, a ``giskard_nb.hub.ledger.RunLedger``: claim,
heartbeat, batches, ``on_attempt``): each batch in one transaction with the scan's running tallies
(``giskard_nb.hub.scan_tallies``: constant work per attempt). The run writes only through its
``ScanStore`` (``giskard_nb.hub.scan_store``).

The stored options never include a system prompt or secrets given in ``profile``: pass the profile
again to ``resume`` to keep detecting exact leaks of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError

from giskard_nb.errors import GiskardValidationError, HubError
from giskard_nb.hub import schema_scans
from giskard_nb.hub.ledger import RunLedger
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.scan import Scan, ScanAttempt, readable_error
from giskard_nb.scan.attack import AttackProfile
from giskard_nb.scan.models import resolve_models
from giskard_nb.scan.plan import ScanOptions, ScanPlan, plan_scan, resolve_options

if TYPE_CHECKING:
    from giskard_nb.hub.models.agent import Agent
    from giskard_nb.hub.models.dataset import Dataset
    from giskard_nb.hub.scan_store import ScanStore
    from giskard_nb.hub.scan_tallies import ScanTallies
    from giskard_nb.scan.result import Attempt

__all__ = [
    "OnAttempt",
    "ScanAttemptRows",
    "ScanStart",
    "dataset_from_attempts",
    "describe_failure",
    "resume_scan",
    "start_scan",
]

#: ``on_attempt(stored)``: called with each ``ScanAttempt`` once it is stored (may be async).
OnAttempt = Callable[[ScanAttempt], Any]
_MODELS = ("judge", "generator")


class ScanAttemptRows(RunLedger[ScanAttempt]):
    """The ledger of one scan run (``giskard_nb.hub.ledger``): its rows are the engine's attempts,
    stored as ``ScanAttempt`` with the scan's running tallies (``counters``) through the
    ``ScanStore``. An attempt of an attack the scan already holds is skipped with a warning."""

    table = schema_scans.scans
    callback = "on_attempt"
    noun = "attempt"

    def __init__(self, store: ScanStore, scan: Scan, on_attempt: OnAttempt | None):
        super().__init__(store.db, scan.id, what=f"scan {scan.name!r}", on_row=on_attempt)
        self.store, self.scan = store, scan
        self.probe_ids: dict[str, str] = {}  # probe id -> scan probe record id
        self.counters: ScanTallies | None = None

    @property
    def tallies(self) -> ScanTallies | None:
        """The running tallies, or None when a failed write left them unsure (count the rows)."""
        counters = self.counters
        return None if counters is None or counters.stamp is None else counters

    async def attempt(self, attempt: Attempt) -> None:
        """The engine's ``on_attempt``: queue the finished attempt."""
        scan = self.scan
        probe = self.probe_ids[attempt.probe_id]
        await self.add(
            ScanAttempt.from_attempt(
                attempt, scan_id=scan.id, scan_probe_id=probe, project_id=scan.project_id
            )
        )

    def write(self, batch: list[ScanAttempt], encoded: Any) -> list[ScanAttempt]:
        """One transaction; if that fails, each attempt alone (the first failure stops the run)."""
        assert self.counters is not None, "counters are set before the engine runs"
        try:
            return self.store.append(self.record_id, batch, self.counters)
        except Exception:
            stored = []
            for record in batch:
                try:
                    stored += self.store.append(self.record_id, [record], self.counters)
                except Exception as exc:
                    self.fail(exc)
            return stored


class ScanStart:
    """What ``hub.scans.acreate`` resolved before a new scan starts: the project, the agent (a
    registered ``record`` or a Python ``agent``), the knowledge base's ``documents``."""

    def __init__(
        self,
        project_id: str,
        *,
        agent: Callable[..., Any] | None,
        record: Agent | None,
        knowledge_base_id: str | None,
        documents: list[str] | None,
        executor: Any = None,
        agent_factory: Callable[[], Any] | None = None,
    ):
        self.project_id, self.agent, self.record = project_id, agent, record
        self.knowledge_base_id, self.documents = knowledge_base_id, documents
        #: ``(executor, agent_factory)``: the attacks played on the executor's workers
        self.remote = (executor, agent_factory) if executor is not None else None

    @property
    def agent_name(self) -> str:
        if self.record is not None:
            return self.record.name
        agent = self.agent if self.remote is None else self.remote[1]
        name = getattr(agent, "name", None) or getattr(agent, "__name__", None)
        return name if isinstance(name, str) else type(agent).__name__


def _stored_options(options: ScanOptions) -> dict[str, Any]:
    data = options.model_dump(mode="json", exclude={"documents", "profile"})
    data["profile"] = {"name": options.profile.name, "description": options.profile.description}
    data["profile_had_system_prompt"] = options.profile.system_prompt is not None
    data["profile_secrets"] = len(options.profile.secrets)
    return data


async def start_scan(
    store: ScanStore,
    start: ScanStart,
    *,
    given: dict[str, Any],
    name: str | None,
    progress: bool,
    on_attempt: OnAttempt | None,
    options: dict[str, Any],
) -> Scan:
    """Plan, store and run a new scan (``given``: the selection and limits passed by name)."""
    models = {k: options.pop(k) for k in _MODELS if k in options}
    base = options.pop("options", None)
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    overrides.update(options)
    record = start.record
    if "profile" not in overrides and (base is None or base.profile == AttackProfile()):
        overrides["profile"] = AttackProfile(
            name=start.agent_name, description=record.description if record else ""
        )
    if start.documents is not None:
        overrides["documents"] = start.documents
    resolved = resolve_options(base, overrides)
    judge, generator = resolve_models(resolved, **models)
    plan = plan_scan(resolved, judge=judge, generator=generator)  # before anything is stored
    scan = store.create_scan(
        Scan(
            project_id=start.project_id,
            name=name or f"scan of {start.agent_name}",
            agent_id=record.id if record else None,
            agent_name=start.agent_name,
            local=record is None,
            knowledge_base_id=start.knowledge_base_id,
            started_at=utcnow(),
            options=_stored_options(resolved),
        )
    )
    run = _Run(store, scan, resolved, plan, judge, generator, remote=start.remote)
    return await run.run(start.agent, record, progress=progress, on_attempt=on_attempt)


async def resume_scan(
    store: ScanStore,
    scan: Scan,
    *,
    agent: Callable[..., Any] | None,
    record: Agent | None,
    documents: list[str] | None,
    progress: bool,
    on_attempt: OnAttempt | None,
    extra: dict[str, Any],
    remote: tuple[Any, Callable[[], Any]] | None = None,
) -> Scan:
    """Run the attacks of ``scan`` that have no stored attempt (``extra``: ``profile=``, models)."""
    stored = {k: v for k, v in scan.options.items() if k in ScanOptions.model_fields}
    models = {k: extra.pop(k) for k in _MODELS if k in extra}
    for key in ("profile", "tools"):  # never stored: given again
        if key in extra:
            stored[key] = extra.pop(key)
    if extra:
        raise GiskardValidationError(
            "resume() takes agent=, profile=, tools=, judge=, generator=, on_attempt=; got "
            f"{sorted(extra)}"
        )
    if documents is not None:
        stored["documents"] = documents
    options = resolve_options(None, stored)
    judge, generator = resolve_models(options, **models)
    plan = plan_scan(options, judge=judge, generator=generator)
    run = _Run(store, scan, options, plan, judge, generator, resumed=True, remote=remote)
    return await run.run(agent, record, progress=progress, on_attempt=on_attempt)


class _Run:
    """One pass of the engine over a stored scan's plan."""

    def __init__(
        self,
        store: ScanStore,
        scan: Scan,
        options: ScanOptions,
        plan: ScanPlan,
        judge,
        generator,
        *,
        resumed: bool = False,
        remote: tuple[Any, Callable[[], Any]] | None = None,
    ):
        self.store, self.scan, self.options, self.plan = store, scan, options, plan
        self.judge, self.generator, self.resumed = judge, generator, resumed
        self.remote = remote  # (executor, agent_factory): played on the executor's workers

    async def run(
        self,
        agent: Callable[..., Any] | None,
        record: Agent | None,
        *,
        progress: bool,
        on_attempt: OnAttempt | None,
    ) -> Scan:
        from giskard_nb.scan.catalogue import default_catalogue
        from giskard_nb.scan.runner import run_scan

        store, scan, plan = self.store, self.scan, self.plan
        ledger = ScanAttemptRows(store, scan, on_attempt)
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(ledger)  # refused while another live run holds it
            if self.resumed:
                scan = store.set_status(
                    scan.id, status="running", finished_at=None, stop_reason=None, error=None
                )
            ledger.probe_ids = store.ensure_probes(scan, plan, default_catalogue().probes())
            done = store.stored_attack_ids(scan.id)
            # what earlier runs stored (nothing for a new scan)
            tallies = ledger.counters = store.tallies(scan.id)
            caller, on_workers = agent, {}
            if self.remote is not None:
                on_workers = {"executor": self.remote[0], "agent_factory": self.remote[1]}
            elif caller is None:
                from giskard_nb.hub.agents import RemoteAgent

                if record is None:
                    raise GiskardValidationError(f"scan {scan.name!r} has no agent")
                caller = await stack.enter_async_context(RemoteAgent(record))
            try:
                report = await run_scan(
                    caller, self.options, judge=self.judge, generator=self.generator, plan=plan,
                    on_attempt=ledger.attempt, progress=progress, completed=done, name=scan.name,
                    **on_workers,
                )  # fmt: skip
                await ledger.close()
            except Exception as exc:
                await ledger.stop()
                message = describe_failure(exc, scan)
                store.finish(
                    scan.id, since=scan, tallies=ledger.tallies, status="error",
                    error=message, finished_at=utcnow(),
                )  # fmt: skip
                if isinstance(exc, SQLAlchemyError):
                    raise HubError(message) from exc
                raise
            except BaseException:
                await ledger.stop()
                store.finish(
                    scan.id, since=scan, tallies=ledger.tallies, status="interrupted",
                    finished_at=utcnow(), stop_reason="the scan was interrupted",
                )  # fmt: skip
                raise
        generation = scan.generation_usage + report.extra_usage
        return store.finish(
            scan.id,
            since=scan,
            tallies=tallies,
            status="stopped" if report.status == "stopped" else "finished",
            finished_at=utcnow(),
            stop_reason=report.stop_reason,
            estimate=plan.estimate.model_dump(mode="json"),
            skipped_probes=dict(plan.skipped),
            planned_attacks=report.planned_attacks or len(plan.attacks),
            usage=generation + tallies.usage,
            generation_usage=generation,
            warnings=list(dict.fromkeys([*scan.warnings, *report.warnings])),
        )


def describe_failure(exc: BaseException, scan: Scan) -> str:
    """What stopped a run, for people: the error's type and message, never SQL; a database error says
    that the attempts stored so far are kept and how to go on."""
    if isinstance(exc, SQLAlchemyError):
        cause = getattr(exc, "orig", None) or exc
        detail = readable_error(str(cause)).splitlines()[0] if str(cause).strip() else ""
        return (
            f"the Hub database refused to store the scan's results ({type(cause).__name__}: "
            f"{detail}). The attempts stored before are kept: check the database (--hub or "
            f"GISKARD_NB_HUB_URL: disk space, permissions, a schema from another giskard-nb version), "
            f"then resume the scan with hub.scans.resume({scan.id!r}, agent=...)"
        )
    return f"{type(exc).__name__}: {readable_error(str(exc))}"


def dataset_from_attempts(
    datasets: Any, test_cases: Any, scan: Scan, attempts: Sequence[ScanAttempt], *, name: str | None
) -> Dataset:
    """Create a dataset of regression test cases, one per attempt (see ``giskard_nb.scan.regression``),
    with ``datasets`` and ``test_cases`` (``hub.datasets``, ``hub.test_cases``)."""
    from giskard_nb.hub.check_specs import check_to_spec
    from giskard_nb.scan.regression import attempt_checks

    cases = []
    for stored in attempts:
        attempt = stored.attempt
        specs = [check_to_spec(c) for c in attempt_checks(attempt)]
        checks = [{"identifier": s.identifier, "params": s.params} for s in specs]
        messages = [{"role": m["role"], "content": m["content"]} for m in attempt.input_messages]
        cases.append(
            {
                "messages": messages,
                "checks": checks,
                "name": f"{stored.probe_name or stored.probe_id} [{stored.attack.variant}]",
                "tags": ["scan", f"scan:{stored.category}", f"severity:{stored.severity.label}"],
                "metadata": {
                    "scan_id": scan.id,
                    "scan_attempt_id": stored.id,
                    "probe_id": stored.probe_id,
                },
            }
        )
    dataset = datasets.create(
        scan.project_id,
        name=name or f"Regression tests from {scan.name}",
        description=f"{len(cases)} findings of scan {scan.name!r} ({scan.id}); each test fails while the weakness remains.",
    )
    for case in cases:
        test_cases.create(dataset.id, **case)
    return dataset
