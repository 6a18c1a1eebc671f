"""Human labels on the check verdicts of stored results: ``hub.evaluations.results.label(...)``.

A label is one person's verdict on one check of one result. Several labelers may label the same
verdict; a labeler labelling it again replaces their label (an update, audited as such). Every label is
audited (create, update, delete) and its note is stored with credentials masked
(``giskard_nb.secrets.mask_credentials``), like core labels (``giskard_nb.core.labels``). A label
carries its result's conversation digest (``key``), so it applies to the re-scores of that result
(``hub.evaluations.rescore``) and ``hub.checks.calibrate`` reads it across evaluations.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from giskard_nb.core.labels import result_key, validate_label
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.models.evaluation import EvaluationResult
from giskard_nb.hub.models.label import HubLabel, HubLabelList
from giskard_nb.hub.resources.base import Resource

__all__ = ["LabelsResource"]


class LabelsResource(Resource[HubLabel]):
    """The labels table (reached through ``hub.evaluations.results``)."""

    entity_type = "result_label"
    model = HubLabel
    table = schema.result_labels
    columns = ("project_id", "evaluation_id", "result_id", "key", "check", "labeler")
    is_hub_resource = False

    def add(
        self,
        result: EvaluationResult,
        project_id: str,
        *,
        check: str,
        passed: bool,
        note: str | None = None,
        labeler: str | None = None,
    ) -> HubLabel:
        """Record ``labeler``'s verdict on check ``check`` of ``result`` (replacing their earlier one)."""
        from giskard_nb.secrets import mask_credentials

        names = sorted({c.check_name for c in result.scenario_result.check_results if c.check_name})
        validate_label(names, check, passed, note, f"result {result.id}")
        who = labeler if labeler is not None else self._store.actor
        fields: dict[str, Any] = {
            "project_id": project_id,
            "evaluation_id": result.evaluation_id,
            "result_id": result.id,
            "test_case_id": result.test_case_id,
            "key": result_key(result.scenario_result),
            "scenario": result.scenario_result.scenario_name[:1000],
            "check": check,
            "passed": passed,
            "note": mask_credentials(note) if note else None,
            "labeler": who,
        }
        try:
            new = HubLabel.model_validate(fields)
        except ValidationError as exc:
            problem = exc.errors()[0]
            raise GiskardValidationError(
                f"invalid label: {'.'.join(map(str, problem['loc']))}: {problem['msg']} "
                "(labeler: 1-200 characters; note: at most 4000)"
            ) from None
        t = self.table
        with self._db.write() as conn:
            same = conn.execute(
                t.select().where(t.c.result_id == result.id, t.c.check == check, t.c.labeler == who)
            ).mappings()
            earlier = next(iter(same), None)
            if earlier is not None:
                changes = {"passed": passed, "note": new.note}
                return self._update(earlier["id"], changes, conn=conn)
            return self._create(new, conn=conn)

    def find(
        self,
        *,
        evaluation_id: str | None = None,
        result_id: str | None = None,
        check: str | None = None,
        labeler: str | None = None,
    ) -> HubLabelList:
        """The labels matching every filter given, oldest first."""
        t = self.table
        where = [
            column == value
            for column, value in (
                (t.c.evaluation_id, evaluation_id),
                (t.c.result_id, result_id),
                (t.c.check, check),
                (t.c.labeler, labeler),
            )
            if value is not None
        ]
        return HubLabelList(self._list(*where))
