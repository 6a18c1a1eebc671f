"""``hub.checks``: reusable project checks (a built-in check with preset params)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.check import Check
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.check_specs import BUILTIN_CHECKS, BuiltinCheck, build_check
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.resources.base import Resource

if TYPE_CHECKING:
    from giskard_nb.core.calibration_report import CalibrationReport
    from giskard_nb.hub.judging import JudgeComparison

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

    def calibrate(
        self,
        project_id: str,
        *,
        check: str,
        evaluation_ids: Sequence[str] | None = None,
        min_labels: int = 30,
        seed: int | None = 0,
    ) -> CalibrationReport:
        """How far check ``check`` (its name, a built-in identifier or a project check's identifier)
        agrees with the human labels of the project's evaluations (or ``evaluation_ids``): a core
        ``CalibrationReport`` (agreement, Cohen's kappa, precision/recall/F1 with bootstrap 95 %
        intervals, the disagreements, a suggested threshold for a scored check, a verdict). Labels
        apply to every result of their conversation, re-scores included (``giskard_nb.hub.judging``)."""
        from giskard_nb.hub.judging import calibrate

        hub = self._store.resources
        options = {"min_labels": min_labels, "seed": seed}
        return calibrate(hub, project_id, check, evaluation_ids, **options)

    async def acompare_judges(
        self,
        evaluation_id: str,
        generators: Sequence[Any],
        *,
        checks: Sequence[Check] | None = None,
        progress: bool = False,
    ) -> JudgeComparison:
        """Re-score an evaluation with each judge of ``generators`` (model names or Generators;
        ``hub.evaluations.rescore``, the agent is not called) and tabulate, per judge and check,
        the pass rate, the agreement with the human labels and the cost of the judge's calls, and
        per pair of judges their agreement and Cohen's kappa (``giskard_nb.hub.judging``)."""
        from giskard_nb.hub.judging import judge_name, judge_table

        items = list(generators) if isinstance(generators, list | tuple) else []
        if len(items) < 1:
            raise GiskardValidationError(
                "compare_judges needs generators=[...]: judge models (names such as "
                "'openai/gpt-4o-mini', or Generators) to re-score the evaluation with"
            )
        hub = self._store.resources
        source = hub.evaluations.retrieve(evaluation_id)
        taken: set[str] = set()
        judged = {}
        for generator in items:
            name = judge_name(generator, taken)
            judged[name] = await hub.evaluations.arescore(
                evaluation_id,
                checks=checks,
                generator=generator,
                name=f"{source.name} (judged by {name})",
                classifier="rules",
                progress=progress,
            )
        return judge_table(hub, source.project_id, judged)

    compare_judges = sync_twin(acompare_judges)

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
