"""Audit log entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from giskard_nb.hub.models.base import HubModel, new_id, utcnow

__all__ = ["AuditEntry"]


class AuditEntry(HubModel):
    """One recorded change: who (``actor``) did what (``action``) to which record, and which fields.

    ``changes`` maps a field to its new value (create), ``{"before", "after"}`` (update) or its last
    value (delete); an ``upload`` (test cases imported into a dataset, one entry per upload) holds
    ``source``, ``test_cases`` (how many) and ``positions`` (first and last); ``results`` (what an
    evaluation run stored, one entry per run, on the evaluation) holds ``written``, ``replaced`` and
    ``by_status``. Secrets are masked.
    """

    id: str = Field(default_factory=new_id)
    created_at: datetime = Field(default_factory=utcnow)
    actor: str
    action: Literal["create", "update", "delete", "upload", "results"]
    entity_type: str
    entity_id: str
    project_id: str | None = None
    changes: dict[str, Any] = Field(default_factory=dict)
    triggered_by: str | None = None
    schema_version: int = 1

    def __repr__(self) -> str:
        fields = ", ".join(self.changes)
        return (
            f"<AuditEntry {self.created_at:%Y-%m-%d %H:%M:%S} {self.actor} {self.action} "
            f"{self.entity_type} {self.entity_id} [{fields}]>"
        )
