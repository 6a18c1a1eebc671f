"""``hub.scheduled_evaluations``: evaluations that run on a schedule, and the runner of due ones.

``run_due()`` (what ``giskard-nb scheduler`` calls in a loop) finds the schedules due at ``now`` (the
resource's ``clock``, replaceable by a ``ManualClock``), claims each one atomically (two schedulers on
the same database never run it twice), runs the evaluation, records the outcome on the schedule, and
e-mails the report — the summary and the per-case changes since the schedule's previous evaluation —
when SMTP is configured (``GISKARD_NB_SMTP_*``, see ``giskard_nb.schedule.notify``). A failing run or
e-mail is recorded (``last_execution_status``), never raised: one bad schedule does not stop the others.
A run is ``success`` only when its evaluation finished and not every result errored; otherwise it is
``error`` with the reason (``giskard_nb.schedule.run_failure``), and the e-mail says so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from giskard_nb.core.missing import MISSING
from giskard_nb.core.suite import check_repeats
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.hub import schema_more
from giskard_nb.hub.models.base import build, require_same_project
from giskard_nb.hub.models.workflow import ExecutionStatus, ScheduledEvaluation
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.store import Store
from giskard_nb.schedule import EmailNotifier, RunReport, SystemClock, report_changes, run_failure
from giskard_nb.schedule.notify import describe_failure, parse_addresses, single_line
from giskard_nb.schedule.timing import Schedule, ScheduleFields, as_utc

__all__ = ["ScheduledEvaluationsResource", "ScheduledRun"]

logger = logging.getLogger("giskard_nb.schedule")


@dataclass(frozen=True)
class ScheduledRun:
    """What ``run_due`` did for one schedule."""

    scheduled_evaluation_id: str
    name: str
    status: str  # "success" | "error"
    evaluation_id: str | None
    report: RunReport
    notification: str


class ScheduledEvaluationsResource(Resource[ScheduledEvaluation]):
    """Create, read, update, delete and list schedules; ``list_evaluations``; ``run_due``."""

    entity_type = "scheduled_evaluation"
    model = ScheduledEvaluation
    table = schema_more.scheduled_evaluations
    columns = ("project_id", "name", "paused", "last_execution_at")

    def __init__(self, store: Store):
        super().__init__(store)
        #: Where "now" comes from (a ``giskard_nb.schedule.ManualClock`` in tests and demos).
        self.clock: Any = SystemClock()
        #: The e-mail notifier; ``None`` reads ``GISKARD_NB_SMTP_*`` at each run.
        self.notifier: EmailNotifier | None = None

    def create(
        self,
        project_id: str,
        *,
        name: str,
        agent_id: str,
        dataset_id: str,
        frequency: str,
        time: str = "09:00",
        day_of_week: int | str | None = None,
        day_of_month: int | None = None,
        timezone: str = "UTC",
        tags: Sequence[str] = (),
        notify: Sequence[str] = (),
        paused: bool = False,
        repeats: int = 1,
    ) -> ScheduledEvaluation:
        """Run ``agent_id`` on ``dataset_id`` (its test cases having every tag in ``tags``) at ``time``
        every day, every ``day_of_week`` (weekly) or on ``day_of_month`` (monthly); ``repeats=k``:
        each test case k times per execution (its report compares case verdicts over the runs)."""
        agent = self._store.resources.agents.retrieve(agent_id)
        dataset = self._store.resources.datasets.retrieve(dataset_id)
        require_same_project(
            project_id,
            ("agent", agent),
            ("dataset", dataset),
            advice="schedule agents and datasets of the same project",
        )
        timing = build(
            Schedule,
            {
                "frequency": frequency,
                "time": time,
                "day_of_week": day_of_week,
                "day_of_month": day_of_month,
                "timezone": timezone,
                "paused": paused,
            },
            "schedule",
        )
        data = {
            "project_id": project_id,
            "name": _name(name),
            "agent_id": agent_id,
            "dataset_id": dataset_id,
            **timing.model_dump(),
            "tags": list(tags),
            "notify": _addresses(notify),
            "repeats": check_repeats(repeats, "test case"),
            "created_at": self.clock.now(),
            "updated_at": self.clock.now(),
        }
        return self._create(build(ScheduledEvaluation, data, "scheduled evaluation"))

    def update(
        self,
        scheduled_evaluation_id: str,
        *,
        name: str = MISSING,
        frequency: str = MISSING,
        time: str = MISSING,
        day_of_week: int | str | None = MISSING,
        day_of_month: int | None = MISSING,
        timezone: str = MISSING,
        paused: bool = MISSING,
        tags: Sequence[str] = MISSING,
        notify: Sequence[str] = MISSING,
        repeats: int = MISSING,
    ) -> ScheduledEvaluation:
        """Change the given fields; the timing is re-validated as a whole."""
        current = self.retrieve(scheduled_evaluation_id)
        given = {
            "frequency": frequency,
            "time": time,
            "day_of_week": day_of_week,
            "day_of_month": day_of_month,
            "timezone": timezone,
            "paused": paused,
        }
        timing = {k: getattr(current, k) for k in ScheduleFields.model_fields}
        timing.update({k: v for k, v in given.items() if v is not MISSING})
        if frequency is not MISSING and frequency != current.frequency:
            for key in ("day_of_week", "day_of_month"):
                if given[key] is MISSING:
                    timing[key] = None
        changes: dict[str, Any] = build(Schedule, timing, "schedule").model_dump()
        if name is not MISSING:
            changes["name"] = _name(name)
        if tags is not MISSING:
            changes["tags"] = list(tags)
        if notify is not MISSING:
            changes["notify"] = _addresses(notify)
        if repeats is not MISSING:
            changes["repeats"] = check_repeats(repeats, "test case")
        return self._update(scheduled_evaluation_id, changes)

    def pause(self, scheduled_evaluation_id: str) -> ScheduledEvaluation:
        return self.update(scheduled_evaluation_id, paused=True)

    def resume(self, scheduled_evaluation_id: str) -> ScheduledEvaluation:
        return self.update(scheduled_evaluation_id, paused=False)

    def list(
        self, project_id: str | None = None, *, paused: bool | None = None
    ) -> list[ScheduledEvaluation]:
        where = []
        if project_id is not None:
            where.append(self.table.c.project_id == project_id)
        if paused is not None:
            where.append(self.table.c.paused == paused)
        return self._list(*where)

    def list_evaluations(self, scheduled_evaluation_id: str) -> list[Any]:
        """The evaluations this schedule ran, oldest first (deleted ones are left out)."""
        from giskard_nb.errors import NotFoundError

        found = []
        for evaluation_id in self.retrieve(scheduled_evaluation_id).evaluation_ids:
            try:
                found.append(self._store.resources.evaluations.retrieve(evaluation_id))
            except NotFoundError:
                continue
        return found

    def due(self, now: datetime | None = None) -> list[ScheduledEvaluation]:
        """The schedules due at ``now`` (default: the clock's time)."""
        moment = as_utc(now) if now is not None else self.clock.now()
        return [
            s
            for s in self.list(paused=False)
            if s.schedule.is_due(moment, last_run_at=s.last_execution_at, created_at=s.created_at)
        ]

    def next_run_at(
        self, scheduled_evaluation_id: str, now: datetime | None = None
    ) -> datetime | None:
        moment = as_utc(now) if now is not None else self.clock.now()
        return self.retrieve(scheduled_evaluation_id).next_run_at(moment)

    # -- running -------------------------------------------------------------------------------------

    async def arun_due(self, now: datetime | None = None) -> list[ScheduledRun]:
        """Run every schedule due at ``now`` (one after the other); see the module docstring."""
        moment = as_utc(now) if now is not None else self.clock.now()
        runs = []
        for schedule in self.due(moment):
            if self._claim(schedule, moment):
                runs.append(await self._execute(schedule, moment))
        return runs

    run_due = sync_twin(arun_due)

    async def arun_now(self, scheduled_evaluation_id: str) -> ScheduledRun:
        """Run a schedule immediately (paused or not); it counts as its latest run."""
        schedule = self.retrieve(scheduled_evaluation_id)
        moment = self.clock.now()
        self._claim(schedule, moment, force=True)
        return await self._execute(schedule, moment)

    run_now = sync_twin(arun_now)

    def _claim(self, schedule: ScheduledEvaluation, moment: datetime, force: bool = False) -> bool:
        """Set ``last_execution_at`` only if nobody else did since we read it (compare and set)."""
        t = self.table
        query = sa.update(t).where(t.c.id == schedule.id)
        if not force:
            previous = schedule.last_execution_at
            query = query.where(
                t.c.last_execution_at.is_(None)
                if previous is None
                else t.c.last_execution_at == previous
            )
        with self._db.write() as conn:
            claimed = conn.execute(query.values(last_execution_at=moment)).rowcount == 1
        return claimed

    async def _execute(self, schedule: ScheduledEvaluation, moment: datetime) -> ScheduledRun:
        evaluations = self._store.resources.evaluations
        previous = self.list_evaluations(schedule.id)
        previous = [e for e in previous if run_failure(e) is None]  # the last successful run
        agent_name = dataset_name = ""
        evaluation = None
        error = None
        try:
            agent_name = self._store.resources.agents.retrieve(schedule.agent_id).name
            dataset_name = self._store.resources.datasets.retrieve(schedule.dataset_id).name
            evaluation = await evaluations.acreate(
                schedule.project_id,
                schedule.agent_id,
                schedule.dataset_id,
                name=f"{schedule.name} {moment:%Y-%m-%d %H:%M}",
                tags=schedule.tags,
                progress=False,
                repeats=schedule.repeats,
            )
            error = run_failure(evaluation, self._first_error(evaluation))
        except Exception as exc:  # a schedule whose agent or dataset is gone: record, go on
            error = f"{type(exc).__name__}: {exc}"
            logger.warning("scheduled evaluation %r failed: %s", schedule.name, error)
        changes, previous_rate = [], None
        if evaluation is not None and previous:
            comparison = evaluations.compare(previous[-1].id, evaluation.id)
            changes = report_changes(comparison.cases)
            previous_rate = previous[-1].pass_rate
        latest = self.retrieve(schedule.id)
        report = RunReport(
            schedule_name=schedule.name,
            schedule_id=schedule.id,
            evaluation_name=evaluation.name if evaluation else None,
            evaluation_id=evaluation.id if evaluation else None,
            agent_name=agent_name,
            dataset_name=dataset_name,
            started_at=moment,
            finished_at=self.clock.now(),
            status="error" if error else "success",
            error=error,
            counts=dict(evaluation.counts) if evaluation else {},
            previous_pass_rate=previous_rate,
            first_run=not previous,
            changes=changes,
            next_run_at=latest.schedule.next_due(
                moment, last_run_at=moment, created_at=latest.created_at
            ),
        )
        notification = self._notify(latest, report)
        status = ExecutionStatus(
            status=report.status,
            evaluation_id=report.evaluation_id,
            error_message=error,
            notification=notification,
        )
        ids = [*latest.evaluation_ids, *([evaluation.id] if evaluation else [])]
        self._update(
            schedule.id,
            {"last_execution_at": moment, "last_execution_status": status, "evaluation_ids": ids},
        )
        return ScheduledRun(
            schedule.id, schedule.name, report.status, report.evaluation_id, report, notification
        )

    def _first_error(self, evaluation: Any) -> str | None:
        if not evaluation.counts.get("error"):
            return None
        errored = self._store.resources.evaluations.results.list(evaluation.id, status="error")
        return next((r.error for r in errored if r.error), None)

    def _notify(self, schedule: ScheduledEvaluation, report: RunReport) -> str:
        notifier = None
        try:
            notifier = self.notifier or EmailNotifier.from_env()
            if notifier is None:
                return "not sent: no SMTP server configured (GISKARD_NB_SMTP_HOST)"
            sent = notifier.send(report, recipients=schedule.notify or None)
            return f"sent to {', '.join(sent)}"
        except Exception as exc:  # e-mail trouble must not lose the run's outcome
            why = describe_failure(exc, notifier.settings if notifier else None)
            logger.warning("e-mail for %r not sent: %s", schedule.name, why)
            return f"not sent: {why}"

    # -- frames --------------------------------------------------------------------------------------

    def to_dataframe(self, project_id: str | None = None) -> Any:
        """One row per schedule, with its next run time at the clock's ``now``."""
        from giskard_nb.frames.hub_records import schedules_frame

        return schedules_frame(self.list(project_id), self.clock.now())


def _addresses(values: str | Sequence[str]) -> list[str]:
    try:
        return parse_addresses(values)
    except ConfigError as exc:
        raise GiskardValidationError(str(exc)) from None


def _name(name: str) -> str:
    try:
        return single_line(name, what="a schedule's name")
    except ConfigError as exc:
        raise GiskardValidationError(f"{exc} (it is the subject of the run's e-mail)") from None
