"""The store seam: what a Hub resource may use of the Hub it belongs to.

``Hub`` builds one ``Store`` and hands it to every resource (``ProjectsResource(store)``). A store
holds the database (``db``), the name the audit log records (``actor``), the secrets file
(``secrets``), the audit writer (``audit(conn, ...)``, inside the transaction that makes the change)
and ``resources``: the Hub's resources seen through their public methods only —
``store.resources.projects.retrieve(id)``; a ``_private`` name raises ``AttributeError``. ``bind``
attaches a record to its Hub, for the record's helpers (``dataset.test_cases()``).

Writes that span two resources in one transaction are named functions beside the resource that owns
the table: ``resources.base.insert_records`` and ``resources.test_cases.next_position``. A resource
never holds the whole ``Hub`` and never calls another resource's private method
(``tests/hub/test_store_seam.py`` checks the hub package for both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from giskard_nb.hub.audit import write_entry
from giskard_nb.hub.models.base import bind_record

if TYPE_CHECKING:
    import sqlalchemy as sa

    from giskard_nb.hub.db import Database
    from giskard_nb.hub.secret_store import SecretStore

__all__ = ["PublicView", "Store"]

R = TypeVar("R")


class Store:
    """The database, actor, secrets file and audit writer of one Hub, plus its resources' public
    methods (``resources``). ``owner`` is the Hub: records are bound to it, and ``resources`` reads
    its resources (only the public attributes that are resources)."""

    def __init__(self, db: Database, *, actor: str, secrets: SecretStore, owner: Any):
        self.db = db
        self.actor = actor
        self.secrets = secrets
        self._owner = owner
        self.resources = PublicView(owner, "hub", resources_only=True)

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


class PublicView:
    """An object (the Hub, a resource) seen through its public attributes only.

    ``view.name`` is ``getattr(target, name)``, read each time (so a replaced method is seen), with a
    resource (or the audit log) wrapped in its own view; a ``_private`` name raises
    ``AttributeError``. With ``resources_only``, only attributes that are resources are reachable
    (``store.resources.close`` is refused: a resource does not close its Hub).
    """

    __slots__ = ("_only", "_path", "_target")

    def __init__(self, target: Any, path: str, *, resources_only: bool = False):
        self._target = target
        self._path = path
        self._only = resources_only

    def __getattr__(self, name: str) -> Any:
        where = f"{self._path}.{name}"
        if name.startswith("_"):
            raise AttributeError(
                f"{where} is private: a Hub resource reaches another resource only through its "
                "public methods (see giskard_nb.hub.store)"
            )
        value = getattr(self._target, name)
        if _is_resource(value):
            return PublicView(value, where)
        if self._only:
            raise AttributeError(
                f"{where} is not a resource: store.resources gives the Hub's resources only"
            )
        return value

    def __dir__(self) -> list[str]:
        names = (n for n in dir(self._target) if not n.startswith("_"))
        if self._only:
            return sorted(n for n in names if _is_resource(getattr(self._target, n, None)))
        return sorted(names)

    def __repr__(self) -> str:
        return f"<public view of {self._path}: {self._target!r}>"


def _is_resource(value: Any) -> bool:
    # a class marker rather than isinstance: the resources import this module, not the reverse
    return getattr(type(value), "is_hub_resource", False) is True
