"""A human label on a check verdict of a stored evaluation result (``hub.evaluations.results.label``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from giskard_nb.hub.models.base import HubRecord

__all__ = ["HubLabel", "HubLabelList"]

_NAME = Field(min_length=1, max_length=200)


class HubLabel(HubRecord):
    """One person's verdict (``passed``) on check ``check`` of result ``result_id``. ``key`` is the
    result's conversation digest (``giskard_nb.core.labels.result_key``): the label applies to every
    result of the same conversation (re-scores, repeats), as core labels do."""

    project_id: str
    evaluation_id: str
    result_id: str
    test_case_id: str
    key: str = Field(pattern=r"^[0-9a-f]{32}$")
    scenario: str = Field(default="", max_length=1000)
    check: str = _NAME
    passed: bool = Field(strict=True)
    note: str | None = Field(default=None, max_length=4000)
    labeler: str = _NAME


class HubLabelList(list):
    """A list of ``HubLabel`` with ``to_dataframe()``."""

    def to_dataframe(self) -> Any:
        """One row per label: ``id``, ``evaluation_id``, ``result_id``, ``test_case_id``, ``check``,
        ``passed``, ``labeler``, ``note``, ``created_at``."""
        from giskard_nb.frames import records_frame

        fields = (
            "id",
            "evaluation_id",
            "result_id",
            "test_case_id",
            "scenario",
            "check",
            "passed",
            "labeler",
            "note",
            "created_at",
        )
        return records_frame([{f: getattr(x, f) for f in fields} for x in self])
