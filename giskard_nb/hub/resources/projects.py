"""``hub.projects``: workspaces, with their failure categories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.hub import schema
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.project import FailureCategory, Project
from giskard_nb.hub.resources.base import Resource

if TYPE_CHECKING:
    from giskard_nb.hub.resources.scenarios import ScenariosResource

__all__ = ["ProjectsResource"]

CategoryLike = FailureCategory | dict[str, Any]


class ProjectsResource(Resource[Project]):
    """Create, read, update, delete and list projects. Deleting a project deletes everything in it."""

    entity_type = "project"
    model = Project
    table = schema.projects
    columns = ("name",)
    #: ``hub.projects.scenarios``, set by the Hub.
    scenarios: ScenariosResource

    def create(
        self,
        name: str,
        *,
        description: str = "",
        failure_categories: Sequence[CategoryLike] | None = None,
    ) -> Project:
        """A new project. ``failure_categories`` defaults to ``DEFAULT_FAILURE_CATEGORIES``."""
        from giskard_nb.hub.failure_categories import DEFAULT_FAILURE_CATEGORIES

        categories = (
            DEFAULT_FAILURE_CATEGORIES if failure_categories is None else list(failure_categories)
        )
        project = build(
            Project,
            {"name": name, "description": description, "failure_categories": categories},
            "project",
        )
        return self._create(project)

    def update(
        self,
        project_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        failure_categories: Sequence[CategoryLike] | None = None,
    ) -> Project:
        """Change the given fields (``failure_categories`` replaces the whole list)."""
        changes: dict[str, Any] = {}
        if name is not None:
            changes["name"] = name
        if description is not None:
            changes["description"] = description
        if failure_categories is not None:
            changes["failure_categories"] = list(failure_categories)
        return self._update(project_id, changes)

    def list(self, *, name: str | None = None) -> list[Project]:
        """All projects (oldest first), or those called ``name``."""
        where = [self.table.c.name == name] if name is not None else []
        return self._list(*where)

    def failure_categories(self, project_id: str) -> list[FailureCategory]:
        """The failure categories results of this project are labelled with."""
        return list(self.retrieve(project_id).failure_categories)

    def _project_id(self, record: Project) -> str | None:
        return record.id
