"""``hub.tasks``: a small issue tracker for the follow-up of evaluations and scans."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from giskard_nb.core.missing import MISSING
from giskard_nb.core.reply import last_user_content
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema_more
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.workflow import Task, TaskPriority, TaskStatus
from giskard_nb.hub.resources.base import Resource

__all__ = ["TasksResource"]


class TasksResource(Resource[Task]):
    """Create, read, update, delete, list and filter tasks. A task may link an evaluation result
    (its evaluation and test case are filled in), a test case and a scan attempt."""

    entity_type = "task"
    model = Task
    table = schema_more.tasks
    columns = ("project_id", "status", "priority")

    def create(
        self,
        project_id: str,
        title: str,
        *,
        description: str = "",
        assignees: Sequence[str] = (),
        status: TaskStatus = "open",
        priority: TaskPriority = "medium",
        evaluation_result_id: str | None = None,
        test_case_id: str | None = None,
        scan_attempt_id: str | None = None,
    ) -> Task:
        """A new task; linked records must exist and belong to the project."""
        self._store.resources.projects.retrieve(project_id)
        links = self._links(project_id, evaluation_result_id, test_case_id, scan_attempt_id)
        data = {
            "project_id": project_id,
            "title": title,
            "description": description,
            "assignees": list(assignees),
            "status": status,
            "priority": priority,
            "created_by": self._store.actor,
            **links,
        }
        return self._create(build(Task, data, "task"))

    def create_from_result(
        self, evaluation_result_id: str, *, title: str | None = None, **fields: Any
    ) -> Task:
        """A task about a failed (or any) evaluation result, titled after its failure and question."""
        result = self._store.resources.evaluations.results.retrieve(evaluation_result_id)
        evaluation = self._store.resources.evaluations.retrieve(result.evaluation_id)
        if title is None:
            question = last_user_content(result.messages) or ""
            what = result.failure_category.title if result.failure_category else result.status
            title = f"{what}: {question}"[:200] if question else f"{what} in {evaluation.name}"
        if "description" not in fields:
            failed = [
                f"- {c.name}: {c.message or c.status}" for c in result.checks if c.status != "pass"
            ]
            fields["description"] = "\n".join(
                [f"Result {result.id} of evaluation {evaluation.name!r}.", *failed]
            )
        return self.create(
            evaluation.project_id, title, evaluation_result_id=evaluation_result_id, **fields
        )

    def update(
        self,
        task_id: str,
        *,
        title: str = MISSING,
        description: str = MISSING,
        assignees: Sequence[str] = MISSING,
        status: TaskStatus = MISSING,
        priority: TaskPriority = MISSING,
    ) -> Task:
        """Change the given fields (``assignees`` replaces the list)."""
        given = {
            "title": title,
            "description": description,
            "assignees": list(assignees) if assignees is not MISSING else MISSING,
            "status": status,
            "priority": priority,
        }
        return self._update(task_id, {k: v for k, v in given.items() if v is not MISSING})

    def list(
        self,
        project_id: str | None = None,
        *,
        status: TaskStatus | Sequence[TaskStatus] | None = None,
        priority: TaskPriority | Sequence[TaskPriority] | None = None,
        assignee: str | None = None,
        evaluation_id: str | None = None,
        evaluation_result_id: str | None = None,
        test_case_id: str | None = None,
        scan_attempt_id: str | None = None,
    ) -> list[Task]:
        """Tasks matching every filter given (``status``/``priority``: one value or several)."""
        t = self.table
        where = []
        if project_id is not None:
            where.append(t.c.project_id == project_id)
        for column, value in ((t.c.status, status), (t.c.priority, priority)):
            if value is not None:
                values = [value] if isinstance(value, str) else list(value)
                where.append(column.in_(values))
        tasks = self._list(*where)
        links = {
            "evaluation_id": evaluation_id,
            "evaluation_result_id": evaluation_result_id,
            "test_case_id": test_case_id,
            "scan_attempt_id": scan_attempt_id,
        }
        for field, value in links.items():
            if value is not None:
                tasks = [task for task in tasks if getattr(task, field) == value]
        if assignee is not None:
            tasks = [task for task in tasks if assignee in task.assignees]
        return tasks

    def to_dataframe(self, project_id: str | None = None, **filters: Any) -> Any:
        """``list(...)`` as a DataFrame (status and priority as Categoricals)."""
        from giskard_nb.frames.hub_records import tasks_frame

        return tasks_frame(self.list(project_id, **filters))

    def _links(
        self,
        project_id: str,
        result_id: str | None,
        test_case_id: str | None,
        attempt_id: str | None,
    ) -> dict[str, Any]:
        links: dict[str, Any] = {"scan_attempt_id": attempt_id, "test_case_id": test_case_id}
        if result_id is not None:
            result = self._store.resources.evaluations.results.retrieve(result_id)
            evaluation = self._store.resources.evaluations.retrieve(result.evaluation_id)
            self._check_project(project_id, "evaluation result", evaluation.project_id)
            links.update(evaluation_result_id=result.id, evaluation_id=evaluation.id)
            if test_case_id is None:
                links["test_case_id"] = result.test_case_id
        if test_case_id is not None:
            case = self._store.resources.test_cases.retrieve(test_case_id)
            self._check_project(project_id, "test case", case.project_id)
        if attempt_id is not None:
            self._check_attempt(project_id, attempt_id)
        return links

    def _check_attempt(self, project_id: str, attempt_id: str) -> None:
        """The scan attempt must exist (and be in the project)."""
        attempt = self._store.resources.scans.attempts.retrieve(attempt_id)
        self._check_project(project_id, "scan attempt", attempt.project_id)

    @staticmethod
    def _check_project(project_id: str, what: str, owner: str) -> None:
        if owner != project_id:
            raise GiskardValidationError(
                f"the {what} belongs to project {owner}, not to {project_id}: link records of the "
                "task's own project"
            )
