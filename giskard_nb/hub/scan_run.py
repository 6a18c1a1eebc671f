"""Running a scan in the Hub: the engine (``giskard_nb.scan.run_scan``) with every attempt stored as it
completes, the scan's status and grade kept current, and resumption of an interrupted scan.

The stored options never include a system prompt or secrets given in ``profile``: pass the profile
again to ``resume`` to keep detecting exact leaks of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.base import require_same_project, utcnow
from giskard_nb.hub.models.scan import Scan, ScanAttempt, ScanProbe
from giskard_nb.hub.ownership import beat_forever
from giskard_nb.scan.attack import AttackProfile
from giskard_nb.scan.plan import ScanOptions, plan_scan, resolve_options

if TYPE_CHECKING:
    from giskard_nb.hub.hub import Hub
    from giskard_nb.hub.models.dataset import Dataset

__all__ = ["dataset_from_attempts", "resume_scan", "start_scan"]

_MODELS = ("judge", "generator")


def _stored_options(options: ScanOptions) -> dict[str, Any]:
    data = options.model_dump(mode="json", exclude={"documents", "profile"})
    data["profile"] = {"name": options.profile.name, "description": options.profile.description}
    data["profile_had_system_prompt"] = options.profile.system_prompt is not None
    data["profile_secrets"] = len(options.profile.secrets)
    return data


async def start_scan(
    hub: Hub,
    project_id: str,
    *,
    agent_id: str | None,
    agent: Callable[..., Any] | None,
    knowledge_base_id: str | None,
    categories: Sequence[str] | None,
    probe_ids: Sequence[str] | None,
    max_attempts_per_probe: int | None,
    budget: Any,
    name: str | None,
    progress: bool,
    options: dict[str, Any],
) -> Scan:
    hub.projects.retrieve(project_id)
    if (agent_id is None) == (agent is None):
        raise GiskardValidationError(
            "give agent_id= (a registered agent) or agent= (a Python function), exactly one"
        )
    record = None
    if agent_id is not None:
        record = hub.agents.retrieve(agent_id)
        require_same_project(project_id, ("agent", record))
    elif not callable(agent):
        raise GiskardValidationError(
            f"agent= must be a function taking the list of chat messages, got {type(agent).__name__}"
        )
    models = {k: options.pop(k) for k in _MODELS if k in options}
    base = options.pop("options", None)
    agent_name = record.name if record else getattr(agent, "__name__", None) or type(agent).__name__
    given = {
        "categories": list(categories) if categories is not None else None,
        "probe_ids": list(probe_ids) if probe_ids is not None else None,
        "max_attempts_per_probe": max_attempts_per_probe,
        "budget": budget,
    }
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    overrides.update(options)
    if "profile" not in overrides and (base is None or base.profile == AttackProfile()):
        overrides["profile"] = AttackProfile(
            name=agent_name, description=record.description if record else ""
        )
    if knowledge_base_id is not None:
        overrides["documents"] = hub.scans.documents(knowledge_base_id, project_id=project_id)
    resolved = resolve_options(base, overrides)
    plan_scan(resolved)  # validates the selection before anything is stored
    scan = hub.scans._create(
        Scan(
            project_id=project_id,
            name=name or f"scan of {agent_name}",
            agent_id=record.id if record else None,
            agent_name=agent_name,
            local=record is None,
            knowledge_base_id=knowledge_base_id,
            started_at=utcnow(),
            options=_stored_options(resolved),
        )
    )
    hub.scans._claim(scan.id)
    return await _run(hub, scan, agent, resolved, models, progress)


async def resume_scan(
    hub: Hub,
    scan_id: str,
    *,
    agent: Callable[..., Any] | None,
    progress: bool,
    **extra: Any,
) -> Scan:
    scan = hub.scans.retrieve(scan_id)
    _require_agent(hub, scan, agent)  # a resume that cannot start leaves the stored scan as it was
    stored = {k: v for k, v in scan.options.items() if k in ScanOptions.model_fields}
    models = {k: extra.pop(k) for k in _MODELS if k in extra}
    if "profile" in extra:
        stored["profile"] = extra.pop("profile")
    if extra:
        raise GiskardValidationError(
            f"resume() takes agent=, profile=, judge=, generator=; got {sorted(extra)}"
        )
    if scan.knowledge_base_id is not None:
        stored["documents"] = hub.scans.documents(scan.knowledge_base_id)
    options = resolve_options(None, stored)
    hub.scans._claim(scan.id)  # refused while another live run holds it
    hub.scans._set(scan.id, status="running", finished_at=None, stop_reason=None, error=None)
    return await _run(hub, scan, agent, options, models, progress)


def _require_agent(hub: Hub, scan: Scan, agent: Callable[..., Any] | None) -> None:
    """Raise (before anything is stored) when ``resume`` has no agent it can call."""
    if agent is not None:
        if not callable(agent):
            raise GiskardValidationError(
                f"agent= must be a function taking the list of chat messages, got "
                f"{type(agent).__name__}; scan {scan.name!r} was left as it was"
            )
        return
    if scan.local:
        raise GiskardValidationError(
            f"scan {scan.name!r} ran a local agent ({scan.agent_name!r}): pass it again with agent=<the function>"
        )
    if scan.agent_id is None:
        raise GiskardValidationError(f"scan {scan.name!r} has no agent: pass agent=<the function>")
    hub.agents.retrieve(scan.agent_id)  # NotFoundError when the registered agent is gone


async def _run(
    hub: Hub,
    scan: Scan,
    agent: Callable[..., Any] | None,
    options: ScanOptions,
    models: dict[str, Any],
    progress: bool,
) -> Scan:
    from giskard_nb.scan.runner import default_model, run_scan

    model = default_model() if len(models) < 2 else None
    judge = models.get("judge", model)
    generator = models.get("generator", model)
    if options.use_judge is False:
        judge = None
    plan = plan_scan(options, judge=judge, generator=generator)
    probe_ids = _ensure_probes(hub, scan, plan)
    done = hub.scans.attempts.stored_attack_ids(scan.id)

    def save(attempt: Any) -> None:
        record = ScanAttempt.from_attempt(
            attempt,
            scan_id=scan.id,
            scan_probe_id=probe_ids[attempt.probe_id],
            project_id=scan.project_id,
        )
        with hub._db.write() as conn:
            hub.scans.attempts._save(conn, record)
            hub.scans._store_tallies(conn, scan.id)

    async with AsyncExitStack() as stack:
        if agent is not None:
            caller = agent
        else:
            from giskard_nb.hub.agents import RemoteAgent

            if scan.agent_id is None:
                raise GiskardValidationError(f"scan {scan.name!r} has no agent")
            caller = await stack.enter_async_context(
                RemoteAgent(hub.agents.retrieve(scan.agent_id))
            )
        beat = asyncio.create_task(beat_forever(lambda: hub.scans._beat(scan.id)))
        stack.callback(beat.cancel)
        try:
            report = await run_scan(
                caller, options, judge=judge, generator=generator, on_attempt=save,
                progress=progress, completed=done, name=scan.name,
            )  # fmt: skip
        except Exception as exc:
            hub.scans._set(
                scan.id, status="error", error=f"{type(exc).__name__}: {exc}", finished_at=utcnow()
            )
            raise
        except BaseException:
            hub.scans._set(
                scan.id,
                status="interrupted",
                finished_at=utcnow(),
                stop_reason="the scan was interrupted",
            )
            raise
    generation = scan.generation_usage + report.extra_usage
    usage = generation
    for a in hub.scans.attempts.list(scan_id=scan.id):
        usage = usage + a.usage
    return hub.scans._set(
        scan.id,
        status="stopped" if report.status == "stopped" else "finished",
        finished_at=utcnow(),
        stop_reason=report.stop_reason,
        estimate=plan.estimate.model_dump(mode="json"),
        skipped_probes=dict(plan.skipped),
        planned_attacks=report.planned_attacks or len(plan.attacks),
        usage=usage,
        generation_usage=generation,
        warnings=list(dict.fromkeys([*scan.warnings, *report.warnings])),
    )


def _ensure_probes(hub: Hub, scan: Scan, plan: Any) -> dict[str, str]:
    """A ``ScanProbe`` per planned (or skipped) probe, created once; probe id -> record id. A probe
    that now runs without the judge it needs is marked ``unjudged`` (a resume never clears the mark:
    the attempts stored before were not judged either)."""
    stored = {p.probe_id: p for p in hub.scans.probes.list(scan.id)}
    existing = {pid: p.id for pid, p in stored.items()}
    entries: list[tuple[Any, str | None]] = [(p, None) for p in plan.probes]
    catalogue = {p.id: p for p in _catalogue_probes()}
    entries += [(catalogue.get(pid), why) for pid, why in plan.skipped.items() if pid in catalogue]
    with hub._db.write() as conn:
        for position, (probe, why) in enumerate(entries):
            if probe is None:
                continue
            unjudged = probe.id in plan.unjudged
            if probe.id in existing:
                if unjudged and stored[probe.id].unjudged is False:
                    hub.scans.probes._update(existing[probe.id], {"unjudged": True}, conn=conn)
                continue
            record = ScanProbe(
                scan_id=scan.id, project_id=scan.project_id, probe_id=probe.id, position=position,
                name=probe.name, description=probe.description, category=probe.category,
                tags=list(probe.tags), severity=probe.severity, skipped=why, unjudged=unjudged,
            )  # fmt: skip
            hub.scans.probes._create(record, conn=conn)
            existing[probe.id] = record.id
    return existing


def _catalogue_probes() -> list[Any]:
    from giskard_nb.scan.catalogue import default_catalogue

    return default_catalogue().probes()


def dataset_from_attempts(
    hub: Hub, scan: Scan, attempts: Sequence[ScanAttempt], *, name: str | None
) -> Dataset:
    """Create a dataset of regression test cases, one per attempt (see ``giskard_nb.scan.regression``)."""
    from giskard_nb.scan.regression import attempt_checks

    cases = []
    for stored in attempts:
        attempt = stored.to_attempt()
        checks = [
            {
                "identifier": c.kind,
                "params": c.model_dump(mode="json", exclude={"kind"}, exclude_none=True),
            }
            for c in attempt_checks(attempt)
        ]
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
    dataset = hub.datasets.create(
        scan.project_id,
        name=name or f"Regression tests from {scan.name}",
        description=f"{len(cases)} findings of scan {scan.name!r} ({scan.id}); each test fails while the weakness remains.",
    )
    for case in cases:
        hub.test_cases.create(dataset.id, **case)
    return dataset
