"""``hub.projects.scenarios``: reusable persona / behaviour templates of a project."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import NotFoundError
from giskard_nb.hub import schema_more
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.workflow import ProjectScenario
from giskard_nb.hub.resources.base import Resource

__all__ = ["ScenariosResource"]


class ScenariosResource(Resource[ProjectScenario]):
    """Create, read, update, delete and list a project's scenarios; ``preview`` what they generate."""

    entity_type = "project_scenario"
    model = ProjectScenario
    table = schema_more.project_scenarios
    columns = ("project_id", "name")

    def create(
        self, project_id: str, *, name: str, description: str, rules: Sequence[str] = ()
    ) -> ProjectScenario:
        """A persona: ``description`` says who the user is and what they do; ``rules`` how the agent
        must behave with them (each generated test case checks them)."""
        self._store.resources.projects.retrieve(project_id)
        data = {"project_id": project_id, "name": name, "description": description}
        return self._create(build(ProjectScenario, {**data, "rules": list(rules)}, "scenario"))

    def update(
        self,
        scenario_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        rules: Sequence[str] | None = None,
    ) -> ProjectScenario:
        """Change the given fields (``rules`` replaces the list)."""
        given = {
            "name": name,
            "description": description,
            "rules": list(rules) if rules is not None else None,
        }
        return self._update(scenario_id, {k: v for k, v in given.items() if v is not None})

    def list(self, project_id: str | None = None) -> list[ProjectScenario]:
        """The scenarios of a project (or all), oldest first."""
        where = [self.table.c.project_id == project_id] if project_id is not None else []
        return self._list(*where)

    async def apreview(
        self,
        scenario_id: str,
        *,
        n_examples: int = 3,
        agent_id: str | None = None,
        generator: Any = None,
    ) -> list[Any]:
        """A few generated test cases (``GeneratedCase``), not stored: to tune a scenario's wording."""
        from giskard_nb.hub.generate import persona_cases

        scenario = self.retrieve(scenario_id)
        result = await persona_cases(
            self._store, scenario, agent_id=agent_id, n_examples=n_examples, generator=generator
        )
        return result.cases

    preview = sync_twin(apreview)

    def to_dataframe(self, project_id: str | None = None) -> Any:
        from giskard_nb.frames.hub_records import scenarios_frame

        return scenarios_frame(self.list(project_id))

    def _get(self, conn: Any, id: str) -> ProjectScenario:
        try:
            return super()._get(conn, id)
        except NotFoundError:
            raise NotFoundError(
                f"no project scenario with id {id!r}: list them with "
                "hub.projects.scenarios.list(project_id)"
            ) from None

    def __repr__(self) -> str:
        return "<ScenariosResource (hub.projects.scenarios)>"
