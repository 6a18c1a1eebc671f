"""The audit log: every create, update and delete, written in the same transaction as the change.

An entry records the time, the actor (``Hub(actor=...)``, else ``$GISKARD_NB_ACTOR``, else the OS user),
the action, the entity type and id, its project, and the changed fields. Secret fields (agent headers)
show which keys changed, never the values.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.hub import schema
from giskard_nb.hub.models.audit import AuditEntry
from giskard_nb.hub.models.base import SCHEMA_VERSION, build, new_id, utcnow

if TYPE_CHECKING:
    from giskard_nb.hub.store import Store

__all__ = ["AuditLog", "diff_fields", "write_entry"]

_SPINE = ("id", "created_at", "updated_at", "schema_version")


def diff_fields(
    before: dict[str, Any], after: dict[str, Any], shown_after: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """``{field: {"before", "after"}}`` for every field whose value differs (timestamps ignored).

    ``before``/``after`` are compared in full (secrets revealed, so a changed token is noticed); the
    values shown come from ``shown_after`` (masked) when given, and ``before`` is masked alike.
    """
    shown = shown_after or after
    changes = {}
    for key in sorted(set(before) | set(after)):
        if key in _SPINE or before.get(key) == after.get(key):
            continue
        old = before.get(key)
        if shown_after is not None and shown.get(key) != after.get(key):
            old = _mask_like(old)
        changes[key] = {"before": old, "after": shown.get(key)}
    return changes


def _mask_like(value: Any) -> Any:
    from giskard_nb.hub.secrets import mask_mapping

    return mask_mapping(value) if isinstance(value, dict) else "***"


def write_entry(
    conn: sa.Connection,
    hub: Any,
    *,
    action: str,
    entity_type: str,
    entity_id: str,
    project_id: str | None,
    changes: dict[str, Any],
    triggered_by: str | None = None,
) -> None:
    """Record one change by ``hub.actor`` (``hub``: the store, or anything with an ``actor``; call
    inside the transaction that makes it). Resources write through ``Store.audit``."""
    conn.execute(
        schema.audit_log.insert(),
        {
            "id": new_id(),
            "schema_version": SCHEMA_VERSION,
            "created_at": utcnow(),
            "actor": hub.actor,
            "action": action,
            "entity_type": entity_type,
            "entity_id": entity_id,
            "project_id": project_id,
            "triggered_by": triggered_by,
            "data": json.dumps({k: v for k, v in changes.items() if k not in _SPINE}, default=str),
        },
    )


class AuditLog:
    """``hub.audit``: search the log and read one entity's history."""

    #: Listed by the store's public view of the resources (``store.resources.audit``).
    is_hub_resource = True

    def __init__(self, store: Store):
        self._store = store

    def search(
        self,
        *,
        entity_type: str | None = None,
        action: str | None = None,
        actor: str | None = None,
        entity_id: str | None = None,
        project_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = 1000,
        offset: int = 0,
    ) -> list[AuditEntry]:
        """Entries matching every filter given, newest first. ``since``/``until`` bound ``created_at``
        (inclusive; naive datetimes are taken as UTC)."""
        t = schema.audit_log
        query = sa.select(t)
        for column, value in (
            (t.c.entity_type, entity_type),
            (t.c.action, action),
            (t.c.actor, actor),
            (t.c.entity_id, entity_id),
            (t.c.project_id, project_id),
        ):
            if value is not None:
                query = query.where(column == value)
        if since is not None:
            query = query.where(t.c.created_at >= since)
        if until is not None:
            query = query.where(t.c.created_at <= until)
        query = query.order_by(t.c.created_at.desc(), t.c.id).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        with self._store.db.read() as conn:
            rows = conn.execute(query).mappings().all()
        return [_entry(row) for row in rows]

    def history(self, entity_id: str) -> list[AuditEntry]:
        """Every change of one record, oldest first."""
        return list(reversed(self.search(entity_id=entity_id, limit=None)))

    def to_dataframe(self, **filters: Any) -> Any:
        """``search(**filters)`` as a DataFrame (``changes`` as JSON text)."""
        from giskard_nb.frames.hub_records import audit_frame

        return audit_frame(self.search(**filters))

    def __repr__(self) -> str:
        return "<AuditLog (hub.audit): search(...), history(entity_id)>"


def _entry(row: Any) -> AuditEntry:
    data = dict(row)
    data["changes"] = json.loads(data.pop("data"))
    return build(AuditEntry, data, "audit entry")
