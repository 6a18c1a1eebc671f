"""``hub.checks``: reusable project checks (a built-in check with preset params)."""

from __future__ import annotations

from typing import Any

from giskard_nb.core.check import Check
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.check_specs import BUILTIN_CHECKS, BuiltinCheck, build_check
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.resources.base import Resource

__all__ = ["ChecksResource"]


class ChecksResource(Resource[HubCheck]):
    """Create, read, update, delete and list a project's checks.

    ``hub.checks.create(project_id, "tone", "Polite tone", params={"type": "conformity", "rules": [...]})``
    makes ``{"identifier": "tone"}`` usable in any test case of the project (its params override the
    preset ones).
    """

    entity_type = "check"
    model = HubCheck
    table = schema.checks
    columns = ("project_id", "identifier")

    def create(
        self,
        project_id: str,
        identifier: str,
        name: str,
        *,
        params: dict[str, Any],
        description: str = "",
    ) -> HubCheck:
        """A project check; ``params["type"]`` is a built-in identifier or a check kind."""
        self._store.resources.projects.retrieve(project_id)
        if identifier in BUILTIN_CHECKS or identifier in Check.kinds():
            raise GiskardValidationError(
                f"{identifier!r} is a built-in check identifier: give your check another one "
                f"(for example 'custom_{identifier}')"
            )
        check = self._build(project_id, identifier, name, params, description)
        if self.by_identifier(project_id).get(identifier) is not None:
            raise GiskardValidationError(
                f"project {project_id} already has a check {identifier!r}: update it with "
                "hub.checks.update(check_id, ...) or pick another identifier"
            )
        return self._create(check)

    def update(
        self,
        check_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> HubCheck:
        """Change the name, description or params (``params`` replaces them, ``type`` included)."""
        current = self.retrieve(check_id)
        changes: dict[str, Any] = {}
        if name is not None:
            changes["name"] = name
        if description is not None:
            changes["description"] = description
        if params is not None:
            rebuilt = self._build(
                current.project_id, current.identifier, current.name, params, current.description
            )
            changes.update(type=rebuilt.type, params=rebuilt.params)
        return self._update(check_id, changes)

    def list(self, project_id: str | None = None) -> list[HubCheck]:
        """The checks of a project (or all)."""
        where = [self.table.c.project_id == project_id] if project_id else []
        return self._list(*where)

    def by_identifier(self, project_id: str) -> dict[str, HubCheck]:
        """``{identifier: check}`` for a project."""
        return {c.identifier: c for c in self.list(project_id)}

    @staticmethod
    def builtins() -> list[BuiltinCheck]:
        """The built-in identifiers (correctness, conformity, groundedness, ...) and what they check."""
        return list(BUILTIN_CHECKS.values())

    def _build(
        self, project_id: str, identifier: str, name: str, params: dict[str, Any], description: str
    ) -> HubCheck:
        params = dict(params or {})
        kind = params.pop("type", None)
        if not kind:
            raise GiskardValidationError(
                f"check {identifier!r} needs params['type']: one of {', '.join(BUILTIN_CHECKS)} or a "
                "check kind such as 'regex_matching'"
            )
        check = build(
            HubCheck,
            {
                "project_id": project_id,
                "identifier": identifier,
                "name": name,
                "description": description,
                "type": kind,
                "params": params,
            },
            "check",
        )
        build_check({"identifier": identifier}, {identifier: check})
        return check
