"""Resources whose records are runs (evaluations, scans): dead-owner (stale heartbeat) detection.

A ``running`` record whose owning process died (``hub.ledger``) reads as ``interrupted``: resumable.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OwnedRuns"]


class OwnedRuns:
    """Mixin for a ``Resource`` whose table carries the owner columns of ``hub.ledger``."""

    table: Any
    _store: Any

    def _from_row(self, row: Any) -> Any:
        from giskard_nb.hub.ledger import alive

        record = super()._from_row(row)  # type: ignore[misc]
        if record.status == "running" and not alive(row):
            record = self._store.bind(record.model_copy(update={"status": "interrupted"}))
        return record
