"""Project scenarios (personas), scheduled evaluations, tasks and playground chats."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, field_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.agent import ChatMessage
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.input_generators.personas import Persona
from giskard_nb.schedule.timing import Schedule, ScheduleFields

__all__ = [
    "ExecutionStatus",
    "PlaygroundChat",
    "ProjectScenario",
    "ScheduledEvaluation",
    "Task",
    "TaskPriority",
    "TaskStatus",
]

TaskStatus = Literal["open", "in_progress", "resolved"]
TaskPriority = Literal["low", "medium", "high"]


class _ProjectRecord(HubRecord):
    """A record of a project (``project_id`` first in its dumps, after the record's own fields)."""

    project_id: str


class ProjectScenario(Persona, _ProjectRecord):
    """A reusable persona / behaviour template, stored: a ``Persona`` (who the user is and what they do,
    ``description``, and the ``rules`` the agent must follow with them) of a project. Used by
    ``hub.datasets.generate_scenario_based``."""

    __hash__ = HubRecord.__hash__  # a record's identity, not the persona's field hash

    def __repr__(self) -> str:
        return f"<ProjectScenario {self.name!r} rules={len(self.rules)} id={self.id}>"


class ExecutionStatus(HubModel):
    """How the last run of a schedule went, and whether its e-mail was sent."""

    status: Literal["success", "error"]
    evaluation_id: str | None = None
    error_message: str | None = None
    notification: str | None = None


class _EvaluationTarget(HubRecord):
    """What a scheduled evaluation runs (first in its dumps, after the record's own fields)."""

    project_id: str
    name: str = Field(min_length=1, max_length=200)
    agent_id: str
    dataset_id: str


class ScheduledEvaluation(ScheduleFields, _EvaluationTarget):
    """A recurring evaluation of an agent on a dataset (see ``giskard_nb.schedule.Schedule`` for the
    timing rules). ``notify`` lists e-mail recipients (default: ``GISKARD_NB_SMTP_TO``)."""

    tags: list[str] = Field(default_factory=list)
    notify: list[str] = Field(default_factory=list)
    #: Runs of each test case per execution (``hub.evaluations.create(..., repeats=k)``).
    repeats: int = Field(default=1, ge=1)
    last_execution_at: datetime | None = None
    last_execution_status: ExecutionStatus | None = None
    evaluation_ids: list[str] = Field(default_factory=list)

    @property
    def schedule(self) -> Schedule:
        return Schedule(**{k: getattr(self, k) for k in ScheduleFields.model_fields})

    def next_run_at(self, now: datetime) -> datetime | None:
        return self.schedule.next_due(
            now, last_run_at=self.last_execution_at, created_at=self.created_at
        )

    def __repr__(self) -> str:
        return f"<ScheduledEvaluation {self.name!r} {self.schedule.describe()} id={self.id}>"


class Task(HubRecord):
    """A follow-up item: ``title``, ``description``, ``assignees``, ``status``, ``priority``, linked to
    an evaluation result, a test case and/or a scan attempt."""

    project_id: str
    title: str = Field(min_length=1, max_length=200)
    description: str = ""
    assignees: list[str] = Field(default_factory=list)
    status: TaskStatus = "open"
    priority: TaskPriority = "medium"
    evaluation_id: str | None = None
    evaluation_result_id: str | None = None
    test_case_id: str | None = None
    scan_attempt_id: str | None = None
    created_by: str = ""

    @field_validator("assignees")
    @classmethod
    def _assignees(cls, names: list[str]) -> list[str]:
        cleaned = [n.strip() for n in names]
        if any(not n for n in cleaned):
            raise GiskardValidationError("assignees are non-empty names or e-mail addresses")
        return list(dict.fromkeys(cleaned))

    def __repr__(self) -> str:
        return f"<Task {self.title!r} {self.status} {self.priority} id={self.id}>"


class PlaygroundChat(HubRecord):
    """A conversation held with an agent (or typed by hand when ``agent_id`` is None)."""

    project_id: str
    agent_id: str | None = None
    title: str = ""
    messages: list[ChatMessage] = Field(default_factory=list)
    user: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<PlaygroundChat {self.title!r} messages={len(self.messages)} id={self.id}>"
