"""The store seam: what a Hub resource may use of the Hub it belongs to.

``Hub`` builds one ``Store`` and hands it to every resource (``ProjectsResource(store)``). A store
holds the database (``db``), the name the audit log records (``actor``), the secrets file
(``secrets``), the audit writer (``audit(conn, ...)``, inside the transaction that makes the change)
and ``resources``: the Hub's resources as typed links, each seen through its public methods only —
``store.resources.projects.retrieve(id)`` (``giskard_nb.hub.links``); a ``_private`` name raises
``AttributeError``. ``bind`` attaches a record to its Hub, for the record's helpers
(``dataset.test_cases()``).

Writes that span two resources in one transaction are named functions beside the resource that owns
the table: ``resources.base.insert_records`` and ``resources.test_cases.next_position``. A resource
never holds the whole ``Hub`` and never calls another resource's private method
(``tests/hub/test_store_seam.py`` checks the hub package for both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from giskard_nb.hub.audit import write_entry
from giskard_nb.hub.links import PublicView, Resources
from giskard_nb.hub.models.base import bind_record

if TYPE_CHECKING:
    import sqlalchemy as sa

    from giskard_nb.hub.db import Database
    from giskard_nb.hub.hub import Hub
    from giskard_nb.hub.secret_store import SecretStore

__all__ = ["PublicView", "Resources", "Store"]

R = TypeVar("R")


class Store:
    """The database, actor, secrets file and audit writer of one Hub, plus its resources' public
    methods (``resources``, typed links). ``owner`` is the Hub: records are bound to it, and
    ``resources`` reads its resources."""

    def __init__(self, db: Database, *, actor: str, secrets: SecretStore, owner: Hub):
        self.db = db
        self.actor = actor
        self.secrets = secrets
        self._owner = owner
        self.resources = Resources(owner)

    def audit(
        self,
        conn: sa.Connection,
        *,
        action: str,
        entity_type: str,
        entity_id: str,
        project_id: str | None,
        changes: dict[str, Any],
        triggered_by: str | None = None,
    ) -> None:
        """Record one change by ``actor`` (call inside the write transaction that makes it)."""
        write_entry(
            conn,
            self,
            action=action,
            entity_type=entity_type,
            entity_id=entity_id,
            project_id=project_id,
            changes=changes,
            triggered_by=triggered_by,
        )

    def bind(self, record: R) -> R:
        """``record`` attached to this store's Hub (for helpers such as ``evaluation.results()``)."""
        return bind_record(record, self._owner)

    def close(self) -> None:
        """Release the database connections and the secrets file."""
        self.db.close()
        self.secrets.close()

    def __repr__(self) -> str:
        return f"<Store {self.db.dialect} actor={self.actor!r}>"
